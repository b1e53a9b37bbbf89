import { POSTGRES } from '../helpers/store-under-test.ts';
import { uploadTextSuite } from './upload-text-suite.ts';

uploadTextSuite(POSTGRES);

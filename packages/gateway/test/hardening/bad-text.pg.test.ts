import { POSTGRES } from '../helpers/store-under-test.ts';
import { badTextSuite } from './bad-text-suite.ts';

badTextSuite(POSTGRES);

import { POSTGRES } from '../helpers/store-under-test.ts';
import { dokuSuite } from './doku-suite.ts';

dokuSuite(POSTGRES);

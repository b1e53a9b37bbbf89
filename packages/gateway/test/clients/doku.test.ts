import { SQLITE } from '../helpers/store-under-test.ts';
import { dokuSuite } from './doku-suite.ts';

dokuSuite(SQLITE);

import { SQLITE } from '../helpers/store-under-test.ts';
import { feesSuite } from './fees-suite.ts';

feesSuite(SQLITE);

import { POSTGRES } from '../helpers/store-under-test.ts';
import { feesSuite } from './fees-suite.ts';

feesSuite(POSTGRES);

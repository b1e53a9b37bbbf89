import { POSTGRES } from '../helpers/store-under-test.ts';
import { bankSuite } from './bank-suite.ts';

bankSuite(POSTGRES);

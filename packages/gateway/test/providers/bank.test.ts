import { SQLITE } from '../helpers/store-under-test.ts';
import { bankSuite } from './bank-suite.ts';

bankSuite(SQLITE);

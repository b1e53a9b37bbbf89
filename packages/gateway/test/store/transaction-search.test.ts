import { SQLITE } from '../helpers/store-under-test.ts';
import { transactionSearchSuite } from './transaction-search-suite.ts';

transactionSearchSuite(SQLITE);

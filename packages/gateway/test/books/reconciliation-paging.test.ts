import { SQLITE } from '../helpers/store-under-test.ts';
import { reconciliationPagingSuite } from './reconciliation-paging-suite.ts';

reconciliationPagingSuite(SQLITE);

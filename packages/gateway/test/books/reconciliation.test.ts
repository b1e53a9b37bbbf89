import { SQLITE } from '../helpers/store-under-test.ts';
import { reconciliationSuite } from './reconciliation-suite.ts';

reconciliationSuite(SQLITE);

import { SQLITE } from '../helpers/store-under-test.ts';
import { masterKeyStatusSuite } from './master-key-status-suite.ts';

masterKeyStatusSuite(SQLITE);

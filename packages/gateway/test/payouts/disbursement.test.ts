import { SQLITE } from '../helpers/store-under-test.ts';
import { disbursementSuite } from './disbursement-suite.ts';

disbursementSuite(SQLITE);

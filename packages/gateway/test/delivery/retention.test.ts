import { SQLITE } from '../helpers/store-under-test.ts';
import { retentionSuite } from './retention-suite.ts';

retentionSuite(SQLITE);

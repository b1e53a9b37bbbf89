import { SQLITE } from '../helpers/store-under-test.ts';
import { auditFirstSuite } from './audit-first-suite.ts';

auditFirstSuite(SQLITE);

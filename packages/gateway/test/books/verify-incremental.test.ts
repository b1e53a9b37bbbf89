import { verifyIncrementalSuite } from './verify-incremental-suite.ts';

verifyIncrementalSuite('SQLite');

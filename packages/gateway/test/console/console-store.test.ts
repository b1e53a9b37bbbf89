import { SQLITE } from '../helpers/store-under-test.ts';
import { consoleStoreSuite } from './console-store-suite.ts';

consoleStoreSuite(SQLITE);

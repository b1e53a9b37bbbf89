import { POSTGRES } from '../helpers/store-under-test.ts';
import { consoleStoreSuite } from './console-store-suite.ts';

consoleStoreSuite(POSTGRES);

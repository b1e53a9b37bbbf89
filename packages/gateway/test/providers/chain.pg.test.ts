import { POSTGRES } from '../helpers/store-under-test.ts';
import { chainSuite } from './chain-suite.ts';

chainSuite(POSTGRES);

import { POSTGRES } from '../helpers/store-under-test.ts';
import { liveSuite } from './live-suite.ts';

liveSuite(POSTGRES);

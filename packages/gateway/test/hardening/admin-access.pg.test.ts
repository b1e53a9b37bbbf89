import { POSTGRES } from '../helpers/store-under-test.ts';
import { adminAccessSuite } from './admin-access-suite.ts';

adminAccessSuite(POSTGRES);

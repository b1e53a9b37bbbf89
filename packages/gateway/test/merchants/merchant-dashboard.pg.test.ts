import { POSTGRES } from '../helpers/store-under-test.ts';
import { merchantDashboardSuite } from './merchant-dashboard-suite.ts';

merchantDashboardSuite(POSTGRES);

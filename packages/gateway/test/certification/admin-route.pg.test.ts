import { POSTGRES } from '../helpers/store-under-test.ts';
import { certificationRouteSuite } from './admin-route-suite.ts';

certificationRouteSuite(POSTGRES);

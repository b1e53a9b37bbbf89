import { POSTGRES } from '../helpers/store-under-test.ts';
import { conformanceSuite } from './conformance-suite.ts';

conformanceSuite(POSTGRES);

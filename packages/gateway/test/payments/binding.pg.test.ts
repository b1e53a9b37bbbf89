import { POSTGRES } from '../helpers/store-under-test.ts';
import { bindingSuite } from './binding-suite.ts';

bindingSuite(POSTGRES);

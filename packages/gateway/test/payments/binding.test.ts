import { SQLITE } from '../helpers/store-under-test.ts';
import { bindingSuite } from './binding-suite.ts';

bindingSuite(SQLITE);

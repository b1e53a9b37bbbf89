import { SQLITE } from '../helpers/store-under-test.ts';
import { propertySuite } from './property-suite.ts';

propertySuite(SQLITE);

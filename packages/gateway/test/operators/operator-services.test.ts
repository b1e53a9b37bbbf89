import { SQLITE } from '../helpers/store-under-test.ts';
import { operatorServicesSuite } from './operator-services-suite.ts';

operatorServicesSuite(SQLITE);

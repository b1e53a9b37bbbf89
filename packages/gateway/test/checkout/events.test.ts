import { SQLITE } from '../helpers/store-under-test.ts';
import { checkoutEventsSuite } from './events-suite.ts';

checkoutEventsSuite(SQLITE);

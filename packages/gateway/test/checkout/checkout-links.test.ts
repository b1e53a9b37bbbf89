import { SQLITE } from '../helpers/store-under-test.ts';
import { checkoutLinksSuite } from './checkout-links-suite.ts';

checkoutLinksSuite(SQLITE);

import { POSTGRES } from '../helpers/store-under-test.ts';
import { paymentLinksSuite } from './payment-links-suite.ts';

paymentLinksSuite(POSTGRES);

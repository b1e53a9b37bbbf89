import { POSTGRES } from '../helpers/store-under-test.ts';
import { paymentCrashSuite } from './payment-crash-suite.ts';

paymentCrashSuite(POSTGRES);

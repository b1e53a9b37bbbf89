import { SQLITE } from '../helpers/store-under-test.ts';
import { paymentCrashSuite } from './payment-crash-suite.ts';

paymentCrashSuite(SQLITE);

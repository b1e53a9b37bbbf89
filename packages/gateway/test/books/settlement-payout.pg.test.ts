import { POSTGRES } from '../helpers/store-under-test.ts';
import { settlementPayoutSuite } from './settlement-payout-suite.ts';

settlementPayoutSuite(POSTGRES);

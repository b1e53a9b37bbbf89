import { SQLITE } from '../helpers/store-under-test.ts';
import { settlementPayoutSuite } from './settlement-payout-suite.ts';

settlementPayoutSuite(SQLITE);

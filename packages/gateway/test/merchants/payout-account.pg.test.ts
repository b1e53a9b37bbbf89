import { POSTGRES } from '../helpers/store-under-test.ts';
import { payoutAccountSuite } from './payout-account-suite.ts';

payoutAccountSuite(POSTGRES);

import { SQLITE } from '../helpers/store-under-test.ts';
import { payoutBankSuite } from './payout-bank-suite.ts';

payoutBankSuite(SQLITE);

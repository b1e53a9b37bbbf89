import { POSTGRES } from '../helpers/store-under-test.ts';
import { ledgerSuite } from './ledger-suite.ts';

ledgerSuite(POSTGRES);

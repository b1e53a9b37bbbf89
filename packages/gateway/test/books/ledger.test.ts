import { SQLITE } from '../helpers/store-under-test.ts';
import { ledgerSuite } from './ledger-suite.ts';

ledgerSuite(SQLITE);

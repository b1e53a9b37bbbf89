import { SQLITE } from '../helpers/store-under-test.ts';
import { ledgerUpgradeSuite } from './ledger-upgrade-suite.ts';

ledgerUpgradeSuite(SQLITE);

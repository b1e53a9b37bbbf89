import { POSTGRES } from '../helpers/store-under-test.ts';
import { reconciliationUpgradeSuite } from './reconciliation-upgrade-suite.ts';

reconciliationUpgradeSuite(POSTGRES);

import { SQLITE } from '../helpers/store-under-test.ts';
import { totalsUpgradeSuite } from './totals-upgrade-suite.ts';

totalsUpgradeSuite(SQLITE);

import { SQLITE } from '../helpers/store-under-test.ts';
import { methodKindsUpgradeSuite } from './method-kinds-upgrade-suite.ts';

methodKindsUpgradeSuite(SQLITE);

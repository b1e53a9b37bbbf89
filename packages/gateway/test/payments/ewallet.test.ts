import { SQLITE } from '../helpers/store-under-test.ts';
import { ewalletSuite } from './ewallet-suite.ts';

ewalletSuite(SQLITE);

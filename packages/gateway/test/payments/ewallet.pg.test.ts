import { POSTGRES } from '../helpers/store-under-test.ts';
import { ewalletSuite } from './ewallet-suite.ts';

ewalletSuite(POSTGRES);

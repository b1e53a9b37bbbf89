import { POSTGRES } from '../helpers/store-under-test.ts';
import { walletSuite } from './wallet-suite.ts';

walletSuite(POSTGRES);

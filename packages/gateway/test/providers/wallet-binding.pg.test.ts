import { POSTGRES } from '../helpers/store-under-test.ts';
import { walletBindingSuite } from './wallet-binding-suite.ts';

walletBindingSuite(POSTGRES);

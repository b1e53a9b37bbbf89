import { POSTGRES } from '../helpers/store-under-test.ts';
import { sealingSuite } from './sealing-suite.ts';

sealingSuite(POSTGRES);

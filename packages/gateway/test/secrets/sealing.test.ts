import { SQLITE } from '../helpers/store-under-test.ts';
import { sealingSuite } from './sealing-suite.ts';

sealingSuite(SQLITE);

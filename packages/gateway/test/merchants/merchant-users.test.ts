import { SQLITE } from '../helpers/store-under-test.ts';
import { merchantUsersSuite } from './merchant-users-suite.ts';

merchantUsersSuite(SQLITE);

import { POSTGRES } from '../helpers/store-under-test.ts';
import { acquirerSuite } from './acquirer-suite.ts';

acquirerSuite(POSTGRES);

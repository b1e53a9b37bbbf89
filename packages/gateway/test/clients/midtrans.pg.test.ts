import { POSTGRES } from '../helpers/store-under-test.ts';
import { midtransSuite } from './midtrans-suite.ts';

midtransSuite(POSTGRES);

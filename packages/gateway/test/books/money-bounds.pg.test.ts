import { moneyBoundsSuite } from './money-bounds-suite.ts';

moneyBoundsSuite('PostgreSQL');

import { moneyBoundsSuite } from './money-bounds-suite.ts';

moneyBoundsSuite('SQLite');

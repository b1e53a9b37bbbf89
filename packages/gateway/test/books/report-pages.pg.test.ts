import { reportPagesSuite } from './report-pages-suite.ts';

reportPagesSuite('PostgreSQL');

import { SQLITE } from '../helpers/store-under-test.ts';
import { hostileAnswerSuite } from './hostile-answer-suite.ts';

hostileAnswerSuite(SQLITE);

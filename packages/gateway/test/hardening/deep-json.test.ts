import { SQLITE } from '../helpers/store-under-test.ts';
import { deepJsonSuite } from './deep-json-suite.ts';

deepJsonSuite(SQLITE);

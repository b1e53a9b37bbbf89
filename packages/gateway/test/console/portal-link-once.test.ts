import { SQLITE } from '../helpers/store-under-test.ts';
import { portalLinkOnceSuite } from './portal-link-once-suite.ts';

portalLinkOnceSuite(SQLITE);

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { adminKeyRevokeSuite } from './admin-key-revoke-suite.ts';

adminKeyRevokeSuite({
  name: 'SQLite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-keys-'));
    return {
      store: new SqliteStore({ file: join(dir, 'keys.db') }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { storeContract } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'snapgate-contract-'));
storeContract('SQLite', {
  open: async () => new SqliteStore({ file: join(dir, 'contract.db') }),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
});

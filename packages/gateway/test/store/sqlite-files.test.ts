// The database holds every merchant's keys: its folder and files are the gateway user's alone.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

const mode = (p: string) => statSync(p).mode & 0o777;

describe('SQLite files are private', () => {
  const root = mkdtempSync(join(tmpdir(), 'snapgate-perm-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('creates the folder 0700 and the database, -wal and -shm files 0600', async () => {
    const file = join(root, 'new', 'nested', 'gw.db');
    const store = new SqliteStore({ file });
    await store.getOrCreateSetting('probe', () => 'x');
    assert.equal(mode(join(root, 'new', 'nested')), 0o700);
    assert.equal(mode(join(root, 'new')), 0o700);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) {
      assert.ok(existsSync(f), f);
      assert.equal(mode(f).toString(8), '600', f);
    }
    await store.close();
  });

  it('tightens an existing database file that others could read', async () => {
    const file = join(root, 'old.db');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const store = new SqliteStore({ file });
    assert.equal(mode(file).toString(8), '600');
    await store.close();
  });
});

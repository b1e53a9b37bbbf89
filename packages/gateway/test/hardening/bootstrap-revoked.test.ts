// A revoked bootstrap key stays revoked when SNAPGATE_ADMIN_TOKEN is set again: the start says so.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bootstrap } from '../../src/bootstrap.ts';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

describe('SNAPGATE_ADMIN_TOKEN after the bootstrap key was revoked', () => {
  it('is reported at start, not silently ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-bootstrap-'));
    const store = new SqliteStore({ file: join(dir, 'db.sqlite') });
    try {
      const config = loadConfig({
        SNAPGATE_ADMIN_TOKEN: 'first-token-0123456789',
        SNAPGATE_DB: join(dir, 'db.sqlite'),
      });
      assert.equal((await bootstrap(store, config, systemClock)).bootstrapRevoked, undefined);
      // Another admin key first: the last one cannot be revoked.
      await store.insertAdminKey({
        id: 'key_anna',
        name: 'anna',
        scope: 'admin',
        tokenSha256: 'a'.repeat(64),
        createdAt: Date.now(),
        lastUsedAt: null,
        revokedAt: null,
      });
      const key = (await store.listAdminKeys()).find((k) => k.name === 'bootstrap');
      assert.equal((await store.revokeAdminKey(key?.id as string, Date.now())).outcome, 'revoked');
      const again = loadConfig({
        SNAPGATE_ADMIN_TOKEN: 'second-token-0123456789',
        SNAPGATE_DB: join(dir, 'db.sqlite'),
      });
      assert.equal((await bootstrap(store, again, systemClock)).bootstrapRevoked, true);
      // Without the variable there is nothing to warn about.
      assert.equal(
        (await bootstrap(store, loadConfig({ SNAPGATE_DB: join(dir, 'db.sqlite') }), systemClock)).bootstrapRevoked,
        undefined,
      );
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

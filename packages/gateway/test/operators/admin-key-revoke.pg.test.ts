import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/receiver.ts';
import { adminKeyRevokeSuite } from './admin-key-revoke-suite.ts';

adminKeyRevokeSuite({
  name: 'PostgreSQL',
  async open() {
    const db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url });
    await store.migrate();
    return { store, cleanup: db.drop };
  },
});

describe('revoking admin keys under READ COMMITTED (PostgreSQL)', () => {
  it('waits for a revoke of the other admin key in flight, then refuses the last one', async () => {
    const db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url });
    const other = new pg.Client({ connectionString: db.url });
    const watcher = new pg.Client({ connectionString: db.url });
    try {
      await store.migrate();
      await Promise.all([other.connect(), watcher.connect()]);
      for (const id of ['key_a', 'key_b']) {
        await store.insertAdminKey({
          id,
          name: id,
          scope: 'admin',
          tokenSha256: `${id}-hash`,
          createdAt: 1,
          lastUsedAt: null,
          revokedAt: null,
        });
      }
      // Another revoke has written key_a but not committed yet: in its snapshot key_b is active,
      // and in the snapshot of a revoke of key_b starting now key_a still is.
      await other.query('BEGIN');
      await other.query('UPDATE admin_keys SET revoked_at = 10 WHERE id = $1', ['key_a']);
      let isSettled = false;
      const pending = store.revokeAdminKey('key_b', 20).finally(() => {
        isSettled = true;
      });
      await waitFor('the revoke of key_b to wait for a lock, or to finish', async () => {
        if (isSettled) return true;
        const { rows } = await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0].n > 0;
      });
      await other.query('COMMIT');
      assert.deepEqual(await pending, { outcome: 'last-admin-key' });
      const active = (await store.listAdminKeys()).filter((k) => k.revokedAt === null).map((k) => k.id);
      assert.deepEqual(active, ['key_b']);
    } finally {
      await other.end().catch(() => undefined);
      await watcher.end().catch(() => undefined);
      await store.close();
      await db.drop();
    }
  });
});

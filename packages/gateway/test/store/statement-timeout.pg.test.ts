// SNAPGATE_DB_STATEMENT_TIMEOUT_MS: a table locked for long makes requests fail fast with a timeout
// (SNAP 504, admin 503) instead of waiting on the lock, writes nothing, and the gateway serves again
// as soon as the lock is gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

describe('PostgreSQL statement and lock timeout', () => {
  let db: { url: string; drop: () => Promise<void> };
  let gw: TestGateway;
  let caller: SnapCaller;
  before(async () => {
    db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url, statementTimeoutMs: 300 });
    await store.migrate();
    gw = await startGateway({ store });
    caller = await authenticate(gw.url, await gw.createMerchant({ name: 'Locked Out' }));
  });
  after(async () => {
    await gw.close();
    await db.drop();
  });

  it('answers a timeout while a table is locked, and serves again once it is released', async () => {
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE transactions IN ACCESS EXCLUSIVE MODE');
      const generate = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'LOCKED-1',
        amount: { value: '1000.00', currency: 'IDR' },
      });
      assert.equal(generate.status, 504, generate.text);
      assert.deepEqual(generate.body, { responseCode: '5044700', responseMessage: 'Timeout' });
      const list = await gw.admin('GET', '/transactions');
      assert.equal(list.status, 503);
      assert.match(list.body.detail, /did not answer in time/);
      // Both answered while the lock is still held (it is released only below): bounded by the timeout.
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const again = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'LOCKED-1',
      amount: { value: '1000.00', currency: 'IDR' },
    });
    assert.equal(again.status, 200, again.text);
  });
});

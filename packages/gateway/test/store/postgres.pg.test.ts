import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/receiver.ts';
import { merchant, storeContract, txn } from './contract.ts';

let drop: (() => Promise<void>) | undefined;
storeContract('PostgreSQL', {
  open: async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    const store = new PostgresStore({ connectionString: db.url });
    await store.migrate();
    return store;
  },
  cleanup: async () => drop?.(),
});

describe('PostgreSQL merchant cache across instances', () => {
  it('sees another instance disable a merchant or rotate its secret within moments', async () => {
    const db = await createTestDatabase();
    const a = new PostgresStore({ connectionString: db.url });
    await a.migrate();
    const b = new PostgresStore({ connectionString: db.url });
    await b.migrate();
    try {
      const now = Date.now();
      const m = {
        id: 'cache-m',
        name: 'Cache',
        clientKey: 'cache-ck',
        clientSecret: 's1',
        previousSecret: null,
        previousValidUntil: null,
        secretVersion: 1,
        partnerId: 'cache-p',
        publicKeyPem: null,
        tokenSignature: 'any' as const,
        callbackSignature: 'hmac-sha512' as const,
        callbackJson: 'standard' as const,
        callbackTokenUrl: null,
        callbackBaseUrl: null,
        qrisCallbackUrl: null,
        vaCallbackUrl: null,
        merchantName: 'Cache',
        merchantCity: 'JAKARTA',
        nmid: 'ID1234567890123',
        mcc: '5999',
        qrisProvider: null,
        status: 'active' as const,
        createdAt: now,
        updatedAt: now,
      };
      await a.insertMerchant(m);
      assert.equal((await a.findMerchantByClientKey('cache-ck'))?.status, 'active'); // now cached in a
      // The hot path makes no round trip once cached.
      let queries = 0;
      const query = a.pool.query.bind(a.pool);
      (a.pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        queries++;
        return (query as (...args: unknown[]) => unknown)(...args);
      };
      // The insert's own NOTIFY may still be on its way and empty the cache once: wait for that.
      await waitFor('a cache hit', async () => {
        const before = queries;
        await a.findMerchantByClientKey('cache-ck');
        return queries === before;
      });
      const settled = queries;
      for (let i = 0; i < 5; i++) await a.findMerchantByClientKey('cache-ck');
      assert.equal(queries, settled);
      await b.updateMerchant('cache-m', { status: 'disabled' }, now + 1);
      await waitFor(
        'a sees the change',
        async () => (await a.findMerchantByClientKey('cache-ck'))?.status === 'disabled',
        2000,
      );
      await b.rotateMerchantSecret('cache-m', { clientSecret: 's2', previousValidUntil: now, rotatedAt: now + 2 });
      await waitFor(
        'a sees the rotation',
        async () => (await a.findMerchantById('cache-m'))?.clientSecret === 's2',
        2000,
      );
    } finally {
      await a.close();
      await b.close();
      await db.drop();
    }
  });
});

describe('PostgreSQL prepared statements and a newer instance changing a table', () => {
  it('a prepared SELECT * keeps working after another instance adds a column (a rolling upgrade)', async () => {
    const db = await createTestDatabase();
    // One connection, so the statement prepared by the first call is the one the later calls meet.
    const store = new PostgresStore({ connectionString: db.url, max: 1 });
    await store.migrate();
    try {
      assert.equal(await store.findTransaction('none-yet'), undefined);
      const other = new PostgresStore({ connectionString: db.url, max: 1 });
      try {
        await other.pool.query('ALTER TABLE transactions ADD COLUMN added_by_a_newer_version TEXT');
      } finally {
        await other.close();
      }
      // PostgreSQL refuses the old plan ("cached plan must not change result type"); the store
      // prepares the statement anew and answers.
      assert.equal(await store.findTransaction('none-yet'), undefined);
      assert.equal(await store.findTransaction('still-none'), undefined);
    } finally {
      await store.close();
      await db.drop();
    }
  });

  it('inside a transaction too: the status change runs again whole and commits once', async () => {
    const db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url, max: 1 });
    await store.migrate();
    try {
      const m = merchant();
      await store.insertMerchant(m);
      const a = txn(m.id);
      const b = txn(m.id);
      await store.insertTransaction(a);
      await store.insertTransaction(b);
      const pay = (t: typeof a) =>
        store.changeStatus({
          referenceNo: t.referenceNo,
          expectedSeq: t.seq,
          status: '00',
          statusDesc: 'Success',
          reason: 'paid',
          at: t.createdAt + 1,
          notification: { id: `${t.referenceNo}-n`, body: '{}', nextAttemptAt: t.createdAt + 1 },
        });
      // Prepares `UPDATE transactions … RETURNING *` on the one connection.
      assert.equal((await pay(a))?.txn.status, '00');
      const other = new PostgresStore({ connectionString: db.url, max: 1 });
      try {
        await other.pool.query('ALTER TABLE transactions ADD COLUMN added_inside_a_transaction TEXT');
      } finally {
        await other.close();
      }
      const paid = await pay(b);
      assert.equal(paid?.txn.status, '00');
      assert.equal((await store.statusHistory(b.referenceNo)).length, 2);
      assert.equal((await store.notificationsOf(b.referenceNo)).length, 1);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});

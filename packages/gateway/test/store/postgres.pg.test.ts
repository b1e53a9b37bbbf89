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
        callbackVaBody: 'standard' as const,
        callbackAck: 'strict' as const,
        callbackTokenUrl: null,
        callbackBaseUrl: null,
        qrisCallbackUrl: null,
        vaCallbackUrl: null,
        merchantName: 'Cache',
        merchantCity: 'JAKARTA',
        nmid: 'ID1234567890123',
        mcc: '5999',
        qrisProvider: null,
        qrisCriteria: 'UMI' as const,
        fees: null,
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

  it('a status change (one statement) and an update inside a transaction run again whole and commit once', async () => {
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

      // An update with its idempotency record is a transaction of several statements: the
      // stale plan aborts it, and it runs again whole.
      const update = (t: NonNullable<typeof paid>['txn'], externalId: string) =>
        store.updateTransaction({
          referenceNo: t.referenceNo,
          expectedSeq: t.seq,
          at: t.updatedAt + 1,
          patch: { details: { qrContent: '', additionalInfo: { note: externalId } } },
          idempotency: {
            merchantId: m.id,
            day: '2026-01-01',
            externalId,
            requestHash: 'h',
            httpStatus: 200,
            responseBody: '{}',
          },
        });
      const first = await update(paid.txn, '1');
      assert.ok(first);
      const again = new PostgresStore({ connectionString: db.url, max: 1 });
      try {
        await again.pool.query('ALTER TABLE transactions ADD COLUMN added_before_an_update TEXT');
      } finally {
        await again.close();
      }
      const second = await update(first, '2');
      assert.equal(second?.seq, first.seq + 1);
      assert.deepEqual(second?.details, { qrContent: '', additionalInfo: { note: '2' } });
      assert.ok(await store.findIdempotency({ merchantId: m.id, day: '2026-01-01', externalId: '2' }));
    } finally {
      await store.close();
      await db.drop();
    }
  });
});

// Search by part of any reference, in any case (the console's transaction search): a transaction's
// referenceNo, the merchant's partnerReferenceNo and its VA number, on both stores, through the
// payment API as a merchant makes them; and a database from before the search index finds its
// old transactions after the upgrade.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

export function transactionSearchSuite(under: StoreUnderTest): void {
  describe(`transaction search by part of a reference (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let merchantId: string;
    let qris: { referenceNo: string };
    let va: { referenceNo: string; virtualAccountNo: string };
    const partnerRef = `Order-AbC%_${Date.now()}`;
    let sqlite: SqliteStore | undefined;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      if (!opened.store) {
        // SQLite: the store at hand, to move its search queue into the index when the test says so.
        const dir = mkdtempSync(join(tmpdir(), 'snapgate-search-'));
        sqlite = new SqliteStore({ file: join(dir, 'search.db') });
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      }
      gw = await startGateway({ store: opened.store ?? sqlite });
      const m = await gw.createMerchant();
      merchantId = m.id;
      const c = await authenticate(gw.url, m);
      const q = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: partnerRef,
        amount: { value: '15000.00', currency: 'IDR' },
      });
      assert.equal(q.status, 200, q.text);
      qris = { referenceNo: q.body.referenceNo };
      const v = await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId: `VA-${Date.now()}`,
        totalAmount: { value: '5000.00', currency: 'IDR' },
      });
      assert.equal(v.status, 200, v.text);
      const vaTxn = (await gw.store.searchTransactions({ merchantId, kind: 'va' }, 10, 0))[0];
      assert.ok(vaTxn?.virtualAccountNo);
      va = { referenceNo: vaTxn.referenceNo, virtualAccountNo: vaTxn.virtualAccountNo };
    });
    after(async () => {
      await gw?.close();
      await cleanup?.();
    });

    const refsOf = async (reference: string, extra: Record<string, unknown> = {}) =>
      (await gw.store.searchTransactions({ reference, merchantId, ...extra }, 10, 0)).map((t) => t.referenceNo);

    it('finds a transaction by part of its referenceNo, its partnerReferenceNo or its VA number, in any case', async () => {
      await expectFound();
      // SQLite: found while still queued for the index (above), and found again once indexed.
      if (sqlite) {
        await sqlite.catchUpSearch();
        assert.deepEqual(sqlite.db.prepare('SELECT count(*) AS n FROM transactions_search_queue').get(), { n: 0 });
        await expectFound();
      }
    });

    const expectFound = async () => {
      assert.deepEqual(await refsOf(qris.referenceNo), [qris.referenceNo], 'the whole referenceNo');
      // (The end of it: references are made in order, so ones made the same second share a start.)
      assert.deepEqual(await refsOf(qris.referenceNo.slice(8)), [qris.referenceNo], 'part of it');
      assert.deepEqual(await refsOf('order-abc'), [qris.referenceNo], 'the partnerReferenceNo, another case');
      assert.deepEqual(await refsOf('ORDER-ABC'), [qris.referenceNo]);
      assert.deepEqual(await refsOf(va.virtualAccountNo.slice(-7)), [va.referenceNo], 'the end of the VA number');
      assert.deepEqual(await refsOf(va.virtualAccountNo.trimStart()), [va.referenceNo], 'the whole VA number');
      assert.deepEqual(await refsOf('no-such-reference'), []);
    };

    it('takes LIKE wildcards and quotes as themselves, and terms shorter than three characters', async () => {
      assert.deepEqual(await refsOf('c%_'), [qris.referenceNo], '% and _ are characters of the partnerReferenceNo');
      assert.deepEqual(await refsOf('%'), [qris.referenceNo]);
      assert.deepEqual(await refsOf('_'), [qris.referenceNo]);
      assert.deepEqual(await refsOf('x%y'), []);
      assert.deepEqual(await refsOf('"'), []);
      assert.deepEqual(await refsOf('a"b'), []);
      assert.deepEqual(await refsOf("' OR 1=1 --"), []);
      assert.deepEqual((await refsOf('Ab')).includes(qris.referenceNo), true, 'two characters, any case');
    });

    it('combines with the other filters', async () => {
      assert.deepEqual(await refsOf('order-abc', { kind: 'va' }), []);
      assert.deepEqual(await refsOf('order-abc', { kind: 'qris', status: '01' }), [qris.referenceNo]);
    });
  });
}

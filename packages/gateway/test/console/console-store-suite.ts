// The store verbs behind the console's overview and search, on both stores, over real data: a paid
// QRIS delivered to a real receiver, a VA, and a provider's inbound calls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

export function consoleStoreSuite(under: StoreUnderTest): void {
  describe(`console store verbs (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const started = Date.now() - 1000;
    let qrRef: string;
    let merchantId: string;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      receiver = await startReceiver();
      gw = await startGateway({ dispatch: true, ...(opened.store ? { store: opened.store } : {}) });
      const m = await gw.createMerchant({ callbackBaseUrl: receiver.baseUrl });
      merchantId = m.id;
      const c = await authenticate(gw.url, m);
      const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'CONSOLE-1',
        amount: { value: '15000.00', currency: 'IDR' },
      });
      qrRef = qr.body.referenceNo;
      await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId: 'CONSOLE-VA-1',
        totalAmount: { value: '5000.00', currency: 'IDR' },
      });
      await gw.admin('POST', `/sandbox/qris/${qrRef}/pay`, {});
      await waitFor('the callback delivered', async () => {
        const n = (await gw.admin('GET', `/notifications?referenceNo=${qrRef}`)).body.items[0];
        return n?.state === 'delivered';
      });
    });
    after(async () => {
      await gw.close();
      await receiver.close();
      await cleanup();
    });

    it('counts transactions by status, notifications by state, attempts per minute and inbound calls', async () => {
      const byStatus = await gw.store.countTransactionsByStatus(started);
      assert.equal(byStatus['00'], 1);
      assert.equal(byStatus['01'], 1);
      const byState = await gw.store.countNotificationsByState();
      assert.ok((byState.delivered ?? 0) >= 1, JSON.stringify(byState));
      const minutes = await gw.store.attemptsPerMinute(started - 60_000);
      assert.ok(minutes.reduce((n, m) => n + m.acknowledged, 0) >= 1, JSON.stringify(minutes));
      for (const m of minutes) assert.equal(m.minute % 60_000, 0);
      // The sandbox acquirer paid over the provider API: its call is in the inbound log.
      const inbound = await waitFor('the inbound log', async () => {
        const r = await gw.store.countInboundByProvider(started);
        return Object.keys(r).length > 0 ? r : undefined;
      });
      assert.ok(Object.values(inbound).every((n) => n >= 1));
    });

    it('searches transactions newest first by merchant, status, kind, time and any reference', async () => {
      const all = await gw.store.searchTransactions({ merchantId }, 10, 0);
      assert.equal(all.length, 2);
      assert.ok((all[0]?.createdAt ?? 0) >= (all[1]?.createdAt ?? 0), 'newest first');
      assert.equal((await gw.store.searchTransactions({ merchantId, kind: 'qris' }, 10, 0)).length, 1);
      assert.equal((await gw.store.searchTransactions({ merchantId, status: '00' }, 10, 0))[0]?.referenceNo, qrRef);
      assert.equal((await gw.store.searchTransactions({ reference: 'CONSOLE-1' }, 10, 0))[0]?.referenceNo, qrRef);
      assert.equal((await gw.store.searchTransactions({ reference: qrRef }, 10, 0)).length, 1);
      assert.equal((await gw.store.searchTransactions({ merchantId, from: Date.now() + 60_000 }, 10, 0)).length, 0);
      assert.equal((await gw.store.searchTransactions({ merchantId }, 1, 1)).length, 1, 'offset');
    });
  });
}

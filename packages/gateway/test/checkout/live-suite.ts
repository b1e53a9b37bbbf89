// The live status of one gateway, through its real doors: a status change made over HTTP reaches
// the pages (hub subscribers) waiting for it, once. Run on SQLite (live-gateway.test.ts) and on
// PostgreSQL (live-gateway.pg.test.ts), where the gateway also hears its own NOTIFY of each change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LiveChange } from '../../src/checkout/live.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });

export function liveSuite(under: StoreUnderTest): void {
  describe(`live status through one real gateway (${under.name})`, () => {
    let gw: TestGateway;
    let merchant: SnapCaller;
    let cleanup: () => Promise<void>;
    let seq = 0;
    /** Every change the store announced (PostgreSQL), in the order this instance heard them. */
    const announced: LiveChange[] = [];

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        ...(opened.store ? { store: opened.store } : {}),
        env: { SNAPGATE_RATE_LIMIT: 'off' },
      });
      // Added after the gateway's own watcher: when this one hears a change, the hub has too.
      gw.store.watchStatusChanges?.({
        change: (c) => announced.push(c),
        resync: () => undefined,
      });
      const m = await gw.createMerchant();
      merchant = await authenticate(gw.url, m);
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    async function generate(): Promise<string> {
      const r = await snapCall(gw.url, merchant, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `LIVE-${Date.now()}-${++seq}`,
        amount: idr('25000.00'),
      });
      assert.equal(r.status, 200, r.text);
      return r.body.referenceNo as string;
    }

    /** Waits until the store has announced `ref` at `seq` (PostgreSQL), so any second copy would have arrived. */
    async function heardAnnouncement(ref: string, atSeq: number): Promise<void> {
      if (!gw.store.watchStatusChanges) return;
      await waitFor(`the NOTIFY of ${ref} seq ${atSeq}`, () =>
        announced.some((c) => c.referenceNo === ref && c.seq === atSeq),
      );
    }

    it('tells every page waiting for a QRIS of its payment, once each', async () => {
      const ref = await generate();
      const first: LiveChange[] = [];
      const second: LiveChange[] = [];
      const stop1 = gw.gateway.live.subscribe(ref, (c) => first.push(c));
      const stop2 = gw.gateway.live.subscribe(ref, (c) => second.push(c));
      const paid = await gw.admin('POST', `/sandbox/qris/${ref}/pay`, {});
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      await waitFor('the payment on the page', () => first.length > 0 && second.length > 0);
      const txn = await gw.store.findTransaction(ref);
      const expected: LiveChange = { referenceNo: ref, status: '00', statusDesc: 'Success', seq: txn?.seq ?? -1 };
      await heardAnnouncement(ref, expected.seq);
      assert.deepEqual(first, [expected]);
      assert.deepEqual(second, [expected]);
      stop1();
      stop2();
      assert.equal(gw.gateway.live.listeners, 0);
    });

    it('tells a page of a cancel (05) and of a failed payment (06), and nothing of other transactions', async () => {
      const cancelled = await generate();
      const failed = await generate();
      const other = await generate();
      const seen: LiveChange[] = [];
      const stops = [cancelled, failed].map((ref) => gw.gateway.live.subscribe(ref, (c) => seen.push(c)));
      const r = await snapCall(gw.url, merchant, `${API}/qr/qr-mpm-cancel`, {
        originalReferenceNo: cancelled,
        reason: 'customer left',
      });
      assert.equal(r.status, 200, r.text);
      assert.equal((await gw.admin('POST', `/sandbox/qris/${failed}/pay`, { status: '06' })).status, 200);
      assert.equal((await gw.admin('POST', `/sandbox/qris/${other}/pay`, {})).status, 200);
      await waitFor('both changes on the pages', () => seen.length >= 2);
      await heardAnnouncement(other, (await gw.store.findTransaction(other))?.seq ?? -1);
      assert.deepEqual(
        seen.map((c) => [c.referenceNo, c.status]).sort(),
        [
          [cancelled, '05'],
          [failed, '06'],
        ].sort(),
      );
      for (const stop of stops) stop();
    });

    it('tells a page waiting for a VA of its payment through the sandbox bank', async () => {
      const r = await snapCall(gw.url, merchant, `${API}/transfer-va/create-va`, {
        virtualAccountName: 'Budi Santoso',
        trxId: `LIVE-VA-${Date.now()}-${++seq}`,
        totalAmount: idr('150000.00'),
      });
      assert.equal(r.status, 200, r.text);
      const vaNo = r.body.virtualAccountData.virtualAccountNo as string;
      const txn = await gw.store.findTransactionByVirtualAccountNo(vaNo);
      assert.ok(txn);
      const seen: LiveChange[] = [];
      const stop = gw.gateway.live.subscribe(txn.referenceNo, (c) => seen.push(c));
      const paid = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(vaNo)}/pay`, {});
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      await waitFor('the VA payment on the page', () => seen.length > 0);
      assert.deepEqual(
        seen.map((c) => c.status),
        ['00'],
      );
      stop();
    });
  });
}

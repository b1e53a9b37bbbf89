// The checkout's event stream over real HTTP (docs/checkout.md#live-status): the current state at
// once, then each later change of the transaction, pushed by the change itself; the stream ends
// after a final state, and a closed one stops listening. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import { openEvents, payBySandbox, QR, qrisOrder, shop, VA, vaOrder } from './checkout-kit.ts';

export function checkoutEventsSuite(under: StoreUnderTest): void {
  describe(`the checkout event stream (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let c: SnapCaller;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store });
      c = (await shop(gw)).caller;
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('sends the current state at once, then the payment, and ends', async () => {
      const o = await qrisOrder(gw, c);
      const s = await openEvents(`${o.checkoutUrl}/events`);
      assert.equal(s.res.status, 200);
      assert.equal(s.res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(s.res.headers.get('cache-control'), 'no-store');
      await waitFor('the first event', () => s.events.length === 1);
      assert.deepEqual(s.events[0], { state: 'waiting', status: '01', seq: 1 });
      await payBySandbox(gw, o);
      await s.done;
      assert.equal(s.events.length, 2);
      assert.deepEqual(
        { ...s.events[1], paidAt: typeof s.events[1]?.paidAt },
        {
          state: 'paid',
          status: '00',
          seq: 2,
          paidAt: 'number',
        },
      );
    });

    it('follows a payment in progress (02, 03) as waiting, then its end', async () => {
      const o = await qrisOrder(gw, c);
      const s = await openEvents(`${o.checkoutUrl}/events`);
      await waitFor('the first event', () => s.events.length === 1);
      await payBySandbox(gw, o, '02');
      await waitFor('paying', () => s.events.length === 2);
      assert.deepEqual(s.events[1], { state: 'waiting', status: '02', seq: 2 });
      assert.equal(s.ended, false);
      await payBySandbox(gw, o, '06');
      await s.done;
      assert.deepEqual(s.events[2], { state: 'failed', status: '06', seq: 3 });
    });

    it('ignores a change no newer than the last one sent', async () => {
      const o = await qrisOrder(gw, c);
      const s = await openEvents(`${o.checkoutUrl}/events`);
      await waitFor('the first event', () => s.events.length === 1);
      gw.gateway.live.publish({ referenceNo: o.referenceNo, status: '00', statusDesc: 'Success', seq: 1 });
      const cancel = await snapCall(gw.url, c, `${QR}/qr-mpm-cancel`, { originalReferenceNo: o.referenceNo });
      assert.equal(cancel.status, 200);
      await s.done;
      assert.deepEqual(
        s.events.map((e) => [e.state, e.seq]),
        [
          ['waiting', 1],
          ['cancelled', 2],
        ],
      );
    });

    it('tells a VA’s payment, deletion (cancelled) and expiry (expired) apart from a failure', async () => {
      const paid = await vaOrder(gw, c);
      const s1 = await openEvents(`${paid.checkoutUrl}/events`);
      await waitFor('the first event', () => s1.events.length === 1);
      await payBySandbox(gw, paid);
      await s1.done;
      assert.deepEqual(
        s1.events.map((e) => e.state),
        ['waiting', 'paid'],
      );

      const deleted = await vaOrder(gw, c);
      const s2 = await openEvents(`${deleted.checkoutUrl}/events`);
      await waitFor('the first event', () => s2.events.length === 1);
      const del = await snapCall(
        gw.url,
        c,
        `${VA}/delete-va`,
        { virtualAccountNo: deleted.virtualAccountNo, trxId: deleted.partnerReferenceNo },
        { method: 'DELETE' },
      );
      assert.equal(del.status, 200);
      await s2.done;
      assert.deepEqual(s2.events[1], { state: 'cancelled', status: '05', seq: 2 });

      const expiring = await vaOrder(gw, c, { expirySec: 1 });
      const s3 = await openEvents(`${expiring.checkoutUrl}/events`);
      await waitFor('the first event', () => s3.events.length === 1);
      assert.equal(s3.events[0]?.state, 'waiting');
      await waitFor('the expiry', async () => (await gw.gateway.expiry.runOnce()) > 0);
      await s3.done;
      assert.deepEqual(s3.events[1], { state: 'expired', status: '06', seq: 2 });
    });

    it('sends a finished payment’s state and ends at once; a refunded one is final too', async () => {
      const o = await qrisOrder(gw, c, { amount: '5000.00' });
      await payBySandbox(gw, o);
      const paid = await openEvents(`${o.checkoutUrl}/events`);
      await paid.done;
      assert.equal(paid.events.length, 1);
      assert.equal(paid.events[0]?.state, 'paid');
      const refund = await snapCall(gw.url, c, `${QR}/qr-mpm-refund`, {
        originalPartnerReferenceNo: o.partnerReferenceNo,
        partnerRefundNo: `RF-${Date.now()}`,
        refundAmount: { value: '5000.00', currency: 'IDR' },
      });
      assert.equal(refund.status, 200);
      const refunded = await openEvents(`${o.checkoutUrl}/events`);
      await refunded.done;
      assert.deepEqual(refunded.events, [{ state: 'refunded', status: '04', seq: 3 }]);
    });

    it('stops listening when the payer leaves, and answers an unknown id with 404', async () => {
      const o = await qrisOrder(gw, c);
      const before = gw.gateway.live.listeners;
      const aborter = new AbortController();
      const s = await openEvents(`${o.checkoutUrl}/events`, { signal: aborter.signal });
      await waitFor('the first event', () => s.events.length === 1);
      assert.equal(gw.gateway.live.listeners, before + 1);
      assert.equal(gw.gateway.checkoutStreams.size, 1);
      aborter.abort();
      await waitFor('the stream closed', () => gw.gateway.checkoutStreams.size === 0);
      await waitFor('no listener', () => gw.gateway.live.listeners === before);
      const unknown = await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA/events`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.headers.get('content-type'), 'text/html; charset=utf-8');
    });
  });
}

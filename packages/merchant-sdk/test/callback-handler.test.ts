import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TransactionStatus } from '@snapgate/snap';
import {
  ACKNOWLEDGEMENT,
  actionOf,
  type CallbackResult,
  createCallbackHandler,
  isNewerStatus,
  type RefundEvent,
  type StatusEvent,
} from '../src/callback-handler.ts';
import { createMemoryDedupeStore, createMemoryStatusStore } from '../src/stores.ts';
import { listen, notificationBody, PARTNER, post, QR_PATH, SECRET, signedHeaders } from './helpers.ts';

const ACK = { responseCode: '2002600', responseMessage: 'Success' };

async function receiver(onStatus: (e: StatusEvent) => void | Promise<void> = () => undefined) {
  const events: StatusEvent[] = [];
  const outcomes: CallbackResult[] = [];
  const handler = createCallbackHandler({
    clientSecret: SECRET,
    partnerId: PARTNER,
    onStatus: async (e) => {
      await onStatus(e);
      events.push(e);
    },
    onOutcome: (r) => outcomes.push(r),
  });
  const server = await listen(handler);
  const send = (body: string, headers = signedHeaders(body)) => post(`${server.url}${QR_PATH}`, body, headers);
  return { events, outcomes, send, handler, close: server.close };
}

describe('createCallbackHandler', () => {
  it('acknowledges a verified callback with 200 {"responseCode":"2002600","responseMessage":"Success"} after onStatus', async () => {
    const r = await receiver();
    try {
      const res = await r.send(notificationBody('00'));
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, ACK);
      assert.deepEqual(ACKNOWLEDGEMENT, ACK);
      assert.equal(r.events.length, 1);
      const e = r.events[0];
      assert.ok(e);
      assert.equal(e.action, 'PAID');
      assert.equal(e.status, '00');
      assert.equal(e.previousStatus, undefined);
      assert.equal(e.path, QR_PATH);
      assert.equal(e.notification.originalPartnerReferenceNo, 'ORDER-REF-1');
      assert.match(e.externalId as string, /^\d+$/);
      assert.equal(r.outcomes[0]?.outcome, 'applied');
    } finally {
      await r.close();
    }
  });

  it('answers a tampered body 401 with a SNAP body, never 200, and does not call onStatus', async () => {
    const r = await receiver();
    try {
      const body = notificationBody('06', 'T1');
      const res = await r.send(body.replace('"06"', '"00"'), signedHeaders(body));
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, { responseCode: '4012600', responseMessage: 'Unauthorized. [Invalid Signature]' });
      assert.equal(r.events.length, 0);
      assert.equal(r.outcomes[0]?.outcome, 'rejected');
    } finally {
      await r.close();
    }
  });

  it('drops a duplicate X-EXTERNAL-ID with a 200 acknowledgement', async () => {
    const r = await receiver();
    try {
      const body = notificationBody('00', 'D1');
      const headers = signedHeaders(body, { externalId: '111' });
      assert.deepEqual((await r.send(body, headers)).body, ACK);
      const again = await r.send(body, signedHeaders(body, { externalId: '111' }));
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, ACK);
      assert.equal(r.events.length, 1);
      assert.deepEqual(
        r.outcomes.map((o) => o.outcome),
        ['applied', 'duplicate'],
      );
    } finally {
      await r.close();
    }
  });

  it('never lets an older or lower status overwrite a newer one, and acknowledges it', async () => {
    const r = await receiver();
    try {
      await r.send(notificationBody('03', 'O1'));
      await r.send(notificationBody('00', 'O1'));
      const late = await r.send(notificationBody('03', 'O1'));
      assert.equal(late.status, 200);
      assert.deepEqual(late.body, ACK);
      await r.send(notificationBody('01', 'O1'));
      await r.send(notificationBody('06', 'O1'));
      assert.deepEqual(
        r.events.map((e) => [e.status, e.action, e.previousStatus]),
        [
          ['03', 'WAIT', undefined],
          ['00', 'PAID', '03'],
        ],
      );
      assert.deepEqual(
        r.outcomes.map((o) => o.outcome),
        ['applied', 'applied', 'stale', 'stale', 'stale'],
      );
      // A refund still moves a paid transaction on.
      await r.send(notificationBody('04', 'O1'));
      assert.equal(r.events.at(-1)?.action, 'REFUNDED');
    } finally {
      await r.close();
    }
  });

  it('answers 500 when onStatus throws and records nothing, so the retry is applied', async () => {
    let fail = true;
    const r = await receiver(() => {
      if (fail) throw new Error('database down');
    });
    try {
      const body = notificationBody('00', 'F1');
      const res = await r.send(body, signedHeaders(body, { externalId: '222' }));
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { responseCode: '5002600', responseMessage: 'General Error' });
      assert.equal((r.outcomes[0]?.error as Error | undefined)?.message, 'database down');
      fail = false;
      const retry = await r.send(body, signedHeaders(body, { externalId: '222' }));
      assert.equal(retry.status, 200);
      assert.equal(r.events.length, 1);
      assert.equal(r.events[0]?.action, 'PAID');
    } finally {
      await r.close();
    }
  });

  it('handles a concurrent duplicate after the first: one onStatus, two acknowledgements', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const r = await receiver(() => gate);
    try {
      const body = notificationBody('00', 'C1');
      const a = r.send(body, signedHeaders(body, { externalId: '333' }));
      const b = r.send(body, signedHeaders(body, { externalId: '333' }));
      setTimeout(release, 20);
      const [ra, rb] = await Promise.all([a, b]);
      assert.deepEqual([ra.status, rb.status], [200, 200]);
      assert.equal(r.events.length, 1);
    } finally {
      await r.close();
    }
  });

  it('refuses a body over maxBodyBytes with 400', async () => {
    const handler = createCallbackHandler({
      clientSecret: SECRET,
      partnerId: PARTNER,
      onStatus: () => undefined,
      maxBodyBytes: 1024,
    });
    const server = await listen(handler);
    try {
      const body = notificationBody('00', 'B1', { padding: 'x'.repeat(2048) });
      const res = await post(`${server.url}${QR_PATH}`, body, signedHeaders(body));
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { responseCode: '4002600', responseMessage: 'Bad Request' });
    } finally {
      await server.close();
    }
  });

  it('uses pluggable stores', async () => {
    const dedupeStore = createMemoryDedupeStore();
    const statusStore = createMemoryStatusStore();
    await statusStore.set('S1', '06');
    const events: StatusEvent[] = [];
    const handler = createCallbackHandler({
      clientSecret: SECRET,
      partnerId: PARTNER,
      onStatus: (e) => void events.push(e),
      dedupeStore,
      statusStore,
    });
    const body = notificationBody('00', 'S1');
    const r = await handler.handle({
      method: 'POST',
      path: QR_PATH,
      headers: signedHeaders(body, { externalId: '9' }),
      rawBody: body,
    });
    assert.equal(r.outcome, 'stale');
    assert.equal(events.length, 0);
    assert.equal(await dedupeStore.has('9'), true);
    const body2 = notificationBody('00', 'S2');
    await handler.handle({ method: 'POST', path: QR_PATH, headers: signedHeaders(body2), rawBody: body2 });
    assert.equal(await statusStore.get('S2'), '00');
  });

  it('answers 500 when a store throws', async () => {
    const handler = createCallbackHandler({
      clientSecret: SECRET,
      partnerId: PARTNER,
      onStatus: () => undefined,
      statusStore: {
        get: () => {
          throw new Error('store down');
        },
        set: () => undefined,
      },
    });
    const body = notificationBody('00');
    const r = await handler.handle({ method: 'POST', path: QR_PATH, headers: signedHeaders(body), rawBody: body });
    assert.equal(r.httpStatus, 500);
    assert.equal(r.outcome, 'failed');
  });

  it('refuses options without a key or a partner', () => {
    assert.throws(() => createCallbackHandler({ partnerId: PARTNER, onStatus: () => undefined } as never), TypeError);
    assert.throws(
      () => createCallbackHandler({ clientSecret: 's', partnerId: '', onStatus: () => undefined }),
      TypeError,
    );
  });
});

/** A refund's callback body (docs/protocol.md#refund-callbacks): the payment's, with the refund and the total. */
function refundBody(status: string, ref: string, refundNo: string, value: string, total: string): string {
  const body = JSON.parse(notificationBody(status, ref));
  body.additionalInfo.refund = {
    refundNo,
    partnerRefundNo: `P-${refundNo}`,
    refundAmount: { value, currency: 'IDR' },
    refundTime: '2024-01-01T11:00:00+07:00',
  };
  body.additionalInfo.refundedAmount = { value: total, currency: 'IDR' };
  return JSON.stringify(body);
}

describe('createCallbackHandler with onRefund', () => {
  async function refundReceiver(onRefund: (e: RefundEvent) => void | Promise<void> = () => undefined) {
    const statuses: StatusEvent[] = [];
    const refunds: RefundEvent[] = [];
    const outcomes: CallbackResult[] = [];
    const handler = createCallbackHandler({
      clientSecret: SECRET,
      partnerId: PARTNER,
      onStatus: (e) => {
        statuses.push(e);
      },
      onRefund: async (e) => {
        await onRefund(e);
        refunds.push(e);
      },
      onOutcome: (r) => outcomes.push(r),
    });
    const server = await listen(handler);
    const send = (body: string, externalId: string) =>
      post(`${server.url}${QR_PATH}`, body, signedHeaders(body, { externalId }));
    return { statuses, refunds, outcomes, send, close: server.close };
  }

  it('calls onRefund once per refund: a part (00 again) without onStatus, the last part (04) with it', async () => {
    const r = await refundReceiver();
    try {
      assert.deepEqual((await r.send(notificationBody('00', 'R1'), '1')).body, ACK);
      assert.deepEqual((await r.send(refundBody('00', 'R1', 'RF1', '3000.00', '3000.00'), '2')).body, ACK);
      assert.deepEqual(
        r.refunds.map((e) => [e.refund.refundNo, e.refund.refundAmount.value, e.refundedAmount.value, e.status]),
        [['RF1', '3000.00', '3000.00', '00']],
      );
      assert.equal(r.refunds[0]?.refund.partnerRefundNo, 'P-RF1');
      assert.equal(r.refunds[0]?.externalId, '2');
      assert.deepEqual(
        r.statuses.map((e) => e.action),
        ['PAID'],
      );
      assert.deepEqual(
        r.outcomes.map((o) => [o.outcome, o.action]),
        [
          ['applied', 'PAID'],
          ['applied', undefined],
        ],
      );
      // The same refund under another X-EXTERNAL-ID (a replay) is not applied twice.
      await r.send(refundBody('00', 'R1', 'RF1', '3000.00', '3000.00'), '3');
      assert.equal(r.refunds.length, 1);
      assert.equal(r.outcomes.at(-1)?.outcome, 'stale');
      await r.send(refundBody('04', 'R1', 'RF2', '7000.00', '10000.00'), '4');
      assert.deepEqual(
        r.refunds.map((e) => e.refund.refundNo),
        ['RF1', 'RF2'],
      );
      assert.deepEqual(
        r.statuses.map((e) => e.action),
        ['PAID', 'REFUNDED'],
      );
    } finally {
      await r.close();
    }
  });

  it('answers 500 when onRefund throws, and applies the refund, then the status, on the retry', async () => {
    let fail = true;
    const r = await refundReceiver(() => {
      if (fail) throw new Error('ledger down');
    });
    try {
      const body = refundBody('00', 'R2', 'RF9', '1.00', '1.00');
      const first = await r.send(body, '9');
      assert.equal(first.status, 500);
      assert.equal(r.statuses.length, 0, 'the refund comes first: its failure stops the status too');
      fail = false;
      assert.deepEqual((await r.send(body, '9')).body, ACK);
      assert.deepEqual(
        r.refunds.map((e) => e.refund.refundNo),
        ['RF9'],
      );
      assert.equal(r.statuses.length, 1, 'the status is applied on the retry, once');
    } finally {
      await r.close();
    }
  });

  it('treats a refund field of another shape as no refund', async () => {
    const r = await refundReceiver();
    try {
      await r.send(notificationBody('00', 'R3'), '20');
      const odd = JSON.parse(notificationBody('00', 'R3'));
      odd.additionalInfo.refund = { refundNo: 7 };
      odd.additionalInfo.refundedAmount = { value: '1.00', currency: 'IDR' };
      assert.deepEqual((await r.send(JSON.stringify(odd), '21')).body, ACK);
      assert.equal(r.refunds.length, 0);
      assert.equal(r.outcomes.at(-1)?.outcome, 'stale');
    } finally {
      await r.close();
    }
  });

  it('without onRefund, acknowledges a partial refund as stale (as before)', async () => {
    const r = await receiver();
    try {
      await r.send(notificationBody('00', 'R4'));
      const res = await r.send(refundBody('00', 'R4', 'RF4', '1.00', '1.00'));
      assert.deepEqual(res.body, ACK);
      assert.equal(r.events.length, 1);
      assert.equal(r.outcomes.at(-1)?.outcome, 'stale');
    } finally {
      await r.close();
    }
  });
});

describe('statuses and actions', () => {
  it('maps 00 → PAID, 06 → FAILED, 01/02/03 → WAIT, 04 → REFUNDED, 05 → CANCELED', () => {
    const all: TransactionStatus[] = ['00', '01', '02', '03', '04', '05', '06'];
    assert.deepEqual(all.map(actionOf), ['PAID', 'WAIT', 'WAIT', 'WAIT', 'REFUNDED', 'CANCELED', 'FAILED']);
  });

  it('orders statuses: later stages win, final ones stay, the same status is not applied twice', () => {
    assert.equal(isNewerStatus(undefined, '01'), true);
    assert.equal(isNewerStatus('01', '03'), true);
    assert.equal(isNewerStatus('03', '02'), true, 'Pending → Paying is allowed');
    assert.equal(isNewerStatus('01', '04'), true, 'a superseded 00 may be skipped');
    assert.equal(isNewerStatus('00', '03'), false);
    assert.equal(isNewerStatus('00', '06'), false);
    assert.equal(isNewerStatus('06', '00'), false);
    assert.equal(isNewerStatus('05', '04'), false);
    assert.equal(isNewerStatus('00', '00'), false);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSnapClient, createTokenClient, type RefundEvent, type SnapClient } from '@snapgate/merchant-sdk';
import { callbackHmacStringToSign, formatJakartaTimestamp, hmacSha512Base64 } from '@snapgate/snap';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { type SdkReceiver, startSdkReceiver } from './sdk-receiver.ts';

const FAST = { SNAPGATE_RETRY_SCHEDULE: '0s,50ms,50ms,50ms', SNAPGATE_RATE_LIMIT: 'off' };
const QR_PATH = '/webhook/payment-qr-notification';
const ACK = { responseCode: '2002600', responseMessage: 'Success' };
let refs = 0;
const ref = () => `CB-${Date.now()}-${++refs}`;

/** A merchant whose callbacks go to an SDK receiver, and an SDK client for its payments. */
async function merchantWithReceiver(
  gw: TestGateway,
  receiverOptions: Partial<Parameters<typeof startSdkReceiver>[0]> = {},
  merchantInput: Record<string, unknown> = {},
) {
  const partnerId = `P-${++refs}`;
  // The receiver needs the secret, the merchant needs the receiver's URL: onboard, then point.
  const m = await gw.createMerchant({ partnerId, ...merchantInput });
  const receiver = await startSdkReceiver({
    clientSecret: m.clientSecret,
    partnerId,
    ...receiverOptions,
  } as Parameters<typeof startSdkReceiver>[0]);
  const patched = await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: receiver.baseUrl });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  const tokenClient = createTokenClient({ baseUrl: gw.url, clientKey: m.clientKey, clientSecret: m.clientSecret });
  const snap = createSnapClient({ baseUrl: gw.url, partnerId, clientSecret: m.clientSecret, tokenClient });
  return { m, receiver, snap };
}

async function newQris(snap: SnapClient, value = '10000.00') {
  return snap.generateQris({ partnerReferenceNo: ref(), amount: { value, currency: 'IDR' } });
}

/** Signs a body exactly as the gateway signs an hmac-sha512 callback (docs/protocol.md#callbacks). */
function signAsGateway(m: TestMerchant, body: string, externalId: string, path = QR_PATH) {
  const timestamp = formatJakartaTimestamp(Date.now());
  return {
    'content-type': 'application/json',
    'x-timestamp': timestamp,
    'x-partner-id': m.partnerId,
    'x-external-id': externalId,
    'x-signature': hmacSha512Base64(
      m.clientSecret,
      callbackHmacStringToSign({ path, partnerId: m.partnerId, rawBody: body, timestamp }),
    ),
  };
}

async function postTo(receiver: SdkReceiver, body: string, headers: Record<string, string>, path = QR_PATH) {
  const res = await fetch(`${receiver.baseUrl}${path}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('callbacks into an SDK receiver (docs/protocol.md#callbacks)', () => {
  let gw: TestGateway;
  const receivers: SdkReceiver[] = [];
  before(async () => {
    gw = await startGateway({ dispatch: true, env: FAST });
  });
  after(async () => {
    await gw.close();
    await Promise.all(receivers.map((r) => r.close()));
  });
  const setup = async (
    receiverOptions?: Partial<Parameters<typeof startSdkReceiver>[0]>,
    merchantInput?: Record<string, unknown>,
  ) => {
    const s = await merchantWithReceiver(gw, receiverOptions, merchantInput);
    receivers.push(s.receiver);
    return s;
  };
  const delivered = (id: string) =>
    waitFor(`notification ${id} delivered`, async () => {
      const n = await gw.store.findNotification(id);
      return n?.state === 'delivered' ? n : undefined;
    });

  it('applies a paid QRIS once as PAID, and the gateway records the acknowledgement', async () => {
    const { receiver, snap } = await setup();
    const qr = await newQris(snap, '15000.00');
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, { payerName: 'SITI' });
    const e = await waitFor('onStatus', () =>
      receiver.events.find((x) => x.notification.originalReferenceNo === qr.referenceNo),
    );
    assert.equal(e.action, 'PAID');
    assert.equal(e.status, '00');
    assert.equal(e.path, QR_PATH);
    assert.equal(e.notification.originalPartnerReferenceNo, qr.partnerReferenceNo);
    assert.deepEqual(e.notification.amount, { value: '15000.00', currency: 'IDR' });
    assert.equal(e.notification.additionalInfo.payerName, 'SITI');
    assert.equal(typeof e.notification.additionalInfo.billNumber, 'number');
    const [n] = await gw.store.notificationsOf(qr.referenceNo);
    assert.ok(n);
    assert.equal(e.externalId, n.id);
    await delivered(n.id);
    const shown = await gw.admin('GET', `/notifications/${n.id}`);
    assert.equal(shown.body.attempts.length, 1);
    assert.equal(shown.body.attempts[0].responseStatus, 200);
    assert.deepEqual(JSON.parse(shown.body.attempts[0].responseBody), ACK);
  });

  it('tells onRefund of a partial refund (status stays 00) and of the last part (04, with onStatus)', async () => {
    const refunds: RefundEvent[] = [];
    const { receiver, snap } = await setup({ onRefund: (e) => void refunds.push(e) });
    const qr = await newQris(snap, '10000.00');
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
    await waitFor('PAID', () => receiver.events.find((x) => x.notification.originalReferenceNo === qr.referenceNo));
    const refund = (partnerRefundNo: string, value: string) =>
      snap.refundQris({
        originalReferenceNo: qr.referenceNo,
        originalPartnerReferenceNo: qr.partnerReferenceNo,
        partnerRefundNo,
        refundAmount: { value, currency: 'IDR' },
        reason: 'one item out of stock',
      });
    const part = await refund(`${qr.partnerReferenceNo}-R1`, '2500.00');
    const first = await waitFor('onRefund of the part', () => refunds[0]);
    assert.equal(first.status, '00');
    assert.deepEqual(first.refund, {
      refundNo: part.refundNo,
      partnerRefundNo: `${qr.partnerReferenceNo}-R1`,
      refundAmount: { value: '2500.00', currency: 'IDR' },
      refundTime: part.refundTime,
    });
    assert.deepEqual(first.refundedAmount, { value: '2500.00', currency: 'IDR' });
    const [, n] = await gw.store.notificationsOf(qr.referenceNo);
    assert.ok(n);
    assert.equal(first.externalId, n.id);
    await delivered(n.id);
    const rest = await refund(`${qr.partnerReferenceNo}-R2`, '7500.00');
    const last = await waitFor('onRefund of the rest', () => refunds[1]);
    assert.deepEqual([last.status, last.refund.refundNo, last.refundedAmount.value], ['04', rest.refundNo, '10000.00']);
    assert.deepEqual(
      receiver.events.filter((e) => e.notification.originalReferenceNo === qr.referenceNo).map((e) => e.action),
      ['PAID', 'REFUNDED'],
    );
  });

  it('drops a replayed notification as a duplicate of its X-EXTERNAL-ID, still acknowledging it', async () => {
    const { receiver, snap } = await setup();
    const qr = await newQris(snap);
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
    const [n] = await gw.store.notificationsOf(qr.referenceNo);
    assert.ok(n);
    await delivered(n.id);
    const replay = await gw.admin('POST', `/notifications/${n.id}/replay`);
    assert.equal(replay.status, 202, JSON.stringify(replay.body));
    const dup = await waitFor('the replay', () => receiver.results.find((r) => r.outcome === 'duplicate'));
    assert.equal(dup.externalId, n.id);
    assert.equal(dup.httpStatus, 200);
    assert.deepEqual(dup.body, ACK);
    const again = await waitFor('delivered again', async () => {
      const x = await gw.store.findNotification(n.id);
      return x?.state === 'delivered' && x.attemptCount === 2 ? x : undefined;
    });
    assert.equal(again.attemptCount, 2);
    assert.equal(receiver.events.filter((e) => e.notification.originalReferenceNo === qr.referenceNo).length, 1);
  });

  it('never lets an older 03, signed correctly and delivered late, overwrite PAID', async () => {
    const { m, receiver, snap } = await setup();
    const qr = await newQris(snap);
    const forRef = () => receiver.events.filter((e) => e.notification.originalReferenceNo === qr.referenceNo);
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, { status: '03' });
    await waitFor('03 applied', () => forRef().length === 1);
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, { status: '00' });
    await waitFor('00 applied', () => forRef().length === 2);
    assert.deepEqual(
      forRef().map((e) => [e.status, e.action]),
      [
        ['03', 'WAIT'],
        ['00', 'PAID'],
      ],
    );
    const older = (await gw.store.notificationsOf(qr.referenceNo)).find((n) => n.latestStatus === '03');
    assert.ok(older);
    // The gateway itself will not replay an older status after a newer one…
    assert.equal((await gw.admin('POST', `/notifications/${older.id}/replay`)).status, 409);
    // …and if its bytes arrive late anyway — same id, or a fresh id — PAID stays.
    for (const externalId of [older.id, `${Date.now()}0000001`]) {
      const late = await postTo(receiver, older.body, signAsGateway(m, older.body, externalId));
      assert.equal(late.status, 200);
      assert.deepEqual(late.body, ACK);
    }
    assert.deepEqual(
      receiver.results.filter((r) => r.notification?.originalReferenceNo === qr.referenceNo).map((r) => r.outcome),
      ['applied', 'applied', 'duplicate', 'stale'],
    );
    assert.equal(forRef().length, 2);
  });

  it('answers a tampered body 401 with a SNAP body, never 200', async () => {
    const { m, receiver, snap } = await setup();
    const qr = await newQris(snap, '20000.00');
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, { status: '06' });
    const [n] = await gw.store.notificationsOf(qr.referenceNo);
    assert.ok(n);
    await delivered(n.id);
    const headers = signAsGateway(m, n.body, `${Date.now()}0000002`);
    const tampered = n.body.replace('"latestTransactionStatus":"06"', '"latestTransactionStatus":"00"');
    assert.notEqual(tampered, n.body);
    const r = await postTo(receiver, tampered, headers);
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { responseCode: '4012600', responseMessage: 'Unauthorized. [Invalid Signature]' });
    const events = receiver.events.filter((e) => e.notification.originalReferenceNo === qr.referenceNo);
    assert.deepEqual(
      events.map((e) => e.action),
      ['FAILED'],
    );
  });

  it('answers 500 when onStatus fails, so the gateway retries and the retry is applied', async () => {
    let failures = 0;
    const { receiver, snap } = await setup({
      onStatus: () => {
        if (failures++ === 0) throw new Error('order database unavailable');
      },
    });
    const qr = await newQris(snap);
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
    const [n] = await gw.store.notificationsOf(qr.referenceNo);
    assert.ok(n);
    const done = await delivered(n.id);
    assert.equal(done.attemptCount, 2);
    assert.deepEqual(
      receiver.results.map((r) => [r.outcome, r.httpStatus, r.externalId]),
      [
        ['failed', 500, n.id],
        ['applied', 200, n.id],
      ],
    );
    assert.equal(receiver.events.length, 1);
    const shown = await gw.admin('GET', `/notifications/${n.id}`);
    assert.deepEqual(JSON.parse(shown.body.attempts[0].responseBody), {
      responseCode: '5002600',
      responseMessage: 'General Error',
    });
  });

  it('receives a VA payment on the VA path as PAID', async () => {
    const { receiver, snap } = await setup();
    const trxId = ref();
    const va = await snap.createVa({
      virtualAccountName: 'ANI',
      trxId,
      totalAmount: { value: '50000.00', currency: 'IDR' },
    });
    await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va.virtualAccountData.virtualAccountNo)}/pay`, {});
    const e = await waitFor('the VA callback', () =>
      receiver.events.find((x) => x.notification.originalPartnerReferenceNo === trxId),
    );
    assert.equal(e.path, '/webhook/payment-va-notification');
    assert.equal(e.action, 'PAID');
    assert.deepEqual(e.notification.amount, { value: '50000.00', currency: 'IDR' });
  });

  it('verifies rsa-sha256 callbacks with the key from /.well-known/snapgate/callback-public-key.pem', async () => {
    const pem = await (await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`)).text();
    assert.match(pem, /BEGIN PUBLIC KEY/);
    const { receiver, snap } = await setup(
      { clientSecret: undefined, gatewayPublicKeyPem: pem },
      { callbackSignature: 'rsa-sha256' },
    );
    const qr = await newQris(snap);
    await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
    const e = await waitFor('the RSA-signed callback', () =>
      receiver.events.find((x) => x.notification.originalReferenceNo === qr.referenceNo),
    );
    assert.equal(e.action, 'PAID');
    assert.deepEqual(
      receiver.results.map((r) => r.outcome),
      ['applied'],
    );
  });
});

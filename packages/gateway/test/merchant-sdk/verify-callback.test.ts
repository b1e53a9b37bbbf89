import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifyCallback } from '@snapgate/merchant-sdk';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

let refs = 0;
const ref = () => `VC-${Date.now()}-${++refs}`;

describe('verifyCallback against signatures the gateway produced (docs/protocol.md#callbacks)', () => {
  let gw: TestGateway;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    gw = await startGateway({ dispatch: true, env: { SNAPGATE_RATE_LIMIT: 'off' } });
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  /** Pays a QRIS of a merchant and returns the callback exactly as the gateway sent it. */
  async function callbackOf(merchantInput: Record<string, unknown>) {
    const m = await gw.createMerchant({
      qrisCallbackUrl: `${receiver.baseUrl}/shop/webhook/payment-qr-notification?tenant=7`,
      ...merchantInput,
    });
    const c = await authenticate(gw.url, m);
    const q = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: ref(),
      amount: { value: '30000.00', currency: 'IDR' },
    });
    assert.equal(q.status, 200, q.text);
    await gw.admin('POST', `/sandbox/qris/${q.body.referenceNo}/pay`, {});
    const r = await waitFor('the callback', () => receiver.received.find((x) => x.body.includes(q.body.referenceNo)));
    return { m, r, request: { method: r.method, path: r.url, headers: r.headers, rawBody: Buffer.from(r.body) } };
  }

  it('verifies an hmac-sha512 callback and returns its body, typed', async () => {
    const { m, r, request } = await callbackOf({ partnerId: 'PARTNER-VC1' });
    assert.equal(r.url, '/shop/webhook/payment-qr-notification?tenant=7', 'the query is part of the signed path');
    const n = verifyCallback(request, { clientSecret: m.clientSecret, partnerId: 'PARTNER-VC1' });
    assert.deepEqual(n, JSON.parse(r.body));
    assert.equal(n.latestTransactionStatus, '00');
    assert.throws(() => verifyCallback(request, { clientSecret: 'another-secret', partnerId: 'PARTNER-VC1' }), {
      responseCode: '4012600',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
    assert.throws(() => verifyCallback(request, { clientSecret: m.clientSecret, partnerId: 'PARTNER-OTHER' }), {
      responseMessage: 'Unauthorized. [Unknown Partner]',
    });
    assert.throws(
      () =>
        verifyCallback(
          { ...request, path: '/shop/webhook/payment-qr-notification' },
          { clientSecret: m.clientSecret, partnerId: 'PARTNER-VC1' },
        ),
      { responseCode: '4012600' },
    );
    assert.throws(
      () =>
        verifyCallback(request, { clientSecret: m.clientSecret, partnerId: 'PARTNER-VC1', now: Date.now() + 301_000 }),
      { responseMessage: 'Unauthorized. [Timestamp Out Of Range]' },
    );
  });

  it('verifies an rsa-sha256 callback with the key served at /.well-known/snapgate/callback-public-key.pem', async () => {
    const res = await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`);
    assert.equal(res.status, 200);
    const gatewayPublicKeyPem = await res.text();
    const { r, request } = await callbackOf({ partnerId: 'PARTNER-VC2', callbackSignature: 'rsa-sha256' });
    const n = verifyCallback(request, { gatewayPublicKeyPem, partnerId: 'PARTNER-VC2' });
    assert.equal(n.originalReferenceNo, JSON.parse(r.body).originalReferenceNo);
    const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    assert.throws(() => verifyCallback(request, { gatewayPublicKeyPem: stranger, partnerId: 'PARTNER-VC2' }), {
      responseCode: '4012600',
    });
    assert.throws(
      () =>
        verifyCallback(
          { ...request, rawBody: Buffer.from(r.body.replace('30000.00', '30.00')) },
          { gatewayPublicKeyPem, partnerId: 'PARTNER-VC2' },
        ),
      { responseMessage: 'Unauthorized. [Invalid Signature]' },
    );
  });
});

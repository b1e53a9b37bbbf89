import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCallbackHandler, fastifyCallbackPlugin, type StatusEvent } from '@snapgate/merchant-sdk';
import Fastify, { type FastifyInstance } from 'fastify';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

describe('fastifyCallbackPlugin in a real Fastify app', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  let app: FastifyInstance;
  let appUrl: string;
  const events: StatusEvent[] = [];
  before(async () => {
    gw = await startGateway({ dispatch: true, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant({ partnerId: 'PARTNER-FASTIFY' });
    const handler = createCallbackHandler({
      clientSecret: m.clientSecret,
      partnerId: 'PARTNER-FASTIFY',
      onStatus: (e) => void events.push(e),
    });
    app = Fastify();
    // The rest of the app keeps Fastify's JSON parsing; only the plugin sees raw bytes.
    app.post('/orders', async (request) => ({ parsed: typeof request.body }));
    app.register(fastifyCallbackPlugin(handler), { prefix: '/shop' });
    appUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: `${appUrl}/shop` });
  });
  after(async () => {
    await gw.close();
    await app.close();
  });

  it('receives, verifies and acknowledges the gateway callbacks under a prefix', async () => {
    const c = await authenticate(gw.url, m);
    const q = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `FY-${Date.now()}`,
      amount: { value: '1000.00', currency: 'IDR' },
    });
    await gw.admin('POST', `/sandbox/qris/${q.body.referenceNo}/pay`, {});
    const e = await waitFor('onStatus', () =>
      events.find((x) => x.notification.originalReferenceNo === q.body.referenceNo),
    );
    assert.equal(e.action, 'PAID');
    assert.equal(e.path, '/shop/webhook/payment-qr-notification');
    const [n] = await gw.store.notificationsOf(q.body.referenceNo);
    assert.ok(n);
    await waitFor('delivered', async () => (await gw.store.findNotification(n.id))?.state === 'delivered');

    const tampered = await fetch(`${appUrl}/shop/webhook/payment-qr-notification`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-timestamp': new Date().toISOString(),
        'x-partner-id': 'PARTNER-FASTIFY',
        'x-signature': 'AAAA',
      },
      body: n.body,
    });
    assert.equal(tampered.status, 401);
    assert.deepEqual(await tampered.json(), {
      responseCode: '4012600',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });

    const other = await fetch(`${appUrl}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    assert.deepEqual(await other.json(), { parsed: 'object' });
  });
});

describe('snap-b2b in a real Fastify app', () => {
  it('serves the token endpoint and token-bound callbacks through fastifyCallbackPlugin', async () => {
    const { createSnapB2bTokenIssuer, TOKEN_PATH } = await import('@snapgate/merchant-sdk');
    const gw = await startGateway({ dispatch: true });
    const app = Fastify();
    try {
      const m = await gw.createMerchant({ name: 'Fastify B2B' });
      const events: StatusEvent[] = [];
      const gatewayPublicKeyPem = await (await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`)).text();
      const issuer = createSnapB2bTokenIssuer({ clientKey: m.clientKey, gatewayPublicKeyPem });
      const handler = createCallbackHandler({
        clientSecret: m.clientSecret,
        partnerId: m.partnerId,
        snapB2b: issuer,
        onStatus: (e) => void events.push(e),
      });
      app.register(async (scope) => {
        await fastifyCallbackPlugin(issuer, { paths: [TOKEN_PATH] })(scope);
        await fastifyCallbackPlugin(handler)(scope);
      });
      const appUrl = await app.listen({ port: 0, host: '127.0.0.1' });
      await gw.admin('PATCH', `/merchants/${m.id}`, { callbackSignature: 'snap-b2b', callbackBaseUrl: appUrl });
      const c = await authenticate(gw.url, m);
      const q = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `FB-${Date.now()}`,
        amount: { value: '1000.00', currency: 'IDR' },
      });
      await gw.admin('POST', `/sandbox/qris/${q.body.referenceNo}/pay`, {});
      const e = await waitFor('onStatus', () =>
        events.find((x) => x.notification.originalReferenceNo === q.body.referenceNo),
      );
      assert.equal(e.action, 'PAID');
    } finally {
      await gw.close();
      await app.close();
    }
  });
});

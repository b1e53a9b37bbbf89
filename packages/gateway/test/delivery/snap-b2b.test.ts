import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startMerchantServer } from '@snapgate/example-merchant-server';
import { createCallbackHandler, createSnapB2bTokenIssuer, verifyCallback } from '@snapgate/merchant-sdk';
import {
  formatJakartaTimestamp,
  hmacSha512Base64,
  rsaSha256SignBase64,
  serviceStringToSign,
  tokenStringToSign,
} from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { adminApiOf, spawnGateway } from '../helpers/process.ts';
import { ACK, type Received, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const TOKEN_PATH = '/api/snap/v1.0/access-token/b2b';
const idr = (value: string) => ({ value, currency: 'IDR' });
const RETRIES = { SNAPGATE_RETRY_SCHEDULE: '0s,100ms,100ms,100ms,100ms,100ms,100ms,100ms' };

describe('snap-b2b callbacks: the SDK’s merchant server, end to end', () => {
  let gw: TestGateway;
  let merchant: Awaited<ReturnType<typeof startMerchantServer>>;
  let merchantId: string;

  before(async () => {
    gw = await startGateway({ dispatch: true, env: RETRIES });
    const m = await gw.createMerchant({ name: 'Toko B2B' });
    merchantId = m.id;
    merchant = await startMerchantServer({
      port: 0,
      gatewayUrl: gw.url,
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      partnerId: m.partnerId,
      dbFile: ':memory:',
      callbackMode: 'snap-b2b',
    });
    const patched = await gw.admin('PATCH', `/merchants/${m.id}`, {
      callbackSignature: 'snap-b2b',
      callbackBaseUrl: merchant.url,
    });
    assert.equal(patched.body.callbackSignature, 'snap-b2b');
  });
  after(async () => {
    await merchant.close();
    await gw.close();
  });

  it('takes a token from the merchant, sends QRIS and VA callbacks with it, and the orders are PAID', async () => {
    const order = async (method: 'qris' | 'va') => {
      const r = await fetch(`${merchant.url}/orders`, {
        method: 'POST',
        body: JSON.stringify({ amount: '15000.00', method }),
      });
      assert.equal(r.status, 201);
      return (await r.json()) as { id: string; referenceNo?: string; virtualAccountNo?: string };
    };
    const q = await order('qris');
    const v = await order('va');
    assert.equal((await gw.admin('POST', `/sandbox/qris/${q.referenceNo}/pay`, {})).status, 200);
    assert.equal(
      (await gw.admin('POST', `/sandbox/va/${encodeURIComponent(v.virtualAccountNo ?? '')}/pay`, {})).status,
      200,
    );
    await waitFor(
      'both orders PAID',
      () => [q.id, v.id].every((id) => merchant.orders.find(id)?.status === 'PAID'),
      15_000,
    );

    // The merchant answers before the gateway records the delivery: wait for the record.
    const notes = await waitFor('both notifications recorded as delivered', async () => {
      const r = await gw.admin('GET', `/notifications?merchantId=${merchantId}&state=delivered`);
      return r.body.items.length === 2 && r;
    });
    const attempts = (
      await Promise.all(
        notes.body.items.map(
          async (n: { id: string }) => (await gw.admin('GET', `/notifications/${n.id}`)).body.attempts,
        ),
      )
    ).flat();
    for (const a of attempts) {
      assert.equal(a.requestHeaders.authorization, 'Bearer <redacted>');
      assert.equal(a.requestHeaders['channel-id'], '95221');
    }
    // One token for both callbacks, its request shown in the log of the attempt that made it.
    const withToken = attempts.filter(
      (a: { requestHeaders: Record<string, string> }) => a.requestHeaders['x-snapgate-token-request'],
    );
    assert.equal(withToken.length, 1);
    assert.match(
      withToken[0].requestHeaders['x-snapgate-token-request'],
      /^POST http:\/\/127\.0\.0\.1:\d+\/api\/snap\/v1\.0\/access-token\/b2b → HTTP 200/,
    );
  });
});

describe('the SDK refuses snap-b2b callbacks it should not take', () => {
  const clock = createManualClock(Date.parse('2026-11-23T03:00:00Z'));
  let gw: TestGateway;
  let pem: string;
  let privateKey: import('node:crypto').KeyObject;
  before(async () => {
    gw = await startGateway();
    pem = await (await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`)).text();
    privateKey = (await import('node:crypto')).createPrivateKey(
      (await gw.store.getSetting('callback_rsa_private_pem')) as string,
    );
  });
  after(async () => gw.close());

  it('issues a token only to the gateway’s signature, and refuses a wrong token, an expired one and a forged signature', async () => {
    const issuer = createSnapB2bTokenIssuer({ clientKey: 'CK', gatewayPublicKeyPem: pem, ttlSec: 60, clock });
    const handler = createCallbackHandler({
      clientSecret: 'secret',
      partnerId: 'P1',
      snapB2b: issuer,
      clock,
      onStatus: () => undefined,
    });
    const ts = formatJakartaTimestamp(clock.now());
    const tokenRequest = (signature: string) =>
      issuer.handle({
        method: 'POST',
        path: TOKEN_PATH,
        headers: {
          'content-type': 'application/json',
          'x-client-key': 'CK',
          'x-timestamp': ts,
          'x-signature': signature,
        },
        rawBody: '{"grantType":"client_credentials"}',
      });
    const forgedToken = await tokenRequest(
      rsaSha256SignBase64(
        (await import('node:crypto')).generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
        tokenStringToSign('CK', ts),
      ),
    );
    assert.deepEqual([forgedToken.httpStatus, forgedToken.body.responseCode], [401, '4017300']);
    const issued = await tokenRequest(rsaSha256SignBase64(privateKey, tokenStringToSign('CK', ts)));
    assert.equal(issued.httpStatus, 200);
    const token = (issued.body as unknown as { accessToken: string }).accessToken;
    assert.equal(issued.body.responseCode, '2007300');

    const body = JSON.stringify({
      originalReferenceNo: 'R1',
      originalPartnerReferenceNo: 'O1',
      latestTransactionStatus: '00',
      amount: idr('1.00'),
      additionalInfo: {},
    });
    const callback = (accessToken: string, secret = 'secret') => {
      const t = formatJakartaTimestamp(clock.now());
      const path = '/webhook/payment-qr-notification';
      return handler.handle({
        method: 'POST',
        path,
        headers: {
          authorization: `Bearer ${accessToken}`,
          'x-timestamp': t,
          'x-partner-id': 'P1',
          'x-external-id': randomBytes(4).readUInt32BE().toString(),
          'x-signature': hmacSha512Base64(
            secret,
            serviceStringToSign({ method: 'POST', path, accessToken, rawBody: body, timestamp: t }),
          ),
        },
        rawBody: body,
      });
    };
    assert.deepEqual((await callback('not-a-token')).body, {
      responseCode: '4012601',
      responseMessage: 'Invalid Token (B2B)',
    });
    assert.deepEqual((await callback(token, 'forged')).body, {
      responseCode: '4012600',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
    assert.equal((await callback(token)).httpStatus, 200);
    clock.advance(61_000);
    assert.deepEqual((await callback(token)).body, { responseCode: '4012601', responseMessage: 'Invalid Token (B2B)' });
    // And verifyCallback alone, without a token at all.
    assert.throws(
      () =>
        verifyCallback(
          { method: 'POST', path: '/x', headers: {}, rawBody: body },
          { clientSecret: 's', partnerId: 'P1', snapB2b: issuer },
        ),
      { responseCode: '4012601' },
    );
  });
});

/** A merchant whose token endpoint and callback answers the test scripts. */
async function scriptedMerchant(script: {
  token: (n: number) => 'ok' | 'fail' | 'hang';
  callback: (n: number) => 200 | 401;
}) {
  const tokens = new Set<string>();
  let tokenRequests = 0;
  let callbacks = 0;
  const held: Array<() => void> = [];
  const verified: Array<{ status: string; externalId: string }> = [];
  const receiver = await startReceiver(async (req: Received, res) => {
    if (req.url === TOKEN_PATH) {
      const what = script.token(++tokenRequests);
      if (what === 'hang') {
        await new Promise<void>((r) => held.push(r));
        return res.destroy();
      }
      if (what === 'fail')
        return res.writeHead(500).end('{"responseCode":"5007300","responseMessage":"General Error"}');
      const t = randomBytes(16).toString('hex');
      tokens.add(t);
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ responseCode: '2007300', responseMessage: 'Successful', accessToken: t, expiresIn: '900' }),
        );
    }
    const n = ++callbacks;
    const auth = String(req.headers.authorization ?? '');
    if (script.callback(n) === 401 || !tokens.has(auth.slice(7))) {
      tokens.delete(auth.slice(7));
      return res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"responseCode":"4012601","responseMessage":"Invalid Token (B2B)"}');
    }
    verified.push({
      status: JSON.parse(req.body).latestTransactionStatus,
      externalId: String(req.headers['x-external-id']),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
  });
  return {
    receiver,
    verified,
    tokenRequests: () => tokenRequests,
    release: () => {
      for (const r of held.splice(0)) r();
    },
  };
}

describe('snap-b2b: the gateway recovers from a failing token endpoint and a revoked token', () => {
  it('retries a token endpoint that fails twice, and takes a fresh token after a 401, without losing or repeating a status', async () => {
    const m = await scriptedMerchant({
      token: (n) => (n <= 2 ? 'fail' : 'ok'),
      callback: (n) => (n === 2 ? 401 : 200),
    });
    const gw = await startGateway({ dispatch: true, env: RETRIES });
    try {
      const created = await gw.createMerchant({ callbackSignature: 'snap-b2b', callbackBaseUrl: m.receiver.baseUrl });
      const c = await authenticate(gw.url, created);
      const first = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'T1',
        amount: idr('1.00'),
      });
      await gw.admin('POST', `/sandbox/qris/${first.body.referenceNo}/pay`, {});
      await waitFor('the first callback verified', () => m.verified.length === 1, 15_000);
      const note = (await gw.admin('GET', `/notifications?referenceNo=${first.body.referenceNo}`)).body.items[0];
      // The merchant answers before the gateway records the attempt: wait for the record.
      let shown = (await gw.admin('GET', `/notifications/${note.id}`)).body;
      await waitFor('the acknowledged attempt recorded', async () => {
        shown = (await gw.admin('GET', `/notifications/${note.id}`)).body;
        return shown.attempts.length === 3;
      });
      assert.deepEqual(
        shown.attempts.map((a: { outcome: string }) => a.outcome),
        ['error', 'error', 'acknowledged'],
      );
      assert.match(shown.attempts[0].error, /^token request failed/);
      assert.match(shown.attempts[0].url, /\/api\/snap\/v1\.0\/access-token\/b2b$/);

      // The merchant revoked the token: the callback gets 401, the next attempt takes a new one.
      const second = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'T2',
        amount: idr('1.00'),
      });
      await gw.admin('POST', `/sandbox/qris/${second.body.referenceNo}/pay`, {});
      await waitFor('the second callback verified', () => m.verified.length === 2, 15_000);
      assert.equal(m.tokenRequests(), 4);
      assert.deepEqual(
        m.verified.map((v) => v.status),
        ['00', '00'],
      );
      assert.equal(new Set(m.verified.map((v) => v.externalId)).size, 2);
      const refused = await gw.admin('POST', '/merchants', { name: 'No URL', callbackSignature: 'snap-b2b' });
      assert.equal(refused.status, 400);
      assert.match(refused.body.errors.join(), /callbackTokenUrl: snap-b2b takes a token/);
    } finally {
      await gw.close();
      await m.receiver.close();
    }
  });

  it('loses nothing when the gateway is killed -9 while its token request is in flight', {
    timeout: 60_000,
  }, async () => {
    const m = await scriptedMerchant({ token: (n) => (n === 1 ? 'hang' : 'ok'), callback: () => 200 });
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-b2b-kill-'));
    const ADMIN = 'b2b-kill-admin-token-0000000000';
    const admin = adminApiOf(ADMIN);
    const env = {
      SNAPGATE_DB: join(dir, 'gw.db'),
      SNAPGATE_ADMIN_TOKEN: ADMIN,
      SNAPGATE_CALLBACK_TIMEOUT_MS: '2000',
      ...RETRIES,
    };
    let gw = await spawnGateway(env);
    try {
      const created = (
        await admin(gw, 'POST', '/merchants', {
          name: 'K',
          callbackSignature: 'snap-b2b',
          callbackBaseUrl: m.receiver.baseUrl,
        })
      ).body;
      const c = await authenticate(gw.url, created);
      const g = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'K1',
        amount: idr('1.00'),
      });
      await admin(gw, 'POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {});
      await waitFor('the token request in flight', () => m.tokenRequests() === 1, 15_000);
      gw.child.kill('SIGKILL');
      await gw.exited;
      m.release();
      gw = await spawnGateway(env);
      await waitFor('the callback delivered after restart', () => m.verified.length >= 1, 30_000);
      assert.deepEqual([...new Set(m.verified.map((v) => v.status))], ['00']);
      const notes = (await admin(gw, 'GET', `/notifications?referenceNo=${g.body.referenceNo}`)).body.items;
      assert.equal(notes.length, 1);
      await waitFor(
        'delivered',
        async () => (await admin(gw, 'GET', `/notifications/${notes[0].id}`)).body.state === 'delivered',
        10_000,
      );
    } finally {
      gw.child.kill('SIGKILL');
      await m.receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

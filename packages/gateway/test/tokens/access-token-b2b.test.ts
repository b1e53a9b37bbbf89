import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp, hmacSha256Base64 } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { postToken } from '../helpers/snap.ts';

const snap = (responseCode: string, responseMessage: string) => ({ responseCode, responseMessage });

describe('POST /api/snap/v1.0/access-token/b2b', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  const rsa = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  let rsaMerchant: TestMerchant;

  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant();
    rsaMerchant = await gw.createMerchant({ publicKeyPem: rsa.publicKey });
  });
  after(() => gw.close());

  it('issues a Bearer JWT for an HMAC-SHA256 signature, with X-TIMESTAMP and X-CLIENT-KEY headers', async () => {
    const r = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['responseCode', 'responseMessage', 'accessToken', 'tokenType', 'expiresIn']);
    assert.equal(r.body.responseCode, '2007100');
    assert.equal(r.body.responseMessage, 'Successful');
    assert.equal(r.body.tokenType, 'Bearer');
    assert.equal(r.body.expiresIn, 900);
    assert.match(r.body.accessToken, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    assert.equal(r.headers.get('x-client-key'), m.clientKey);
    assert.match(r.headers.get('x-timestamp') ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
  });

  it('puts sub, iat, exp = iat + 900 and a unique jti in the token', async () => {
    const a = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret });
    const b = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret });
    const claims = (t: string) => JSON.parse(Buffer.from(t.split('.')[1] as string, 'base64url').toString());
    const ca = claims(a.body.accessToken);
    const cb = claims(b.body.accessToken);
    assert.equal(ca.sub, m.clientKey);
    assert.equal(ca.exp - ca.iat, 900);
    assert.ok(Math.abs(ca.iat - Date.now() / 1000) < 5);
    assert.notEqual(ca.jti, cb.jti);
    const header = JSON.parse(Buffer.from(a.body.accessToken.split('.')[0], 'base64url').toString());
    assert.equal(header.alg, 'HS256');
  });

  it('issues a token for a SHA256withRSA signature by the registered key', async () => {
    const r = await postToken(gw.url, { clientKey: rsaMerchant.clientKey, privateKeyPem: rsa.privateKey });
    assert.equal(r.status, 200);
    assert.equal(r.body.responseCode, '2007100');
  });

  it('refuses an RSA signature by another key', async () => {
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const r = await postToken(gw.url, { clientKey: rsaMerchant.clientKey, privateKeyPem: other.privateKey });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, snap('4017100', 'Unauthorized. [Invalid Signature]'));
  });

  it('refuses HMAC when the merchant requires rsa-sha256, and RSA when it requires hmac-sha256', async () => {
    const rsaOnly = await gw.createMerchant({ publicKeyPem: rsa.publicKey, tokenSignature: 'rsa-sha256' });
    const r1 = await postToken(gw.url, { clientKey: rsaOnly.clientKey, clientSecret: rsaOnly.clientSecret });
    assert.deepEqual(r1.body, snap('4017100', 'Unauthorized. [Invalid Signature]'));
    const ok = await postToken(gw.url, { clientKey: rsaOnly.clientKey, privateKeyPem: rsa.privateKey });
    assert.equal(ok.status, 200);
    const hmacOnly = await gw.createMerchant({ publicKeyPem: rsa.publicKey, tokenSignature: 'hmac-sha256' });
    const r2 = await postToken(gw.url, { clientKey: hmacOnly.clientKey, privateKeyPem: rsa.privateKey });
    assert.deepEqual(r2.body, snap('4017100', 'Unauthorized. [Invalid Signature]'));
  });

  for (const [label, ts] of [
    ['UTC with milliseconds', () => new Date().toISOString()],
    ['+07:00', () => formatJakartaTimestamp(Date.now())],
    ['+0700', () => formatJakartaTimestamp(Date.now()).replace('+07:00', '+0700')],
  ] as const) {
    it(`accepts an X-TIMESTAMP in ${label}`, async () => {
      const r = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp: ts() });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    });
  }

  it('fails a signature made over a re-formatted timestamp (signed exactly as sent)', async () => {
    const sent = new Date().toISOString(); // ...Z with milliseconds
    const reformatted = formatJakartaTimestamp(Date.parse(sent)); // same instant, other text
    const signature = hmacSha256Base64(m.clientSecret, `${m.clientKey}|${reformatted}`);
    const r = await postToken(gw.url, {
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      timestamp: sent,
      headers: { 'x-signature': signature },
    });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, snap('4017100', 'Unauthorized. [Invalid Signature]'));
  });

  describe('error table, one bad input per row (docs/protocol.md#access-token)', () => {
    const cases: Array<[string, () => Parameters<typeof postToken>[1], number, ReturnType<typeof snap>]> = [
      [
        'Content-Type missing',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'content-type': undefined } }),
        400,
        snap('4007102', 'Invalid Mandatory Field {Content-Type}'),
      ],
      [
        'X-CLIENT-KEY missing',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'x-client-key': undefined } }),
        400,
        snap('4007102', 'Invalid Mandatory Field {X-CLIENT-KEY}'),
      ],
      [
        'X-CLIENT-KEY empty',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'x-client-key': '' } }),
        400,
        snap('4007102', 'Invalid Mandatory Field {X-CLIENT-KEY}'),
      ],
      [
        'X-TIMESTAMP missing',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'x-timestamp': undefined } }),
        400,
        snap('4007102', 'Invalid Mandatory Field {X-TIMESTAMP}'),
      ],
      [
        'X-SIGNATURE missing',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'x-signature': undefined } }),
        400,
        snap('4007102', 'Invalid Mandatory Field {X-SIGNATURE}'),
      ],
      [
        'several missing: the first in order wins',
        () => ({
          clientKey: m.clientKey,
          clientSecret: m.clientSecret,
          headers: { 'x-signature': undefined, 'x-timestamp': undefined, 'x-client-key': undefined },
        }),
        400,
        snap('4007102', 'Invalid Mandatory Field {X-CLIENT-KEY}'),
      ],
      [
        'Content-Type text/plain',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'content-type': 'text/plain' } }),
        400,
        snap('4007101', 'Invalid Field Format {Content-Type}'),
      ],
      [
        'X-TIMESTAMP not ISO 8601',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp: '21/11/2026 10:00:00' }),
        400,
        snap('4007101', 'Invalid Field Format {X-TIMESTAMP}'),
      ],
      [
        'X-TIMESTAMP without a zone',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp: '2026-11-21T10:00:00' }),
        400,
        snap('4007101', 'Invalid Field Format {X-TIMESTAMP}'),
      ],
      [
        'body not JSON',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, body: 'grantType=client_credentials' }),
        400,
        snap('4007100', 'Bad Request'),
      ],
      [
        'body a JSON array',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, body: '[]' }),
        400,
        snap('4007100', 'Bad Request'),
      ],
      [
        'body empty',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, body: '' }),
        400,
        snap('4007100', 'Bad Request'),
      ],
      [
        'grantType missing',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, body: '{"additionalInfo":{}}' }),
        400,
        snap('4007102', 'Invalid Mandatory Field {grantType}'),
      ],
      [
        'grantType wrong',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, body: '{"grantType":"password"}' }),
        400,
        snap('4007101', 'Invalid Field Format {grantType}'),
      ],
      [
        'grantType not a string',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, body: '{"grantType":1}' }),
        400,
        snap('4007101', 'Invalid Field Format {grantType}'),
      ],
      [
        'unknown client key',
        () => ({ clientKey: 'no-such-client', clientSecret: 'x' }),
        401,
        snap('4017100', 'Unauthorized. [Unknown Client]'),
      ],
      [
        'timestamp 6 minutes in the future',
        () => ({
          clientKey: m.clientKey,
          clientSecret: m.clientSecret,
          timestamp: formatJakartaTimestamp(Date.now() + 360_000),
        }),
        401,
        snap('4017100', 'Unauthorized. [Timestamp Out Of Range]'),
      ],
      [
        'timestamp 6 minutes old',
        () => ({
          clientKey: m.clientKey,
          clientSecret: m.clientSecret,
          timestamp: formatJakartaTimestamp(Date.now() - 360_000),
        }),
        401,
        snap('4017100', 'Unauthorized. [Timestamp Out Of Range]'),
      ],
      [
        'signature by another secret',
        () => ({ clientKey: m.clientKey, clientSecret: 'not-the-secret' }),
        401,
        snap('4017100', 'Unauthorized. [Invalid Signature]'),
      ],
      [
        'signature not base64',
        () => ({ clientKey: m.clientKey, clientSecret: m.clientSecret, headers: { 'x-signature': '%%%' } }),
        401,
        snap('4017100', 'Unauthorized. [Invalid Signature]'),
      ],
    ];
    for (const [name, input, status, body] of cases) {
      it(`answers ${body.responseCode} for ${name}`, async () => {
        const r = await postToken(gw.url, input());
        assert.equal(r.status, status);
        assert.deepEqual(r.body, body);
      });
    }

    it('answers 4017100 [Client Disabled] for a disabled merchant, and issues again once re-enabled', async () => {
      const d = await gw.createMerchant();
      assert.equal((await gw.admin('PATCH', `/merchants/${d.id}`, { status: 'disabled' })).status, 200);
      const r = await postToken(gw.url, { clientKey: d.clientKey, clientSecret: d.clientSecret });
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, snap('4017100', 'Unauthorized. [Client Disabled]'));
      await gw.admin('PATCH', `/merchants/${d.id}`, { status: 'active' });
      assert.equal((await postToken(gw.url, { clientKey: d.clientKey, clientSecret: d.clientSecret })).status, 200);
    });

    it('accepts Content-Type with a charset parameter', async () => {
      const r = await postToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      assert.equal(r.status, 200);
    });

    it('answers a body over 64 KiB with 400 4007100, not 413', async () => {
      const r = await postToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        body: `{"grantType":"client_credentials","x":"${'a'.repeat(70_000)}"}`,
      });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, snap('4007100', 'Bad Request'));
    });
  });
});

describe('token lifetime, rotation and rate limit', () => {
  it('rotated secret: the old one signs until previousValidUntil, then is refused', async () => {
    const clock = createManualClock(Date.now());
    const gw = await startGateway({ clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    try {
      const m = await gw.createMerchant();
      const ts = () => formatJakartaTimestamp(clock.now());
      const rot = await gw.admin('POST', `/merchants/${m.id}/rotate-secret`, { overlapSec: 60 });
      assert.equal(rot.status, 200);
      assert.equal(rot.body.previousValidUntil, new Date(clock.now() + 60_000).toISOString());
      assert.notEqual(rot.body.clientSecret, m.clientSecret);
      assert.equal(
        (await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp: ts() })).status,
        200,
      );
      assert.equal(
        (await postToken(gw.url, { clientKey: m.clientKey, clientSecret: rot.body.clientSecret, timestamp: ts() }))
          .status,
        200,
      );
      clock.advance(60_001);
      const old = await postToken(gw.url, { clientKey: m.clientKey, clientSecret: m.clientSecret, timestamp: ts() });
      assert.equal(old.status, 401);
      assert.deepEqual(old.body, snap('4017100', 'Unauthorized. [Invalid Signature]'));
      assert.equal(
        (await postToken(gw.url, { clientKey: m.clientKey, clientSecret: rot.body.clientSecret, timestamp: ts() }))
          .status,
        200,
      );
    } finally {
      await gw.close();
    }
  });

  it('a token is accepted until exp, refused after, and refused at once when its merchant is disabled', async () => {
    const clock = createManualClock(Date.now());
    const gw = await startGateway({ clock });
    try {
      const m = await gw.createMerchant();
      const r = await postToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        timestamp: formatJakartaTimestamp(clock.now()),
      });
      const token = r.body.accessToken as string;
      assert.equal((await gw.gateway.tokens.merchantOfToken(token))?.id, m.id);
      clock.advance(899_000);
      assert.equal((await gw.gateway.tokens.merchantOfToken(token))?.id, m.id);
      clock.advance(1_000);
      assert.equal(await gw.gateway.tokens.merchantOfToken(token), undefined);

      clock.set(Date.now());
      const r2 = await postToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        timestamp: formatJakartaTimestamp(clock.now()),
      });
      await gw.admin('PATCH', `/merchants/${m.id}`, { status: 'disabled' });
      assert.equal(await gw.gateway.tokens.merchantOfToken(r2.body.accessToken), undefined);
      assert.equal(await gw.gateway.tokens.merchantOfToken(`${r2.body.accessToken}x`), undefined);
      assert.equal(await gw.gateway.tokens.merchantOfToken('not.a.jwt'), undefined);
    } finally {
      await gw.close();
    }
  });

  it('a token issued under a rotated secret dies when the overlap ends', async () => {
    const clock = createManualClock(Date.now());
    const gw = await startGateway({ clock });
    try {
      const m = await gw.createMerchant();
      const r = await postToken(gw.url, {
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        timestamp: formatJakartaTimestamp(clock.now()),
      });
      await gw.admin('POST', `/merchants/${m.id}/rotate-secret`, { overlapSec: 30 });
      assert.equal((await gw.gateway.tokens.merchantOfToken(r.body.accessToken))?.id, m.id);
      clock.advance(30_000);
      assert.equal(await gw.gateway.tokens.merchantOfToken(r.body.accessToken), undefined);
    } finally {
      await gw.close();
    }
  });

  it('answers 429 4297100 past SNAPGATE_RATE_LIMIT requests per minute for one client, not for another', async () => {
    const gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: '3' } });
    try {
      const a = await gw.createMerchant();
      const b = await gw.createMerchant();
      for (let i = 0; i < 3; i++) {
        assert.equal((await postToken(gw.url, { clientKey: a.clientKey, clientSecret: a.clientSecret })).status, 200);
      }
      const r = await postToken(gw.url, { clientKey: a.clientKey, clientSecret: a.clientSecret });
      assert.equal(r.status, 429);
      assert.deepEqual(r.body, snap('4297100', 'Too Many Requests'));
      assert.equal((await postToken(gw.url, { clientKey: b.clientKey, clientSecret: b.clientSecret })).status, 200);
    } finally {
      await gw.close();
    }
  });
});

describe('Content-Type the framework would refuse', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  before(async () => {
    gw = await startGateway();
    m = await gw.createMerchant();
  });
  after(() => gw.close());

  it('answers an empty Content-Type with a body as 4007102 {Content-Type}', async () => {
    const r = await postToken(gw.url, {
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      headers: { 'content-type': '' },
    });
    assert.deepEqual(r.body, snap('4007102', 'Invalid Mandatory Field {Content-Type}'));
  });

  it('answers a malformed media type as 4007101 {Content-Type}', async () => {
    const r = await postToken(gw.url, {
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      headers: { 'content-type': '"vz}zg/' },
    });
    assert.deepEqual(r.body, snap('4007101', 'Invalid Field Format {Content-Type}'));
  });
});

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { hmacSha256Base64, isSnapError, parseSnapTimestamp, verifyRsaSha256 } from '@snapgate/snap';
import { SnapApiError, SnapNetworkError } from '../src/errors.ts';
import { createTokenClient, TOKEN_PATH } from '../src/token-client.ts';
import { fakeFetch, json, manualClock } from './helpers.ts';

const T0 = Date.parse('2024-01-01T03:00:00Z');
const BASE = 'http://gw.test';
const ok = (n: number, expiresIn = 900) =>
  json(200, {
    responseCode: '2007100',
    responseMessage: 'Successful',
    accessToken: `tok-${n}`,
    tokenType: 'Bearer',
    expiresIn,
  });

/** A client with a manual clock whose requests `respond` answers. */
function tokenClientOf(respond: Parameters<typeof fakeFetch>[0], extra: { refreshAheadSec?: number } = {}) {
  const clock = manualClock(T0);
  const f = fakeFetch(respond);
  const tokens = createTokenClient({
    baseUrl: BASE,
    clientKey: 'ck',
    clientSecret: 's',
    fetch: f.fetch,
    clock,
    ...extra,
  });
  return { tokens, clock, calls: f.calls };
}

describe('createTokenClient', () => {
  it('signs <clientKey>|<X-TIMESTAMP> with HMAC-SHA256 and posts the documented request', async () => {
    const clock = manualClock(T0);
    const f = fakeFetch((_r, n) => ok(n));
    const tokens = createTokenClient({
      baseUrl: `${BASE}/`,
      clientKey: 'ck-1',
      clientSecret: 's3cret',
      fetch: f.fetch,
      clock,
    });
    assert.equal(await tokens.getToken(), 'tok-1');
    const [r] = f.calls;
    assert.ok(r);
    assert.equal(r.url, `${BASE}${TOKEN_PATH}`);
    assert.equal(r.method, 'POST');
    assert.equal(r.body, '{"grantType":"client_credentials"}');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['x-client-key'], 'ck-1');
    assert.equal(r.headers['x-timestamp'], '2024-01-01T10:00:00+07:00');
    assert.equal(r.headers['x-signature'], hmacSha256Base64('s3cret', 'ck-1|2024-01-01T10:00:00+07:00'));
  });

  it('signs with SHA256withRSA when given a private key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const f = fakeFetch((_r, n) => ok(n));
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const tokens = createTokenClient({ baseUrl: BASE, clientKey: 'ck-rsa', privateKeyPem: pem, fetch: f.fetch });
    await tokens.getToken();
    const r = f.calls[0];
    assert.ok(r);
    assert.ok(parseSnapTimestamp(r.headers['x-timestamp'] as string));
    assert.equal(
      verifyRsaSha256(publicKey, `ck-rsa|${r.headers['x-timestamp']}`, r.headers['x-signature'] as string),
      true,
    );
  });

  it('reuses a token while it is valid and refreshes it refreshAheadSec before expiry', async () => {
    const { tokens, clock, calls } = tokenClientOf((_r, n) => ok(n), { refreshAheadSec: 60 });
    assert.equal(await tokens.getToken(), 'tok-1');
    clock.advance(839_000);
    assert.equal(await tokens.getToken(), 'tok-1', '61 s before expiry: still reused');
    assert.equal(calls.length, 1);
    clock.advance(2_000);
    assert.equal(await tokens.getToken(), 'tok-2', '59 s before expiry: refreshed');
    assert.equal(calls.length, 2);
  });

  it('shares one request among concurrent callers', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { tokens, calls } = tokenClientOf(async (_r, n) => {
      await gate;
      return ok(n);
    });
    const all = Promise.all(Array.from({ length: 10 }, () => tokens.getToken()));
    release();
    assert.deepEqual(await all, Array(10).fill('tok-1'));
    assert.equal(calls.length, 1);
  });

  it("fails with a SnapError-shaped error carrying the gateway's responseCode", async () => {
    const { tokens, calls } = tokenClientOf(() =>
      json(401, { responseCode: '4017100', responseMessage: 'Unauthorized. [Invalid Signature]' }),
    );
    await assert.rejects(tokens.getToken(), {
      name: 'SnapApiError',
      responseCode: '4017100',
      responseMessage: 'Unauthorized. [Invalid Signature]',
      httpStatus: 401,
    });
    const e = await tokens.getToken().catch((x: unknown) => x);
    assert.ok(e instanceof SnapApiError);
    assert.equal(isSnapError(e), true);
    assert.deepEqual(e.toBody(), { responseCode: '4017100', responseMessage: 'Unauthorized. [Invalid Signature]' });
    assert.equal(calls.length, 2, 'a failure is not cached');
  });

  it('turns an answer that is not SNAP into a SnapApiError with the HTTP status', async () => {
    const { tokens } = tokenClientOf(() => new Response('<html>Bad Gateway</html>', { status: 502 }));
    await assert.rejects(tokens.getToken(), {
      responseCode: '5027100',
      responseMessage: 'Unexpected Response',
      httpStatus: 502,
    });
  });

  it('refuses a 200 without an accessToken', async () => {
    const { tokens } = tokenClientOf(() => json(200, { responseCode: '2007100', responseMessage: 'Successful' }));
    await assert.rejects(tokens.getToken(), { responseCode: '5007100' });
  });

  it('keeps using a still-valid token when an early refresh fails, and retries the refresh next time', async () => {
    let down = false;
    const { tokens, clock } = tokenClientOf((_r, n) => {
      if (down) throw new TypeError('fetch failed');
      return ok(n);
    });
    assert.equal(await tokens.getToken(), 'tok-1');
    clock.advance(870_000);
    down = true;
    assert.equal(await tokens.getToken(), 'tok-1');
    clock.advance(40_000);
    await assert.rejects(tokens.getToken(), SnapNetworkError, 'expired: the failure shows');
    down = false;
    assert.equal(await tokens.getToken(), 'tok-4');
  });

  it('takes a new token after invalidate()', async () => {
    const { tokens } = tokenClientOf((_r, n) => ok(n));
    assert.equal(await tokens.getToken(), 'tok-1');
    tokens.invalidate();
    assert.equal(await tokens.getToken(), 'tok-2');
  });

  it('caches a short-lived token for half its lifetime when refreshAheadSec exceeds it', async () => {
    const { tokens, clock } = tokenClientOf((_r, n) => ok(n, 60), { refreshAheadSec: 120 });
    await tokens.getToken();
    clock.advance(29_000);
    assert.equal(await tokens.getToken(), 'tok-1');
    clock.advance(1_000);
    assert.equal(await tokens.getToken(), 'tok-2');
  });

  it('refuses options with both or neither of clientSecret and privateKeyPem', () => {
    assert.throws(() => createTokenClient({ baseUrl: BASE, clientKey: 'ck' } as never), TypeError);
    assert.throws(
      () => createTokenClient({ baseUrl: BASE, clientKey: 'ck', clientSecret: 's', privateKeyPem: 'x' } as never),
      TypeError,
    );
  });
});

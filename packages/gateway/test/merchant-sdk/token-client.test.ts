import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSnapClient, createTokenClient } from '@snapgate/merchant-sdk';
import { createManualClock, type ManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';

/** Counts the token requests that reach the gateway. */
function countingFetch() {
  const counter = { tokenRequests: 0 };
  const f: typeof fetch = (input, init) => {
    if (String(input).endsWith('/access-token/b2b')) counter.tokenRequests++;
    return fetch(input, init);
  };
  return { fetch: f, counter };
}

describe('merchant-sdk token client against a real gateway (docs/protocol.md#access-token)', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  // One clock for the gateway and the SDK: time moves for both, and only when told.
  let clock: ManualClock;
  before(async () => {
    clock = createManualClock(Date.now());
    gw = await startGateway({ clock, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant({ partnerId: 'PARTNER-TOK' });
  });
  after(() => gw.close());

  const query = (token: { getToken(): Promise<string> }) =>
    createSnapClient({
      baseUrl: gw.url,
      partnerId: m.partnerId,
      clientSecret: m.clientSecret,
      tokenClient: token,
      clock,
    })
      .queryQris({ originalPartnerReferenceNo: 'NONE' })
      .catch((e: { responseCode: string }) => e.responseCode);

  /** A token client of the merchant whose token requests are counted. */
  const countedTokens = (refreshAheadSec?: number) => {
    const { fetch: f, counter } = countingFetch();
    const tokens = createTokenClient({
      baseUrl: gw.url,
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      fetch: f,
      clock,
      refreshAheadSec,
    });
    return { tokens, counter };
  };

  it('reuses a token while valid, refreshes it ahead of expiry, and the old one then expires', async () => {
    const { tokens, counter } = countedTokens(60);
    const first = await tokens.getToken();
    assert.match(first, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    clock.advance(500_000);
    assert.equal(await tokens.getToken(), first);
    assert.equal(counter.tokenRequests, 1);
    // The token works: a query of an unknown QRIS gets past the token check to 404.
    assert.equal(await query(tokens), '4045101');

    clock.advance(341_000); // 59 s before expiry
    const second = await tokens.getToken();
    assert.notEqual(second, first);
    assert.equal(counter.tokenRequests, 2);
    clock.advance(60_000); // the first one is now past its exp
    assert.equal(await query({ getToken: async () => first }), '4015101');
    assert.equal(await query(tokens), '4045101');
  });

  it('shares one token request among concurrent callers', async () => {
    const { tokens, counter } = countedTokens();
    const all = await Promise.all(Array.from({ length: 8 }, () => tokens.getToken()));
    assert.equal(new Set(all).size, 1);
    assert.equal(counter.tokenRequests, 1);
  });

  it("fails with the gateway's SNAP code for a wrong secret or an unknown client", async () => {
    const wrong = createTokenClient({ baseUrl: gw.url, clientKey: m.clientKey, clientSecret: 'not-the-secret', clock });
    await assert.rejects(wrong.getToken(), {
      name: 'SnapApiError',
      httpStatus: 401,
      responseCode: '4017100',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
    const unknown = createTokenClient({ baseUrl: gw.url, clientKey: 'nobody', clientSecret: 'x', clock });
    await assert.rejects(unknown.getToken(), {
      responseCode: '4017100',
      responseMessage: 'Unauthorized. [Unknown Client]',
    });
  });

  it('signs with SHA256withRSA for a merchant that registered a public key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsa = await gw.createMerchant({
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      tokenSignature: 'rsa-sha256',
    });
    const tokens = createTokenClient({ baseUrl: gw.url, clientKey: rsa.clientKey, privateKeyPem: privateKey, clock });
    assert.ok(await tokens.getToken());
    const hmac = createTokenClient({
      baseUrl: gw.url,
      clientKey: rsa.clientKey,
      clientSecret: rsa.clientSecret,
      clock,
    });
    await assert.rejects(hmac.getToken(), { responseCode: '4017100' });
  });

  it('drops a token the gateway refuses (rotated secret) and retries once with a new one', async () => {
    const mm = await gw.createMerchant();
    const old = await createTokenClient({
      baseUrl: gw.url,
      clientKey: mm.clientKey,
      clientSecret: mm.clientSecret,
      clock,
    }).getToken();
    const rotated = await gw.admin('POST', `/merchants/${mm.id}/rotate-secret`, { overlapSec: 0 });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    const clientSecret = rotated.body.clientSecret as string;
    const current = createTokenClient({ baseUrl: gw.url, clientKey: mm.clientKey, clientSecret, clock });
    // A cache still holding the token taken before the rotation.
    let cached: string | undefined = old;
    const tokenClient = {
      getToken: async () => cached ?? current.getToken(),
      invalidate: () => {
        cached = undefined;
      },
    };
    const snap = createSnapClient({ baseUrl: gw.url, partnerId: mm.partnerId, clientSecret, tokenClient, clock });
    await assert.rejects(snap.queryQris({ originalPartnerReferenceNo: 'NONE' }), { responseCode: '4045101' });
    assert.equal(cached, undefined);
  });
});

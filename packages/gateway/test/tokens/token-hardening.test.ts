// Review findings on tokens: a disabled-then-enabled client must not get its old tokens back, a
// token has exactly one spelling, and the Bearer scheme is case-insensitive.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { signJwt, verifyJwt } from '../../src/tokens/jwt.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const QUERY = '/api/snap/v1.0/qr/qr-mpm-query';
const query = { originalReferenceNo: 'NO-SUCH-REF', serviceCode: '47' };
const NOT_FOUND = '4045101';
const INVALID_TOKEN = '4015101';

describe('tokens after a merchant is disabled and enabled again', () => {
  const clock = createManualClock(Date.now());
  let gw: TestGateway;
  let m: TestMerchant;
  before(async () => {
    gw = await startGateway({ clock });
    m = await gw.createMerchant();
  });
  after(() => gw.close());

  it('stay dead; a token taken after re-enabling works', async () => {
    const old = await authenticate(gw.url, m);
    assert.equal((await snapCall(gw.url, old, QUERY, query)).body.responseCode, NOT_FOUND);
    clock.advance(1_000);
    assert.equal((await gw.admin('PATCH', `/merchants/${m.id}`, { status: 'disabled' })).status, 200);
    assert.equal((await snapCall(gw.url, old, QUERY, query)).body.responseCode, INVALID_TOKEN);
    clock.advance(1_000);
    assert.equal((await gw.admin('PATCH', `/merchants/${m.id}`, { status: 'active' })).status, 200);
    assert.equal(
      (await snapCall(gw.url, old, QUERY, query)).body.responseCode,
      INVALID_TOKEN,
      'a token issued before the merchant was disabled is not revived',
    );
    const fresh = await authenticate(gw.url, m);
    assert.equal((await snapCall(gw.url, fresh, QUERY, query)).body.responseCode, NOT_FOUND);
    // Other edits do not touch tokens.
    assert.equal((await gw.admin('PATCH', `/merchants/${m.id}`, { name: 'Renamed' })).status, 200);
    assert.equal((await snapCall(gw.url, fresh, QUERY, query)).body.responseCode, NOT_FOUND);
  });
});

describe('one spelling of a token', () => {
  const key = Buffer.alloc(32, 7);
  const claims = { sub: 'ck', iat: 1, exp: 2, jti: 'j', sv: 1 };

  it('accepts the unpadded base64url signature it wrote and refuses every other spelling of it', () => {
    for (let i = 0; i < 64; i++) {
      const token = signJwt({ ...claims, jti: `j${i}` }, key);
      const dot = token.lastIndexOf('.');
      const head = token.slice(0, dot + 1);
      const sig = token.slice(dot + 1);
      assert.deepEqual(verifyJwt(token, key)?.jti, `j${i}`);
      const bytes = Buffer.from(sig, 'base64url');
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      // The last of 43 characters carries 2 unused bits: flipping them spells the same bytes.
      const lastIndex = alphabet.indexOf(sig.at(-1) as string);
      const sameBytes = `${sig.slice(0, -1)}${alphabet[lastIndex ^ 1]}`;
      assert.deepEqual(Buffer.from(sameBytes, 'base64url'), bytes, 'the variant decodes to the same bytes');
      for (const variant of [`${sig}=`, bytes.toString('base64'), sameBytes, ` ${sig}`]) {
        if (variant === sig) continue;
        assert.equal(verifyJwt(`${head}${variant}`, key), undefined, `refuses ${variant}`);
      }
    }
  });
});

describe('the Bearer scheme, in any case', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  before(async () => {
    gw = await startGateway();
    m = await gw.createMerchant();
  });
  after(() => gw.close());

  it('accepts bearer and BEARER on the payment API, and refuses a padded token over HTTP', async () => {
    const c = await authenticate(gw.url, m);
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const r = await snapCall(gw.url, c, QUERY, query, { headers: { authorization: `${scheme} ${c.accessToken}` } });
      assert.equal(r.body.responseCode, NOT_FOUND, scheme);
    }
    const padded = await snapCall(gw.url, c, QUERY, query, {
      headers: { authorization: `Bearer ${c.accessToken}=` },
    });
    assert.equal(padded.body.responseCode, INVALID_TOKEN);
    assert.equal(
      (await snapCall(gw.url, c, QUERY, query, { headers: { authorization: `Basic ${c.accessToken}` } })).body
        .responseCode,
      INVALID_TOKEN,
    );
  });

  it('accepts bearer in any case on the admin API', async () => {
    for (const scheme of ['bearer', 'BEARER']) {
      const r = await fetch(`${gw.url}/admin/v1/merchants`, { headers: { authorization: `${scheme} ${ADMIN_TOKEN}` } });
      assert.equal(r.status, 200, scheme);
    }
    const r = await fetch(`${gw.url}/admin/v1/merchants`, { headers: { authorization: `Token ${ADMIN_TOKEN}` } });
    assert.equal(r.status, 401);
  });
});

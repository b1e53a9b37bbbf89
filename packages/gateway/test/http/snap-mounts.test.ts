// docs/clients.md: SNAP under the prefixes other servers use, each call signed over the path it
// requested; the profiles' exact routes; SNAPGATE_SNAP_PREFIXES and SNAPGATE_SNAP_PROFILES.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { loadConfig } from '../../src/config.ts';
import { mountsOf, parseSnapPrefixes, parseSnapProfiles } from '../../src/snap-mounts.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });
let n = 0;
const order = () => ({ partnerReferenceNo: `MOUNT-${Date.now()}-${++n}`, amount: idr('1000.00') });

/** A token request signed by HMAC-SHA256, sent to `path`. */
async function tokenAt(gw: TestGateway, path: string, m: { clientKey: string; clientSecret: string }, body: string) {
  const { createHmac } = await import('node:crypto');
  const timestamp = formatJakartaTimestamp(Date.now());
  const signature = createHmac('sha256', m.clientSecret).update(`${m.clientKey}|${timestamp}`).digest('base64');
  const res = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-client-key': m.clientKey,
      'x-timestamp': timestamp,
      'x-signature': signature,
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('SNAP under other servers’ prefixes, and the client profiles', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let m: Awaited<ReturnType<TestGateway['createMerchant']>>;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant();
    c = await authenticate(gw.url, m);
  });
  after(() => gw.close());

  it('serves every default prefix, each call signed over the path it requested', async () => {
    for (const prefix of [
      '/api/snap/v1.0',
      '/v1.0',
      '/snap/v1.0',
      '/openapi/v1.0',
      '/snap-adapter/b2b/v1.0',
      '/api/v1.0',
    ]) {
      const r = await snapCall(gw.url, c, `${prefix}/qr/qr-mpm-generate`, order());
      assert.equal(r.status, 200, `${prefix}: ${r.text}`);
      assert.equal(r.body.responseCode, '2004700');
      const token = await tokenAt(gw, `${prefix}/access-token/b2b`, m, '{"grantType":"client_credentials"}');
      assert.equal(token.status, 200, prefix);
    }
  });

  it('refuses a call signed over another path than the one it requested (401 xx00)', async () => {
    const { createHash, createHmac } = await import('node:crypto');
    const raw = JSON.stringify(order());
    const timestamp = formatJakartaTimestamp(Date.now());
    const hash = createHash('sha256').update(raw).digest('hex');
    // Signed as if sent to the canonical path, sent to /v1.0.
    const signed = `POST:/api/snap/v1.0/qr/qr-mpm-generate:${c.accessToken}:${hash}:${timestamp}`;
    const res = await fetch(`${gw.url}/v1.0/qr/qr-mpm-generate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${c.accessToken}`,
        'x-timestamp': timestamp,
        'x-signature': createHmac('sha512', c.clientSecret).update(signed).digest('base64'),
        'x-partner-id': c.partnerId,
        'x-external-id': `${Date.now()}`,
        'channel-id': '95221',
      },
      body: raw,
    });
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as { responseCode: string }).responseCode, '4014700');
  });

  it('serves /api/v1.0 (PHP SNAP-BI libraries): a QRIS generate signed over /api/v1.0/… succeeds', async () => {
    const { createHash, createHmac } = await import('node:crypto');
    const path = '/api/v1.0/qr/qr-mpm-generate';
    /** The call as such a library makes it: the string to sign over `signedPath`, sent to `path`. */
    const generate = async (signedPath: string) => {
      const raw = JSON.stringify(order());
      const timestamp = formatJakartaTimestamp(Date.now());
      const hash = createHash('sha256').update(raw).digest('hex');
      const signed = `POST:${signedPath}:${c.accessToken}:${hash}:${timestamp}`;
      const res = await fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${c.accessToken}`,
          'x-timestamp': timestamp,
          'x-signature': createHmac('sha512', c.clientSecret).update(signed).digest('base64'),
          'x-partner-id': c.partnerId,
          'x-external-id': `${Date.now()}${++n}`,
          'channel-id': '95221',
        },
        body: raw,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const ok = await generate(path);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual([ok.body.responseCode, ok.body.responseMessage], ['2004700', 'Successful']);
    assert.match(String(ok.body.qrContent), /^000201/);
    // Signed over the canonical path instead: not the path it requested.
    const elsewhere = await generate('/api/snap/v1.0/qr/qr-mpm-generate');
    assert.equal(elsewhere.status, 401);
    assert.equal(elsewhere.body.responseCode, '4014700');
    const token = await tokenAt(gw, '/api/v1.0/access-token/b2b', m, '{"grantType":"client_credentials"}');
    assert.deepEqual([token.status, token.body.responseCode], [200, '2007100']);
  });

  it('takes OAuth’s grant_type, and still refuses another grant under either spelling', async () => {
    const ok = await tokenAt(gw, '/v1.0/access-token/b2b', m, '{"grant_type":"client_credentials"}');
    assert.equal(ok.status, 200);
    assert.equal(ok.body.responseCode, '2007100');
    const bad = await tokenAt(gw, '/v1.0/access-token/b2b', m, '{"grant_type":"password"}');
    assert.deepEqual(bad.body, {
      responseCode: '4007101',
      responseMessage: 'Invalid Field Format {grantType}',
    });
    // grantType wins when both are sent.
    const both = await tokenAt(
      gw,
      '/v1.0/access-token/b2b',
      m,
      '{"grantType":"password","grant_type":"client_credentials"}',
    );
    assert.equal(both.status, 400);
    const neither = await tokenAt(gw, '/v1.0/access-token/b2b', m, '{}');
    assert.deepEqual(neither.body, {
      responseCode: '4007102',
      responseMessage: 'Invalid Mandatory Field {grantType}',
    });
  });

  it('serves DOKU’s own paths (doku) and delete-va by POST (midtrans) with the default profiles', async () => {
    const token = await tokenAt(gw, '/authorization/v1/access-token/b2b', m, '{"grantType":"client_credentials"}');
    assert.equal(token.status, 200);
    const created = await snapCall(gw.url, c, '/virtual-accounts/bi-snap-va/v1.1/transfer-va/create-va', {
      virtualAccountName: 'Budi',
      trxId: `MOUNT-VA-${++n}`,
      totalAmount: idr('10000.00'),
    });
    assert.equal(created.status, 200, created.text);
    const va = created.body.virtualAccountData.virtualAccountNo as string;
    const status = await snapCall(gw.url, c, '/orders/v1.0/transfer-va/status', { virtualAccountNo: va });
    assert.equal(status.body.responseCode, '2002600', status.text);
    const updated = await snapCall(
      gw.url,
      c,
      '/virtual-accounts/bi-snap-va/v1.1/transfer-va/update-va',
      { virtualAccountNo: va, totalAmount: idr('12000.00') },
      { method: 'PUT' },
    );
    assert.equal(updated.body.responseCode, '2002800', updated.text);
    const deleted = await snapCall(gw.url, c, '/v1.0/transfer-va/delete-va', { virtualAccountNo: va });
    assert.equal(deleted.body.responseCode, '2003100', deleted.text);
    // DOKU's paths take only DOKU's methods.
    const wrong = await snapCall(
      gw.url,
      c,
      '/orders/v1.0/transfer-va/status',
      { virtualAccountNo: va },
      { method: 'PUT' },
    );
    assert.equal(wrong.status, 404);
  });

  it('says where it is served in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi/snap.json`)).json()) as { info: { description: string } };
    assert.match(doc.info.description, /`\/snap-adapter\/b2b\/v1\.0\/`, `\/api\/v1\.0\/`/);
    assert.match(doc.info.description, /`POST \/orders\/v1\.0\/transfer-va\/status` \(doku: va-status\)/);
    assert.match(doc.info.description, /`POST <prefix>\/transfer-va\/delete-va` \(midtrans: delete-va\)/);
  });
});

describe('SNAPGATE_SNAP_PREFIXES and SNAPGATE_SNAP_PROFILES', () => {
  it('parses prefixes, drops duplicates and the canonical one, and refuses what is not a prefix', () => {
    assert.deepEqual(parseSnapPrefixes(' /v1.0 , /snap/v1.0/, /v1.0, /api/snap/v1.0 '), ['/v1.0', '/snap/v1.0']);
    assert.deepEqual(parseSnapPrefixes('none'), []);
    for (const bad of ['v1.0', '/', '/a b', '/../admin', '/v1.0?x', '']) {
      assert.throws(() => parseSnapPrefixes(bad), /is not a path prefix/, bad);
    }
    for (const own of ['/admin', '/admin/v1', '/console', '/upstream/x', '/qr', '/.well-known']) {
      assert.throws(() => parseSnapPrefixes(own), /is the gateway's own path/, own);
    }
    assert.deepEqual(parseSnapProfiles('doku, midtrans,doku'), ['doku', 'midtrans']);
    assert.deepEqual(parseSnapProfiles('none'), []);
    assert.throws(() => parseSnapProfiles('xendit'), /"xendit" is not a profile \(midtrans, doku, or none\)/);
  });

  it('refuses a bad value at start, naming the variable', () => {
    assert.throws(
      () => loadConfig({ SNAPGATE_SNAP_PREFIXES: '/admin' }),
      /SNAPGATE_SNAP_PREFIXES: \/admin is the gateway's own path/,
    );
    assert.throws(
      () => loadConfig({ SNAPGATE_SNAP_PROFILES: 'xendit' }),
      /SNAPGATE_SNAP_PROFILES: "xendit" is not a profile/,
    );
    assert.deepEqual(loadConfig({}).snapMounts, {
      prefixes: ['/v1.0', '/snap/v1.0', '/openapi/v1.0', '/snap-adapter/b2b/v1.0', '/api/v1.0'],
      profiles: ['midtrans', 'doku'],
    });
  });

  it('lists each route’s mounts: the canonical one first, then the prefixes, then the profiles’', () => {
    const route = { name: 'delete-va', method: 'DELETE' as const, path: 'transfer-va/delete-va' };
    assert.deepEqual(mountsOf({ prefixes: ['/v1.0'], profiles: ['midtrans', 'doku'] }, route), [
      { method: 'DELETE', url: '/api/snap/v1.0/transfer-va/delete-va' },
      { method: 'DELETE', url: '/v1.0/transfer-va/delete-va' },
      { method: 'POST', url: '/api/snap/v1.0/transfer-va/delete-va' },
      { method: 'POST', url: '/v1.0/transfer-va/delete-va' },
      { method: 'DELETE', url: '/virtual-accounts/bi-snap-va/v1.1/transfer-va/delete-va' },
    ]);
  });

  it('serves only the canonical prefix with none and none', async () => {
    const gw = await startGateway({ env: { SNAPGATE_SNAP_PREFIXES: 'none', SNAPGATE_SNAP_PROFILES: 'none' } });
    try {
      const m = await gw.createMerchant();
      const c = await authenticate(gw.url, m);
      assert.equal((await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', order())).status, 200);
      const elsewhere = await snapCall(gw.url, c, '/v1.0/qr/qr-mpm-generate', order());
      assert.equal(elsewhere.status, 404);
      assert.deepEqual(elsewhere.body, { responseCode: '4040000', responseMessage: 'Not Found' });
      assert.equal((await tokenAt(gw, '/authorization/v1/access-token/b2b', m, '{}')).status, 404);
      const byPost = await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/delete-va', { virtualAccountNo: 'x' });
      assert.equal(byPost.status, 404);
    } finally {
      await gw.close();
    }
  });
});

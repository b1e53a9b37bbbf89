import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

const rsaPem = (bits: number) =>
  generateKeyPairSync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }).publicKey;

describe('admin API: merchants', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('creates a merchant and shows its client secret once', async () => {
    const r = await gw.admin('POST', '/merchants', {
      name: 'Toko Satu',
      callbackBaseUrl: 'https://merchant.example/cb',
      merchantCity: 'BANDUNG',
    });
    assert.equal(r.status, 201);
    assert.match(r.body.clientKey, /^[0-9a-f-]{36}$/);
    assert.ok(Buffer.from(r.body.clientSecret, 'base64url').length >= 32);
    assert.equal(r.body.partnerId, r.body.clientKey);
    assert.equal(r.body.tokenSignature, 'any');
    assert.equal(r.body.callbackSignature, 'hmac-sha512');
    assert.equal(r.body.merchantName, 'Toko Satu');
    assert.equal(r.body.merchantCity, 'BANDUNG');
    assert.match(r.body.nmid, /^ID\d{13}$/);
    assert.equal(r.body.status, 'active');
    const shown = await gw.admin('GET', `/merchants/${r.body.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.clientSecret, undefined);
    assert.equal(shown.body.previousSecret, undefined);
    assert.equal(JSON.stringify(shown.body).includes(r.body.clientSecret), false);
  });

  it('takes null at creation for a setting null clears, as if left out, and refuses it for the others', async () => {
    const r = await gw.admin('POST', '/merchants', {
      name: 'Toko Nol',
      callbackBaseUrl: null,
      publicKeyPem: null,
      retrySchedule: null,
      qrisProvider: null,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual(
      [r.body.callbackBaseUrl, r.body.publicKeyPem, r.body.retrySchedule, r.body.qrisProvider],
      [null, null, null, null],
    );
    for (const field of ['merchantName', 'partnerId', 'tokenSignature', 'mcc']) {
      const refused = await gw.admin('POST', '/merchants', { name: 'Toko Nol', [field]: null });
      assert.equal(refused.status, 400, field);
      assert.match(refused.body.errors.join(), new RegExp(`^${field}: `), field);
    }
  });

  it('lists merchants newest first with a cursor, and oldest first when asked', async () => {
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await gw.createMerchant({ name: `List ${i}` })).id);
    const walk = async (order: string) => {
      const ids: string[] = [];
      const times: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await gw.admin(
          'GET',
          `/merchants?limit=2${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        assert.equal(page.status, 200);
        assert.ok(page.body.items.length <= 2);
        for (const m of page.body.items as Array<{ id: string; createdAt: string }>) {
          ids.push(m.id);
          times.push(m.createdAt);
        }
        cursor = page.body.nextCursor;
      } while (cursor);
      return { ids, times };
    };
    const { ids: newest, times } = await walk('');
    assert.equal(new Set(newest).size, newest.length, 'no merchant twice');
    assert.ok(newest.length >= 4);
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
    // The three just made come first.
    assert.deepEqual(new Set(newest.slice(0, 3)), new Set(made));
    assert.deepEqual((await walk('&order=oldest')).ids, [...newest].reverse());
    assert.deepEqual((await walk('&order=newest')).ids, newest);
  });

  it('updates URLs, keys and status', async () => {
    const m = await gw.createMerchant();
    const pem = rsaPem(2048);
    const r = await gw.admin('PATCH', `/merchants/${m.id}`, {
      qrisCallbackUrl: 'https://m.example/qr',
      publicKeyPem: pem,
      tokenSignature: 'rsa-sha256',
      status: 'disabled',
    });
    assert.equal(r.status, 200);
    assert.equal(r.body.qrisCallbackUrl, 'https://m.example/qr');
    assert.equal(r.body.publicKeyPem, pem);
    assert.equal(r.body.status, 'disabled');
  });

  const problem = (status: number) => ({ status });
  for (const [name, method, path, body, expected] of [
    ['an unknown field', 'POST', '/merchants', { name: 'x', colour: 'red' }, problem(400)],
    ['a missing name', 'POST', '/merchants', {}, problem(400)],
    ['a relative callback URL', 'POST', '/merchants', { name: 'x', callbackBaseUrl: '/cb' }, problem(400)],
    ['an ftp callback URL', 'POST', '/merchants', { name: 'x', vaCallbackUrl: 'ftp://m.example/' }, problem(400)],
    [
      'a PEM that is not a key',
      'POST',
      '/merchants',
      { name: 'x', publicKeyPem: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' },
      problem(400),
    ],
    ['rsa-sha256 without a key', 'POST', '/merchants', { name: 'x', tokenSignature: 'rsa-sha256' }, problem(400)],
    ['an unknown tokenSignature', 'POST', '/merchants', { name: 'x', tokenSignature: 'md5' }, problem(400)],
    ['an NMID of the wrong shape', 'POST', '/merchants', { name: 'x', nmid: '12345' }, problem(400)],
    [
      'a merchantName over 25 characters',
      'POST',
      '/merchants',
      { name: 'x', merchantName: 'x'.repeat(26) },
      problem(400),
    ],
    ['an unknown status', 'PATCH', '/merchants/whatever', { status: 'paused' }, problem(400)],
    ['an empty patch', 'PATCH', '/merchants/whatever', {}, problem(400)],
    ['an unknown merchant', 'GET', '/merchants/no-such-id', undefined, problem(404)],
    ['a bad list limit', 'GET', '/merchants?limit=0', undefined, problem(400)],
    ['an unknown list order', 'GET', '/merchants?order=random', undefined, problem(400)],
    ['a negative overlap', 'POST', '/merchants/x/rotate-secret', { overlapSec: -1 }, problem(400)],
  ] as const) {
    it(`answers ${name} with problem+json ${expected.status}`, async () => {
      const r = await gw.admin(method, path, body);
      assert.equal(r.status, expected.status, JSON.stringify(r.body));
      assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(r.body.status, expected.status);
      assert.equal(typeof r.body.title, 'string');
    });
  }

  it('refuses a 1024-bit RSA key', async () => {
    const r = await gw.admin('POST', '/merchants', { name: 'x', publicKeyPem: rsaPem(1024) });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.body.errors), /publicKeyPem/);
  });

  it('refuses a partnerId another merchant has, with 409', async () => {
    await gw.createMerchant({ partnerId: 'PARTNER-1' });
    const r = await gw.admin('POST', '/merchants', { name: 'y', partnerId: 'PARTNER-1' });
    assert.equal(r.status, 409);
  });

  it('lists every problem at once', async () => {
    const r = await gw.admin('POST', '/merchants', { name: '', mcc: 'abc', callbackSignature: 'none' });
    assert.equal(r.status, 400);
    assert.equal(r.body.errors.length, 3);
  });

  it('refuses a request without the admin token, or with a wrong one', async () => {
    const none = await fetch(`${gw.url}/admin/v1/merchants`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const wrong = await fetch(`${gw.url}/admin/v1/merchants`, { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
  });

  it('refuses a body that is not JSON', async () => {
    const r = await fetch(`${gw.url}/admin/v1/merchants`, {
      method: 'POST',
      headers: { authorization: 'Bearer test-admin-token-0123456789', 'content-type': 'application/json' },
      body: '{"name":',
    });
    assert.equal(r.status, 400);
    assert.match(r.headers.get('content-type') ?? '', /^application\/problem\+json/);
  });
});

describe('admin API in sandbox mode: link-local and metadata callback URLs', () => {
  it('refuses them for every callback URL field, as it accepts loopback and private ones', async () => {
    const gw = await startGateway();
    try {
      for (const [field, url] of [
        ['callbackBaseUrl', 'http://169.254.169.254/latest/meta-data'],
        ['qrisCallbackUrl', 'http://[fe80::1]/cb'],
        ['vaCallbackUrl', 'http://metadata.google.internal/cb'],
      ] as const) {
        const r = await gw.admin('POST', '/merchants', { name: 'p', [field]: url });
        assert.equal(r.status, 400, url);
        assert.match(r.body.errors.join(), /link-local or cloud metadata/);
      }
      const m = await gw.createMerchant({ name: 'p' });
      const patched = await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: 'http://169.254.169.254/' });
      assert.equal(patched.status, 400);
      assert.equal(
        (await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: 'http://127.0.0.1:9/cb' })).status,
        200,
      );
    } finally {
      await gw.close();
    }
  });
});

describe('admin API in production mode', () => {
  it('refuses http and private callback URLs', async () => {
    const gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    try {
      for (const url of [
        'http://m.example/cb',
        'https://127.0.0.1/cb',
        'https://10.1.2.3/cb',
        'https://169.254.169.254/',
        'https://[::1]/',
        'https://localhost/cb',
      ]) {
        const r = await gw.admin('POST', '/merchants', { name: 'p', callbackBaseUrl: url });
        assert.equal(r.status, 400, url);
      }
      assert.equal(
        (await gw.admin('POST', '/merchants', { name: 'p', callbackBaseUrl: 'https://m.example/cb' })).status,
        201,
      );
    } finally {
      await gw.close();
    }
  });
});

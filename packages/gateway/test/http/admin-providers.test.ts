import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, postToken, snapCall } from '../helpers/snap.ts';

const keys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const OUTBOUND = {
  baseUrl: 'https://acquirer.example/',
  clientKey: 'snapgate-at-acquirer',
  clientSecret: 'outbound-secret-value',
  privateKeyPem: keys.privateKey,
  partnerId: 'SNAPGATE01',
};

describe('admin API: providers', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('creates a provider and shows its client secret once, never the outbound secret or key', async () => {
    const r = await gw.admin('POST', '/providers', {
      name: 'Acquirer One',
      kind: 'acquirer',
      bankCode: '936',
      publicKeyPem: keys.publicKey,
      outbound: OUTBOUND,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.match(r.body.clientKey, /^[0-9a-f-]{36}$/);
    assert.ok(Buffer.from(r.body.clientSecret, 'base64url').length >= 32);
    assert.deepEqual(r.body.outbound, {
      baseUrl: 'https://acquirer.example',
      clientKey: 'snapgate-at-acquirer',
      partnerId: 'SNAPGATE01',
      channelId: '95221',
      tokenPath: '/api/snap/v1.0/access-token/b2b',
      pathPrefix: '/api/snap/v1.0',
      hasPrivateKey: true,
    });
    assert.deepEqual(
      [r.body.kind, r.body.bankCode, r.body.status, r.body.isSandbox],
      ['acquirer', '936', 'active', false],
    );
    const shown = await gw.admin('GET', `/providers/${r.body.id}`);
    const text = JSON.stringify(shown.body);
    for (const secret of [r.body.clientSecret, OUTBOUND.clientSecret, 'PRIVATE KEY']) {
      assert.equal(text.includes(secret), false, secret);
    }
    const list = await gw.admin('GET', '/providers?limit=500');
    assert.ok(list.body.items.some((p: { id: string }) => p.id === r.body.id));
    // The built-in sandbox bank, acquirer and wallet are listed too.
    assert.deepEqual(
      list.body.items
        .filter((p: { isSandbox: boolean }) => p.isSandbox)
        .map((p: { kind: string }) => p.kind)
        .sort(),
      ['acquirer', 'bank', 'ewallet'],
    );
    assert.deepEqual(
      list.body.items
        .filter((p: { kind: string }) => p.kind === 'ewallet')
        .map((p: { payOption: string }) => p.payOption),
      ['SANDBOXPAY'],
    );
    assert.equal(JSON.stringify(list.body).includes(r.body.clientSecret), false);
  });

  it('refuses invalid settings with every problem listed', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ kind: 'bank', bankCode: '014' }, /name/],
      [{ name: 'X', kind: 'wallet', bankCode: '014' }, /kind/],
      // An e-wallet: no bank code, but its payOption and the outbound settings snapgate calls it with.
      [
        { name: 'X', kind: 'ewallet', bankCode: '014', payOption: 'DANA', outbound: OUTBOUND },
        /bankCode: an e-wallet has no bank code/,
      ],
      [{ name: 'X', kind: 'ewallet', outbound: OUTBOUND }, /payOption: required for an e-wallet/],
      [{ name: 'X', kind: 'ewallet', payOption: 'DANA' }, /outbound: required for an e-wallet/],
      [{ name: 'X', kind: 'ewallet', payOption: 'dana', outbound: OUTBOUND }, /payOption: must be A-Z, 0-9 and _/],
      [{ name: 'X', kind: 'ewallet', payOption: 'D'.repeat(33), outbound: OUTBOUND }, /payOption: must be A-Z/],
      [{ name: 'X', kind: 'bank' }, /bankCode: required for a bank/],
      [{ name: 'X', kind: 'acquirer' }, /bankCode: required for an acquirer/],
      [{ name: 'X', kind: 'acquirer', bankCode: '014', payOption: 'DANA' }, /payOption: only an e-wallet/],
      [{ name: 'X', kind: 'bank', bankCode: '14' }, /bankCode: must be 3 digits/],
      [{ name: 'X', kind: 'bank', bankCode: '014', publicKeyPem: 'nope' }, /publicKeyPem: must be a PEM/],
      [{ name: 'X', kind: 'bank', bankCode: '014', outbound: OUTBOUND }, /outbound: only an acquirer/],
      [{ name: 'X', kind: 'acquirer', bankCode: '014', outbound: { ...OUTBOUND, baseUrl: 'ftp://x' } }, /baseUrl/],
      [
        { name: 'X', kind: 'acquirer', bankCode: '014', outbound: { ...OUTBOUND, privateKeyPem: 'nope' } },
        /privateKeyPem: must be a PEM-encoded RSA private key/,
      ],
      [{ name: 'X', kind: 'acquirer', bankCode: '014', outbound: { baseUrl: 'https://x' } }, /outbound.clientKey/],
      [{ name: 'X', kind: 'bank', bankCode: '014', extra: 1 }, /extra/],
    ];
    for (const [body, pattern] of cases) {
      const r = await gw.admin('POST', '/providers', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match((r.body.errors as string[]).join('\n'), pattern, JSON.stringify(body));
    }
  });

  it('keeps one active bank per bankCode', async () => {
    const first = await gw.admin('POST', '/providers', { name: 'Bank A', kind: 'bank', bankCode: '451' });
    assert.equal(first.status, 201);
    const second = await gw.admin('POST', '/providers', { name: 'Bank B', kind: 'bank', bankCode: '451' });
    assert.equal(second.status, 409);
    assert.match(second.body.detail, /bankCode 451 already belongs/);
    assert.equal((await gw.admin('PATCH', `/providers/${first.body.id}`, { status: 'disabled' })).status, 200);
    const third = await gw.admin('POST', '/providers', { name: 'Bank B', kind: 'bank', bankCode: '451' });
    assert.equal(third.status, 201);
    const revive = await gw.admin('PATCH', `/providers/${first.body.id}`, { status: 'active' });
    assert.equal(revive.status, 409);
  });

  it('takes null at creation for a setting it can clear, as it does for a merchant: none', async () => {
    const r = await gw.admin('POST', '/providers', {
      name: 'Bank Kosong',
      kind: 'bank',
      bankCode: '461',
      publicKeyPem: null,
      outbound: null,
      payouts: null,
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.deepEqual([r.body.publicKeyPem, r.body.outbound, r.body.payouts], [null, null, null]);
    const refused = await gw.admin('POST', '/providers', { name: 'Bank X', kind: 'bank', bankCode: '462', name2: 1 });
    assert.equal(refused.status, 400);
    const noNullName = await gw.admin('POST', '/providers', { name: null, kind: 'bank', bankCode: '463' });
    assert.equal(noNullName.status, 400);
  });

  it('updates, rotates with overlap, and answers 404 for an unknown provider', async () => {
    const p = await gw.admin('POST', '/providers', { name: 'Bank R', kind: 'bank', bankCode: '452' });
    const u = await gw.admin('PATCH', `/providers/${p.body.id}`, { name: 'Bank Renamed', bankCode: '453' });
    assert.deepEqual([u.status, u.body.name, u.body.bankCode], [200, 'Bank Renamed', '453']);
    assert.equal((await gw.admin('PATCH', `/providers/${p.body.id}`, {})).status, 400);
    const rotated = await gw.admin('POST', `/providers/${p.body.id}/rotate-secret`, { overlapSec: 60 });
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.clientSecret, p.body.clientSecret);
    // Both secrets sign a token during the overlap.
    for (const clientSecret of [p.body.clientSecret, rotated.body.clientSecret]) {
      assert.equal((await postToken(gw.url, { clientKey: p.body.clientKey, clientSecret })).status, 200);
    }
    for (const path of ['/providers/nope', '/providers/nope/rotate-secret']) {
      const r = await gw.admin(path.endsWith('secret') ? 'POST' : 'GET', path);
      assert.equal(r.status, 404);
    }
    assert.equal((await gw.admin('PATCH', '/providers/nope', { name: 'x' })).status, 404);
  });
});

describe('providers in production mode', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
  });
  after(() => gw.close());

  it('has no sandbox providers, takes only RSA tokens from a keyed provider, and refuses VAs no bank owns', async () => {
    const list = await gw.admin('GET', '/providers');
    assert.deepEqual(list.body.items, []);
    const bank = await gw.admin('POST', '/providers', {
      name: 'Bank',
      kind: 'bank',
      bankCode: '014',
      publicKeyPem: keys.publicKey,
    });
    const hmac = await postToken(gw.url, { clientKey: bank.body.clientKey, clientSecret: bank.body.clientSecret });
    assert.deepEqual(hmac.body, { responseCode: '4017100', responseMessage: 'Unauthorized. [Invalid Signature]' });
    const rsa = await postToken(gw.url, { clientKey: bank.body.clientKey, privateKeyPem: keys.privateKey });
    assert.equal(rsa.status, 200);

    const m = await gw.createMerchant({ callbackBaseUrl: 'https://merchant.example' });
    const c = await authenticate(gw.url, m);
    const create = (bankCode: string) =>
      snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId: `T-${bankCode}`,
        totalAmount: { value: '1000.00', currency: 'IDR' },
        additionalInfo: { bankCode },
      });
    assert.deepEqual((await create('999')).body, {
      responseCode: '4002701',
      responseMessage: 'Invalid Field Format {additionalInfo.bankCode}',
    });
    assert.equal((await create('014')).status, 200);
  });
});

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });

describe('snapgate provider …', () => {
  let gw: TestGateway;
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-cli-provider-'));
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const publicKeyFile = join(dir, 'bank.pub.pem');
  const privateKeyFile = join(dir, 'bank.pem');
  writeFileSync(publicKeyFile, keys.publicKey);
  writeFileSync(privateKeyFile, keys.privateKey);
  before(async () => {
    gw = await startGateway();
  });
  after(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates, lists, shows, updates and rotates a provider, and shows its inbound log', async () => {
    const created = await runCli(
      gw,
      'provider',
      'create',
      '--name',
      'Bank CLI',
      '--kind',
      'bank',
      '--bank-code',
      '014',
      '--public-key-file',
      publicKeyFile,
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const p = JSON.parse(created.out);
    assert.equal(p.kind, 'bank');
    assert.ok(p.clientSecret);
    assert.match(p.publicKeyPem, /BEGIN PUBLIC KEY/);
    const list = await runCli(gw, 'provider', 'list');
    assert.equal(list.code, 0, list.err);
    assert.match(list.out, /Bank CLI/);
    assert.match(list.out, /Sandbox Bank/);
    const shown = await runCli(gw, 'provider', 'show', p.id);
    assert.match(shown.out, /bankCode\s+014/);
    assert.equal(shown.out.includes(p.clientSecret), false);
    const updated = await runCli(gw, 'provider', 'update', p.id, '--status', 'disabled', '--json');
    assert.equal(JSON.parse(updated.out).status, 'disabled');
    const rotated = await runCli(gw, 'provider', 'rotate-secret', p.id, '--overlap-sec', '0', '--json');
    assert.notEqual(JSON.parse(rotated.out).clientSecret, p.clientSecret);
    const acquirer = await runCli(
      gw,
      'provider',
      'create',
      '--name',
      'Acq',
      '--kind',
      'acquirer',
      '--bank-code',
      '936',
      '--outbound-base-url',
      'https://acq.example',
      '--outbound-client-key',
      'k',
      '--outbound-client-secret',
      's',
      '--outbound-partner-id',
      'P1',
      '--outbound-private-key-file',
      privateKeyFile,
      '--json',
    );
    assert.equal(acquirer.code, 0, acquirer.err);
    assert.equal(JSON.parse(acquirer.out).outbound.hasPrivateKey, true);
    const inbound = await runCli(gw, 'provider', 'inbound', p.id);
    assert.equal(inbound.code, 0, inbound.err);
  });

  it('makes a bank the payout bank, and stops it (its outbound settings go too)', async () => {
    const created = await runCli(
      gw,
      'provider',
      'create',
      '--name',
      'Bank Payout CLI',
      '--kind',
      'bank',
      '--bank-code',
      '451',
      '--outbound-base-url',
      'https://payout-bank.example',
      '--outbound-client-key',
      'k',
      '--outbound-client-secret',
      's',
      '--outbound-partner-id',
      'P1',
      '--payouts-source-account',
      '1234567890',
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const p = JSON.parse(created.out);
    assert.deepEqual(p.payouts, { sourceAccountNo: '1234567890' });
    const stopped = await runCli(gw, 'provider', 'update', p.id, '--payouts-source-account', 'none', '--json');
    assert.equal(stopped.code, 0, stopped.err);
    assert.deepEqual([JSON.parse(stopped.out).payouts, JSON.parse(stopped.out).outbound], [null, null]);
  });

  it('registers an e-wallet by its wallet, without a bank code, with the outbound settings it is called with', async () => {
    const outbound = ['--outbound-base-url', 'https://wallet.example', '--outbound-client-key', 'k'];
    const keys = ['--outbound-client-secret', 's', '--outbound-partner-id', 'P1'];
    const created = await runCli(
      gw,
      'provider',
      'create',
      '--name',
      'DANA',
      '--kind',
      'ewallet',
      '--pay-option',
      'DANA',
      ...outbound,
      ...keys,
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const p = JSON.parse(created.out);
    assert.deepEqual([p.kind, p.payOption, p.bankCode], ['ewallet', 'DANA', null]);
    assert.equal(p.outbound.baseUrl, 'https://wallet.example');
    const list = await runCli(gw, 'provider', 'list');
    assert.match(list.out, /DANA/);
    // Without its wallet: a usage error before any call; with a bank code, the API's refusal.
    const bare = await runCli(gw, 'provider', 'create', '--name', 'OVO', '--kind', 'ewallet', ...outbound, ...keys);
    assert.equal(bare.code, 2);
    assert.match(bare.err, /--pay-option is required/);
    const coded = await runCli(
      gw,
      'provider',
      'create',
      '--name',
      'OVO',
      '--kind',
      'ewallet',
      '--pay-option',
      'OVO',
      '--bank-code',
      '014',
      ...outbound,
      ...keys,
    );
    assert.equal(coded.code, 1);
    assert.match(coded.err, /bankCode: an e-wallet has no bank code/);
  });

  it('exits 2 on bad usage and 1 when the admin API refuses', async () => {
    assert.equal((await runCli(gw, 'provider', 'create', '--name', 'X')).code, 2);
    assert.equal((await runCli(gw, 'provider', 'update', 'x')).code, 2);
    assert.equal((await runCli(gw, 'provider', 'create', '--name', 'X', '--kind', 'bank', '--bank-code', '1')).code, 1);
    assert.equal((await runCli(gw, 'provider', 'show', 'nope')).code, 1);
  });
});

describe('snapgate simulate --provider-key: any provider against any gateway', () => {
  let gw: TestGateway;
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-cli-sim-'));
  const privateKeyFile = join(dir, 'bank.pem');
  writeFileSync(privateKeyFile, keys.privateKey);
  before(async () => {
    // A production-mode staging gateway: no sandbox API, no sandbox bank.
    gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
  });
  after(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pays a VA as a keyed bank and notifies a QRIS as an acquirer over the SNAP API', async () => {
    const bank = (
      await gw.admin('POST', '/providers', { name: 'B', kind: 'bank', bankCode: '014', publicKeyPem: keys.publicKey })
    ).body;
    const acquirer = (
      await gw.admin('POST', '/providers', { name: 'A', kind: 'acquirer', bankCode: '936', acquiresGatewayQris: true })
    ).body;
    // In production a gateway-issued QRIS needs the operator's NMID for the merchant.
    const c = await authenticate(
      gw.url,
      await gw.createMerchant({ callbackBaseUrl: 'https://merchant.example', nmid: 'ID1020021181745' }),
    );
    const va = (
      await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId: 'SIM-VA-1',
        totalAmount: idr('5000.00'),
        additionalInfo: { bankCode: '014' },
      })
    ).body.virtualAccountData;
    const asBank = ['--provider-key', bank.clientKey, '--provider-secret', bank.clientSecret];
    const wrong = await runCli(
      gw,
      'simulate',
      'va',
      va.virtualAccountNo.trim(),
      '--amount',
      '1.00',
      ...asBank,
      '--provider-private-key',
      privateKeyFile,
    );
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /4042513/);
    const paid = await runCli(
      gw,
      'simulate',
      'va',
      va.virtualAccountNo,
      ...asBank,
      '--provider-private-key',
      privateKeyFile,
      '--json',
    );
    assert.equal(paid.code, 0, paid.err);
    assert.match(paid.out, /"responseCode": "2002500"/);
    assert.equal((await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo))?.status, '00');
    // Without its RSA key, a keyed bank cannot take a token in production.
    const noKey = await runCli(gw, 'simulate', 'va', va.virtualAccountNo, ...asBank);
    assert.equal(noKey.code, 1);
    assert.match(noKey.err, /token refused by the gateway at http:\/\/127\.0\.0\.1:\d+: HTTP 401/);
    assert.match(noKey.err, /signs its token request with its private key: --provider-private-key/);

    const q = (
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'SIM-Q-1',
        amount: idr('2500.00'),
      })
    ).body;
    const asAcquirer = ['--provider-key', acquirer.clientKey, '--provider-secret', acquirer.clientSecret];
    const scanned = await runCli(gw, 'simulate', 'qris', '--qr-content', q.qrContent, '--status', '03', ...asAcquirer);
    assert.equal(scanned.code, 0, scanned.err);
    const byRef = await runCli(gw, 'simulate', 'qris', q.referenceNo, '--amount', '2500.00', ...asAcquirer);
    assert.equal(byRef.code, 0, byRef.err);
    assert.equal((await gw.store.findTransaction(q.referenceNo))?.status, '00');
    assert.equal((await runCli(gw, 'simulate', 'qris', q.referenceNo, ...asAcquirer)).code, 2);
    assert.equal((await runCli(gw, 'simulate', 'va', 'x', '--provider-key', 'k')).code, 2);
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';

const run = runCli;

describe('snapgate merchant …', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('creates, lists, shows, updates and rotates through the admin API', async () => {
    const created = await run(
      gw,
      'merchant',
      'create',
      '--name',
      'Warung CLI',
      '--callback-base-url',
      'https://w.example',
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const m = JSON.parse(created.out);
    assert.equal(m.name, 'Warung CLI');
    assert.ok(m.clientSecret);

    const list = await run(gw, 'merchant', 'list');
    assert.equal(list.code, 0);
    assert.match(list.out, /^id\s+name\s+clientKey/);
    assert.match(list.out, /Warung CLI/);

    const show = await run(gw, 'merchant', 'show', m.id);
    assert.equal(show.code, 0);
    assert.match(show.out, /callbackBaseUrl\s+https:\/\/w\.example/);
    assert.equal(show.out.includes(m.clientSecret), false);

    const upd = await run(gw, 'merchant', 'update', m.id, '--status', 'disabled', '--json');
    assert.equal(upd.code, 0);
    assert.equal(JSON.parse(upd.out).status, 'disabled');

    const rot = await run(gw, 'merchant', 'rotate-secret', m.id, '--overlap-sec', '60', '--json');
    assert.equal(rot.code, 0);
    assert.ok(JSON.parse(rot.out).clientSecret);
  });

  it('lists newest first, and oldest first with --oldest-first', async () => {
    const made: string[] = [];
    for (const name of ['Order A', 'Order B']) made.push((await gw.createMerchant({ name })).id);
    const ids = async (...flags: string[]) => {
      const r = await run(gw, 'merchant', 'list', '--limit', '500', '--json', ...flags);
      assert.equal(r.code, 0, r.err);
      return (JSON.parse(r.out).items as Array<{ id: string }>).map((m) => m.id);
    };
    const newest = await ids();
    assert.deepEqual(new Set(newest.slice(0, 2)), new Set(made));
    assert.deepEqual(await ids('--oldest-first'), [...newest].reverse());
  });

  it('sets a merchant’s QRIS criteria and fees, and refuses fees that are not JSON', async () => {
    const created = await run(
      gw,
      'merchant',
      'create',
      '--name',
      'Warung Fees',
      '--qris-criteria',
      'UME',
      '--fees',
      '{"qris":{"percent":"0.70"},"va":{"fixed":"2500.00"}}',
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const m = JSON.parse(created.out);
    assert.equal(m.qrisCriteria, 'UME');
    assert.deepEqual(m.fees, { qris: { percent: '0.70' }, va: { fixed: '2500.00' } });
    const back = await run(gw, 'merchant', 'update', m.id, '--fees', 'default', '--json');
    assert.equal(back.code, 0, back.err);
    assert.equal(JSON.parse(back.out).fees, null);
    assert.equal((await run(gw, 'merchant', 'update', m.id, '--fees', '{qris')).code, 2);
    const refused = await run(gw, 'merchant', 'update', m.id, '--qris-criteria', 'XYZ');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /qrisCriteria/);
  });

  it('sets a bank account, verified at the payout bank, and the payout schedule; shows the bank’s refusal', async () => {
    const m = await gw.createMerchant({ name: 'Toko Rekening' });
    const set = await run(
      gw,
      'merchant',
      'update',
      m.id,
      '--payout-account',
      '014:8880123456:Toko Rekening: Jakarta',
      '--payout-schedule',
      'auto',
      '--json',
    );
    assert.equal(set.code, 0, set.err);
    const after = JSON.parse(set.out);
    assert.deepEqual(
      { ...after.payoutAccount, verifiedAt: undefined },
      {
        bankCode: '014',
        accountNo: '8880123456',
        accountName: 'Toko Rekening: Jakarta',
        verifiedName: 'SANDBOX 3456',
        verifiedAt: undefined,
      },
    );
    assert.equal(after.payoutSchedule, 'auto');
    // Its own transfers (docs/payouts.md#disbursements): a daily limit, a fee, a callback URL.
    const disbursing = await run(
      gw,
      'merchant',
      'update',
      m.id,
      '--disbursement-daily',
      '5000000.00',
      '--fees',
      '{"disbursement":{"fixed":"2500.00"}}',
      '--transfer-callback-url',
      'https://shop.example/hooks/transfer',
      '--json',
    );
    assert.equal(disbursing.code, 0, disbursing.err);
    const limits = JSON.parse(disbursing.out);
    assert.deepEqual(
      [limits.limits, limits.fees, limits.transferCallbackUrl],
      [
        { disbursementDaily: '5000000.00' },
        { disbursement: { fixed: '2500.00' } },
        'https://shop.example/hooks/transfer',
      ],
    );
    const off = await run(gw, 'merchant', 'update', m.id, '--transfer-callback-url', 'none', '--json');
    assert.equal(JSON.parse(off.out).transferCallbackUrl, null);
    assert.equal((await run(gw, 'merchant', 'update', m.id, '--disbursement-daily', 'lots')).code, 1);
    const refused = await run(gw, 'merchant', 'update', m.id, '--payout-account', '014:7770000:Nobody');
    assert.equal(refused.code, 1);
    assert.match(refused.err, /422/);
    assert.match(refused.err, /4041611 Invalid Card\/Account\/Customer/);
    const cleared = await run(gw, 'merchant', 'update', m.id, '--payout-account', 'none', '--json');
    assert.equal(cleared.code, 0, cleared.err);
    assert.equal(JSON.parse(cleared.out).payoutAccount, null);
    assert.equal((await run(gw, 'merchant', 'update', m.id, '--payout-account', '014-8880123456')).code, 2);
  });

  it('makes a merchant portal sign-in link', async () => {
    const m = await gw.createMerchant({ name: 'Toko Portal' });
    const r = await run(gw, 'merchant', 'portal-link', m.id, '--json');
    assert.equal(r.code, 0, r.err);
    const link = JSON.parse(r.out);
    assert.match(link.url, /^https?:\/\/\S+/);
    assert.ok(Date.parse(link.expiresAt) > Date.now());
    const text = await run(gw, 'merchant', 'portal-link', m.id);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /^url\s+https?:\/\/\S+\nexpiresAt\s+\d{4}-/);
    const missing = await run(gw, 'merchant', 'portal-link', 'no-such-merchant');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /404/);
    assert.equal((await run(gw, 'merchant', 'portal-link')).code, 2);
  });

  it('clears a setting with "none" (--qris-provider none, --callback-base-url none)', async () => {
    const acquirer = await gw.store.getSetting('sandbox_acquirer_provider_id');
    const created = await run(
      gw,
      '--json',
      'merchant',
      'create',
      '--name',
      'Clearable',
      '--callback-base-url',
      'https://shop.example',
    );
    const id = JSON.parse(created.out).id as string;
    assert.doesNotMatch(created.err, /no callback URL/);
    const bare = await run(gw, 'merchant', 'create', '--name', 'No callbacks');
    assert.equal(bare.code, 0);
    assert.match(bare.err, /Note: no callback URL\. Its callbacks wait, and are retried, until one is set/);
    assert.equal((await run(gw, 'merchant', 'update', id, '--qris-provider', acquirer as string)).code, 0);
    const cleared = await run(
      gw,
      '--json',
      'merchant',
      'update',
      id,
      '--qris-provider',
      'none',
      '--callback-base-url',
      'none',
    );
    assert.equal(cleared.code, 0, cleared.err);
    const m = JSON.parse(cleared.out);
    assert.equal(m.qrisProvider, null);
    assert.equal(m.callbackBaseUrl, null);
  });

  it('exits 1 when the gateway refuses, with the problem on stderr', async () => {
    const r = await run(gw, 'merchant', 'show', 'no-such-merchant');
    assert.equal(r.code, 1);
    assert.match(r.err, /404 Not Found/);
    const bad = await run(gw, 'merchant', 'create', '--name', 'x', '--callback-base-url', 'not a url');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /callbackBaseUrl/);
  });

  it('exits 2 on bad usage', async () => {
    assert.equal((await run(gw, 'merchant', 'create')).code, 2);
    assert.equal((await run(gw, 'merchant', 'show')).code, 2);
    assert.equal((await run(gw, 'merchant', 'frobnicate')).code, 2);
    assert.equal((await run(gw, 'merchant', 'list', '--bogus')).code, 2);
    assert.equal((await run(gw, 'merchant', 'rotate-secret', 'x', '--overlap-sec', 'soon')).code, 2);
  });

  it('runs as the snapgate binary', async () => {
    // Async on purpose: the gateway lives in this process and must keep answering.
    const bin = fileURLToPath(new URL('../../bin/snapgate.js', import.meta.url));
    const exec = (args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, [bin, ...args], { encoding: 'utf8' }, (e, stdout, stderr) =>
          resolve({ code: e ? Number(e.code) : 0, stdout, stderr }),
        );
      });
    const r = await exec(['merchant', 'list', '--json', '--url', gw.url, '--admin-token', ADMIN_TOKEN]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Array.isArray(JSON.parse(r.stdout).items));
    const usage = await exec([]);
    assert.equal(usage.code, 2);
    assert.match(usage.stdout, /usage: snapgate/);
  });
});

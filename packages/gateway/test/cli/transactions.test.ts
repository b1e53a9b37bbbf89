import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

describe('snapgate transactions …', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  let paid: string;
  let open: string;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant({ name: 'Toko Transaksi' });
    const c = await authenticate(gw.url, m);
    const qris = async (ref: string) =>
      (
        await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
          partnerReferenceNo: ref,
          amount: { value: '12500.00', currency: 'IDR' },
        })
      ).body.referenceNo as string;
    paid = await qris('TX-1');
    open = await qris('TX-2');
    await gw.admin('POST', `/sandbox/qris/${paid}/pay`, {});
  });
  after(() => gw.close());

  it('lists transactions, filtered by merchant and status, with paging', async () => {
    const all = await runCli(gw, 'transactions', 'list', '--merchant', m.id);
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, /^referenceNo\s+merchantId\s+kind\s+partnerReferenceNo\s+status\s+amount/);
    assert.match(all.out, new RegExp(`${paid}\\s+${m.id}\\s+qris\\s+TX-1\\s+00\\s+12500\\.00 IDR`));
    assert.match(all.out, new RegExp(`${open}\\s+${m.id}\\s+qris\\s+TX-2\\s+01\\s+12500\\.00 IDR`));

    const onlyPaid = await runCli(gw, 'transactions', 'list', '--merchant', m.id, '--status', '00', '--json');
    assert.equal(onlyPaid.code, 0, onlyPaid.err);
    assert.deepEqual(
      JSON.parse(onlyPaid.out).items.map((t: { referenceNo: string }) => t.referenceNo),
      [paid],
    );

    const first = await runCli(gw, 'transactions', 'list', '--merchant', m.id, '--limit', '1', '--json');
    const page = JSON.parse(first.out);
    assert.equal(page.items.length, 1);
    assert.ok(page.nextCursor);
    const text = await runCli(gw, 'transactions', 'list', '--merchant', m.id, '--limit', '1');
    assert.match(text.out, /\(more: --cursor \S+\)/);
    const second = await runCli(
      gw,
      'transactions',
      'list',
      '--merchant',
      m.id,
      '--limit',
      '1',
      '--cursor',
      page.nextCursor,
    );
    assert.equal(second.code, 0, second.err);
    // Newest first: the first page has TX-2 (made last), the second TX-1.
    assert.match(first.out, new RegExp(open));
    assert.match(second.out, new RegExp(paid));
    const oldest = JSON.parse(
      (await runCli(gw, 'transactions', 'list', '--merchant', m.id, '--oldest-first', '--json')).out,
    );
    assert.deepEqual(
      oldest.items.map((t: { referenceNo: string }) => t.referenceNo),
      [paid, open],
    );
    const found = JSON.parse((await runCli(gw, 'transactions', 'list', '--reference', 'TX-2', '--json')).out);
    assert.deepEqual(
      found.items.map((t: { referenceNo: string }) => t.referenceNo),
      [open],
    );
    const recent = JSON.parse(
      (await runCli(gw, 'transactions', 'list', '--merchant', m.id, '--since', '1h', '--json')).out,
    );
    assert.equal(recent.items.length, 2);
    const future = JSON.parse(
      (await runCli(gw, 'transactions', 'list', '--merchant', m.id, '--until', '2000-01-01', '--json')).out,
    );
    assert.equal(future.items.length, 0);
    assert.equal((await runCli(gw, 'transactions', 'list', '--since', 'yesterday-ish')).code, 2);

    const bad = await runCli(gw, 'transactions', 'list', '--status', '99');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /400/);
  });

  it('shows one transaction with its status history', async () => {
    const show = await runCli(gw, 'transactions', 'show', paid);
    assert.equal(show.code, 0, show.err);
    assert.match(show.out, new RegExp(`referenceNo\\s+${paid}`));
    assert.match(show.out, /amount\s+12500\.00 IDR/);
    assert.match(show.out, /statusHistory\s+\[2\]/);
    const json = JSON.parse((await runCli(gw, 'transactions', 'show', paid, '--json')).out);
    assert.equal(json.status, '00');
    assert.deepEqual(
      json.statusHistory.map((h: { status: string }) => h.status),
      ['01', '00'],
    );
    const missing = await runCli(gw, 'transactions', 'show', '000000000000000000');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /404/);
    assert.equal((await runCli(gw, 'transactions', 'show')).code, 2);
  });
});

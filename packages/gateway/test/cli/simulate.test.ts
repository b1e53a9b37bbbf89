import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const run = runCli;

describe('snapgate simulate …', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    c = await authenticate(gw.url, await gw.createMerchant());
  });
  after(() => gw.close());

  it('pays a QRIS by referenceNo and by its qrContent', async () => {
    const a = (
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'CLI-1',
        amount: { value: '1000.00', currency: 'IDR' },
      })
    ).body;
    const r = await run(gw, 'simulate', 'qris', a.referenceNo, '--payer-name', 'ANI');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /status\s+00/);
    const b = (
      await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: 'CLI-2',
        amount: { value: '1000.00', currency: 'IDR' },
      })
    ).body;
    const s = await run(gw, 'simulate', 'qris', '--qr-content', b.qrContent, '--status', '03', '--json');
    assert.equal(s.code, 0, s.err);
    assert.equal(JSON.parse(s.out).status, '03');
  });

  it('pays a VA, typed without its leading spaces, and reports a refused payment with its SNAP code', async () => {
    const d = (
      await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'CLI',
        trxId: 'CLI-VA-1',
        totalAmount: { value: '5000.00', currency: 'IDR' },
      })
    ).body.virtualAccountData;
    const wrong = await run(gw, 'simulate', 'va', d.virtualAccountNo.trim(), '--amount', '1.00');
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /4042513/);
    const ok = await run(gw, 'simulate', 'va', d.virtualAccountNo.trim());
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /status\s+00/);
  });

  it('exits 2 on bad usage', async () => {
    assert.equal((await run(gw, 'simulate', 'qris')).code, 2);
    assert.equal((await run(gw, 'simulate', 'va')).code, 2);
    assert.equal((await run(gw, 'simulate', 'qris', 'x', '--qr-content', 'y')).code, 2);
  });
});

describe('admin API: transactions', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
  });
  after(() => gw.close());

  it('lists with merchant and status filters and a cursor, and shows one with history', async () => {
    const m1 = await gw.createMerchant();
    const m2 = await gw.createMerchant();
    const c1 = await authenticate(gw.url, m1);
    const c2 = await authenticate(gw.url, m2);
    const refs: string[] = [];
    for (let i = 0; i < 5; i++) {
      refs.push(
        (
          await snapCall(gw.url, c1, '/api/snap/v1.0/qr/qr-mpm-generate', {
            partnerReferenceNo: `L-${i}`,
            amount: { value: '1.00', currency: 'IDR' },
          })
        ).body.referenceNo,
      );
    }
    await snapCall(gw.url, c2, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'L-x',
      amount: { value: '1.00', currency: 'IDR' },
    });
    await gw.admin('POST', `/sandbox/qris/${refs[0]}/pay`, {});
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Array<{ referenceNo: string; merchantId: string }>; nextCursor: string | null } } =
        await gw.admin(
          'GET',
          `/transactions?merchantId=${m1.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
      for (const t of page.body.items) {
        assert.equal(t.merchantId, m1.id);
        seen.push(t.referenceNo);
      }
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.deepEqual(seen.sort(), [...refs].sort());
    const paid = await gw.admin('GET', `/transactions?merchantId=${m1.id}&status=00`);
    assert.deepEqual(
      paid.body.items.map((t: { referenceNo: string }) => t.referenceNo),
      [refs[0]],
    );
    const shown = await gw.admin('GET', `/transactions/${refs[0]}`);
    assert.equal(shown.body.statusHistory.length, 2);
    assert.equal(shown.body.notifications.length, 1);
    assert.equal((await gw.admin('GET', '/transactions?status=99')).status, 400);
    assert.equal((await gw.admin('GET', '/transactions/nope')).status, 404);
  });

  it('has no sandbox in production mode', async () => {
    const prod = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    try {
      assert.equal((await prod.admin('POST', '/sandbox/qris/x/pay', {})).status, 404);
      // The CLI says why, and how to pay there instead.
      for (const args of [
        ['simulate', 'qris', '261126000000000001'],
        ['simulate', 'va', '999000000000001'],
      ]) {
        const r = await runCli(prod, ...args);
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.err, /production mode: there is no sandbox\. Pay as the provider instead: --provider-key/);
      }
    } finally {
      await prod.close();
    }
  });
});

// docs/operations.md#money-bounds: amounts at the edge of the range. A single amount is at most
// 100 trillion rupiah; one merchant holds at most 1,000 trillion unsettled; every sum the books make
// is exact past 2^53 sen (SQLite reads such integers as BigInts) and never overflows; a settlement
// run that fails for one merchant settles the others. Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestGateway } from '../helpers/gateway.ts';
import { gatewayWithRawSql, type RawSql } from '../helpers/raw-sql.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
const EXCEEDS = (svc: string) => ({ responseCode: `403${svc}02`, responseMessage: 'Exceeds Transaction Amount Limit' });

export function moneyBoundsSuite(engine: 'SQLite' | 'PostgreSQL'): void {
  describe(`money bounds: amounts at the edge of the range (${engine})`, () => {
    let gw: TestGateway;
    // Raw SQL on the gateway's own database, for what no door may do (a database from before the bounds).
    let raw: RawSql;
    let close = async () => undefined as unknown;
    before(async () => {
      ({ gw, raw, close } = await gatewayWithRawSql(engine));
    });
    after(() => close());

    async function merchant(): Promise<{ id: string; caller: SnapCaller }> {
      const m = await gw.createMerchant();
      return { id: m.id, caller: await authenticate(gw.url, m) };
    }

    async function createVa(caller: SnapCaller, amount: string, trxId: string) {
      const r = await snapCall(gw.url, caller, `${API}/transfer-va/create-va`, {
        virtualAccountName: 'Bounds',
        trxId,
        totalAmount: idr(amount),
      });
      assert.equal(r.status, 200, r.text);
      return r.body.virtualAccountData as { virtualAccountNo: string };
    }

    const payVa = (virtualAccountNo: string) =>
      gw.admin('POST', `/sandbox/va/${encodeURIComponent(virtualAccountNo)}/pay`, {});

    it('refuses an amount over 100,000,000,000,000.00 at QRIS generate, VA create and VA update', async () => {
      const { caller } = await merchant();
      const over = '100000000000000.01';
      const va = await snapCall(gw.url, caller, `${API}/transfer-va/create-va`, {
        virtualAccountName: 'Over',
        trxId: 'OVER-1',
        totalAmount: idr(over),
      });
      assert.equal(va.status, 403);
      assert.deepEqual(va.body, EXCEEDS('27'));
      const qr = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: 'OVER-Q',
        amount: idr('9999999999999999.99'),
      });
      assert.equal(qr.status, 403);
      assert.deepEqual(qr.body, EXCEEDS('47'));
      const created = await createVa(caller, '100000000000000.00', 'EDGE-1');
      const update = await snapCall(
        gw.url,
        caller,
        `${API}/transfer-va/update-va`,
        { ...created, trxId: 'EDGE-1', totalAmount: idr(over) },
        { method: 'PUT' },
      );
      assert.equal(update.status, 403, update.text);
      assert.deepEqual(update.body, EXCEEDS('28'));
    });

    it('posts, settles and reports a payment above 2^53 sen exactly', async () => {
      const m = await merchant();
      const amount = '90071992547409.93'; // 2^53 + 1 sen past 90071992547409.91
      const va = await createVa(m.caller, amount, 'EXACT-1');
      const paid = await payVa(va.virtualAccountNo);
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      const balance = await gw.admin('GET', `/merchants/${m.id}/balance`);
      assert.equal(balance.body.pending, amount);
      const entries = await gw.admin('GET', `/ledger/entries?merchantId=${m.id}`);
      const credit = entries.body.items[0].lines.find((l: { account: string }) => l.account.endsWith(':pending'));
      assert.equal(credit.credit, amount);
      const run = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      assert.equal(run.body.items[0].gross, amount);
      assert.equal(run.body.items[0].net, amount);
      const csv = await fetch(`${gw.url}/admin/v1/settlements/${run.body.items[0].id}/report.csv`, {
        headers: { authorization: `Bearer ${(await import('../helpers/gateway.ts')).ADMIN_TOKEN}` },
      });
      assert.match(await csv.text(), /,90071992547409\.93,0\.00,90071992547409\.93,/);
      const verify = await gw.admin('GET', '/ledger/verify');
      assert.equal(verify.body.ok, true, JSON.stringify(verify.body.problems));
    });

    it('holds one merchant to 1,000,000,000,000,000.00 unsettled, and a settlement makes room', async () => {
      const m = await merchant();
      const max = '100000000000000.00';
      const vas = [];
      for (let i = 1; i <= 11; i++) vas.push(await createVa(m.caller, max, `FULL-${i}`));
      for (const va of vas.slice(0, 10)) assert.equal((await payVa(va.virtualAccountNo)).status, 200);
      const eleventh = vas[10] as { virtualAccountNo: string };
      const refused = await payVa(eleventh.virtualAccountNo);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.responseCode, '4032502');
      const txn = await gw.store.findTransactionByVirtualAccountNo(eleventh.virtualAccountNo);
      assert.equal(txn?.status, '01', 'the refused payment changed nothing');
      const notes = await gw.admin('GET', `/notifications?referenceNo=${txn?.referenceNo}`);
      assert.deepEqual(notes.body.items, []);
      assert.equal((await gw.admin('GET', `/merchants/${m.id}/balance`)).body.pending, '1000000000000000.00');

      const run = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      assert.equal(run.body.items[0].net, '1000000000000000.00');
      assert.equal((await payVa(eleventh.virtualAccountNo)).status, 200);
      const balance = await gw.admin('GET', `/merchants/${m.id}/balance`);
      assert.deepEqual([balance.body.pending, balance.body.settling], [max, '1000000000000000.00']);
      const verify = await gw.admin('GET', '/ledger/verify');
      assert.equal(verify.body.ok, true, JSON.stringify(verify.body.problems));
    });

    it('goes on settling other merchants when one merchant’s settlement fails', async () => {
      const broken = await merchant();
      const healthy = await merchant();
      const va = await createVa(healthy.caller, '25000.00', 'HEALTHY-1');
      assert.equal((await payVa(va.virtualAccountNo)).status, 200);
      // A database written before the bounds: eleven entries of nearly 10^16 rupiah, more than a
      // 64-bit settlement can hold. Its counter is switched off for them, as it did not exist then.
      await raw.exec(
        engine === 'SQLite'
          ? 'DROP TRIGGER ledger_unsettled_in'
          : 'ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_unsettled',
      );
      for (let i = 1; i <= 11; i++) {
        await raw.exec(
          `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen)
           VALUES (?, 'payment', ?, ?, 'sandbox-bank', ?, 999999999999999999, 0)`,
          [Date.now() - 1000, `payment:BROKEN-${i}`, broken.id, `BROKEN-${i}`],
        );
      }
      // As migration 033 found them: in the unsettled queue (on PostgreSQL the switched-off trigger
      // writes the queue too).
      await raw.exec(
        `INSERT INTO unsettled_entries (entry_id, merchant_id, at)
         SELECT id, merchant_id, at FROM ledger_entries WHERE merchant_id = ? ON CONFLICT (entry_id) DO NOTHING`,
        [broken.id],
      );
      // The balance is the running totals, which the switched-off counter never moved; verification
      // sums the entries themselves, exactly past 2^63 sen, and names the difference.
      const verify = await gw.admin('GET', '/ledger/verify');
      const differs = (verify.body.problems as Array<{ type: string; merchantId?: string; message: string }>).find(
        (p) => p.type === 'running_totals' && p.merchantId === broken.id,
      );
      assert.match(
        differs?.message ?? '',
        /its entries' \(pending 109999999999999999\.89,/,
        'summed exactly past 2^63 sen',
      );

      const run = await gw.admin('POST', '/settlements', {});
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const made = new Map(run.body.items.map((s: { merchantId: string; net: string }) => [s.merchantId, s.net]));
      assert.equal(made.get(healthy.id), '25000.00', 'the healthy merchant is settled');
      assert.equal(made.has(broken.id), false, 'the broken merchant is not');
      assert.ok(
        gw.logs.some((l) => l.includes('settlement of one merchant failed') && l.includes(broken.id)),
        'the failure is logged with its merchant',
      );
    });
  });
}

// docs/books.md#ledger and #settlements: every payment and refund posts one balanced entry in the
// transaction of its status change; balances; settlements take each entry once and are paid out
// once; verification finds what is wrong. Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type Database from 'better-sqlite3';
import type pg from 'pg';
import { paymentEntry } from '../../src/books/postings.ts';
import type { TransactionRecord } from '../../src/records/records.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

/**
 * A statement run on the database itself, past the gateway (to prove what the database refuses, or
 * what it holds): the rows it reads.
 */
export async function rawSql(gw: TestGateway, text: string): Promise<Array<Record<string, unknown>>> {
  const raw = gw.store as unknown as { kind: string; db?: Database.Database; pool?: pg.Pool };
  if (raw.kind === 'sqlite') {
    const statement = raw.db?.prepare(text);
    if (statement?.reader) return statement.all() as Array<Record<string, unknown>>;
    statement?.run();
    return [];
  }
  return (await raw.pool?.query(text))?.rows ?? [];
}

export function ledgerSuite(under: StoreUnderTest): void {
  describe(`the ledger, balances and settlements (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let acquirerId: string;
    let bankId: string;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
      bankId = (await gw.store.getSetting('sandbox_bank_provider_id')) as string;
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    async function merchant(settings: Record<string, unknown> = {}): Promise<{ id: string; caller: SnapCaller }> {
      const m = await gw.createMerchant(settings);
      return { id: m.id, caller: await authenticate(gw.url, m) };
    }
    async function qris(c: SnapCaller, amount: string): Promise<string> {
      const g = await snapCall(gw.url, c, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `LEDGER-${++seq}`,
        amount: idr(amount),
      });
      assert.equal(g.status, 200, g.text);
      return g.body.referenceNo as string;
    }
    const pay = async (referenceNo: string) =>
      assert.equal((await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, {})).status, 200);
    const entriesOf = async (query: string) => {
      const r = await gw.admin('GET', `/ledger/entries?${query}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.items as Array<{
        id: string;
        kind: string;
        providerId?: string;
        referenceNo?: string;
        refundNo?: string;
        settlementId?: string;
        lines: Array<{ account: string; debit: string; credit: string }>;
      }>;
    };
    const balanceOf = async (merchantId: string) => {
      const r = await gw.admin('GET', `/merchants/${merchantId}/balance`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    };
    /** The books verified: what is new (incremental), or the whole journal (`full`). */
    const verify = async (full = false) => {
      const r = await gw.admin('GET', `/ledger/verify${full ? '?full=true' : ''}`);
      assert.equal(r.status, 200, gw.logs.filter((l) => l.includes('"level":50')).join('\n'));
      return r.body as { ok: boolean; entries: number; problems: Array<{ type: string; message: string }> };
    };
    async function refund(c: SnapCaller, referenceNo: string, amount: string) {
      const txn = await gw.store.findTransaction(referenceNo);
      const r = await snapCall(gw.url, c, `${API}/qr/qr-mpm-refund`, {
        originalReferenceNo: referenceNo,
        originalPartnerReferenceNo: txn?.partnerReferenceNo,
        partnerRefundNo: `RF-${++seq}`,
        refundAmount: idr(amount),
        reason: 'customer asked',
      });
      assert.equal(r.status, 200, r.text);
      return r.body as { refundNo: string };
    }

    it('posts a payment once: the acquirer’s account debited, the merchant’s pending and the fees credited', async () => {
      const m = await merchant({ fees: { qris: { percent: '0.70' } } });
      const ref = await qris(m.caller, '100000.00');
      assert.deepEqual(await entriesOf(`referenceNo=${ref}`), [], 'nothing before it is paid');
      await pay(ref);
      // Notified paid again (the acquirer repeats itself): nothing more is posted.
      await gw.admin('POST', `/sandbox/qris/${ref}/pay`, {});
      const entries = await entriesOf(`referenceNo=${ref}`);
      assert.equal(entries.length, 1);
      const [e] = entries;
      assert.equal(e?.kind, 'payment');
      assert.equal(e?.providerId, acquirerId);
      assert.deepEqual(e?.lines, [
        { account: `provider:${acquirerId}`, debit: '100000.00', credit: '0.00' },
        { account: `merchant:${m.id}:pending`, debit: '0.00', credit: '99300.00' },
        { account: 'fees', debit: '0.00', credit: '700.00' },
      ]);
      assert.deepEqual(await balanceOf(m.id), {
        merchantId: m.id,
        currency: 'IDR',
        pending: '99300.00',
        settling: '0.00',
        paidOut: '0.00',
        fees: '700.00',
      });
      assert.deepEqual((await verify()).problems, []);
    });

    it('posts a VA payment to the bank that flagged it, once, even when the flag is repeated', async () => {
      const m = await merchant({ fees: { va: { fixed: '2500.00' } } });
      const created = await snapCall(gw.url, m.caller, `${API}/transfer-va/create-va`, {
        virtualAccountName: 'Budi',
        trxId: `LEDGER-VA-${++seq}`,
        totalAmount: idr('150000.00'),
      });
      assert.equal(created.status, 200, created.text);
      const va = created.body.virtualAccountData.virtualAccountNo as string;
      assert.equal((await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va)}/pay`, {})).status, 200);
      const txn = await gw.store.findTransactionByVirtualAccountNo(va);
      const entries = await entriesOf(`referenceNo=${txn?.referenceNo}`);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]?.providerId, bankId);
      assert.deepEqual(entries[0]?.lines[0], { account: `provider:${bankId}`, debit: '150000.00', credit: '0.00' });
      assert.equal((await balanceOf(m.id)).pending, '147500.00');
    });

    it('posts refunds against the merchant’s pending balance; the fee stays charged', async () => {
      const m = await merchant({ fees: { qris: { percent: '1.00' } } });
      const ref = await qris(m.caller, '50000.00');
      await pay(ref);
      const partial = await refund(m.caller, ref, '10000.00');
      const rest = await refund(m.caller, ref, '40000.00');
      assert.equal((await gw.store.findTransaction(ref))?.status, '04');
      const refunds = await entriesOf(`referenceNo=${ref}&kind=refund`);
      assert.deepEqual(refunds.map((e) => e.refundNo).sort(), [partial.refundNo, rest.refundNo].sort());
      for (const e of refunds) assert.equal(e.lines[1]?.account, `provider:${acquirerId}`);
      const b = await balanceOf(m.id);
      assert.equal(b.pending, '-500.00', 'the 500.00 fee is not returned');
      assert.equal(b.fees, '500.00');
      assert.deepEqual((await verify()).problems, []);
    });

    it('settles what is pending once, reports it, and pays it out once', async () => {
      const m = await merchant({ fees: { qris: { percent: '0.70' } } });
      const paid = [await qris(m.caller, '12345.00'), await qris(m.caller, '20000.00')];
      for (const ref of paid) await pay(ref);
      await refund(m.caller, paid[1] as string, '5000.00');
      const run = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const [s] = run.body.items;
      assert.equal(s.status, 'open');
      assert.equal(s.count, 2);
      assert.equal(s.gross, '32345.00');
      assert.equal(s.fees, '226.00', '86.00 + 140.00');
      assert.equal(s.refunds, '5000.00');
      assert.equal(s.net, '27119.00');
      let b = await balanceOf(m.id);
      assert.equal(b.pending, '0.00');
      assert.equal(b.settling, '27119.00');
      // Nothing left: a second run makes none.
      assert.deepEqual((await gw.admin('POST', '/settlements', { merchantId: m.id })).body.items, []);

      const shown = await gw.admin('GET', `/settlements/${s.id}`);
      assert.equal(shown.status, 200);
      assert.equal(shown.body.entries.length, 3);
      const csv = await fetch(`${gw.url}/admin/v1/settlements/${s.id}/report.csv`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
      const rows = (await csv.text()).trim().split('\r\n');
      assert.equal(
        rows[0],
        'referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName',
      );
      const cells = rows.slice(1).map((r) => r.split(','));
      const sum = (i: number) => cells.reduce((a, c) => a + Math.round(Number(c[i]) * 100), 0);
      assert.equal(sum(4), 2734500, 'amounts: 32,345.00 less the 5,000.00 refund');
      assert.equal(sum(5), 22600);
      assert.equal(sum(6), 2711900, 'the rows’ net is the settlement’s');
      assert.ok(cells.some((c) => c[2] === 'refund' && c[4] === '-5000.00' && c[5] === '0.00'));
      // A refund row names its refund; every row its method and its provider by name.
      assert.ok(
        cells.some((c) => c[2] === 'refund' && /^RF\d{16}$/.test(c[9] as string)),
        rows.join('\n'),
      );
      assert.ok(
        cells.every((c) => c[10] === 'qris' && c[11] === 'Sandbox Acquirer'),
        rows.join('\n'),
      );
      assert.ok(cells.every((c) => /\+07:00$/.test(c[3] as string)));

      assert.equal((await gw.admin('POST', `/settlements/${s.id}/payout`, { bankReference: '' })).status, 400);
      // `{}` pays through the bank (docs/payouts.md): this merchant has no verified account.
      assert.equal((await gw.admin('POST', `/settlements/${s.id}/payout`, {})).status, 409, 'no payoutAccount');
      const out = await gw.admin('POST', `/settlements/${s.id}/payout`, { bankReference: 'TRF-0001' });
      assert.equal(out.status, 200, gw.logs.filter((l) => l.includes('"level":50')).join('\n'));
      assert.equal(out.body.status, 'paid');
      assert.equal(out.body.bankReference, 'TRF-0001');
      assert.equal((await gw.admin('POST', `/settlements/${s.id}/payout`, { bankReference: 'TRF-0002' })).status, 409);
      b = await balanceOf(m.id);
      assert.deepEqual([b.pending, b.settling, b.paidOut], ['0.00', '0.00', '27119.00']);
      const listed = await gw.admin('GET', `/settlements?merchantId=${m.id}&status=paid`);
      assert.deepEqual(
        listed.body.items.map((x: { id: string }) => x.id),
        [s.id],
      );
      assert.deepEqual((await verify()).problems, []);
    });

    it('writes the report for a spreadsheet: the summary above the table, digit references as text', async () => {
      const m = await merchant({ fees: { qris: { percent: '0.70' } } });
      const paid = [await qris(m.caller, '12345.00'), await qris(m.caller, '20000.00')];
      for (const ref of paid) await pay(ref);
      await refund(m.caller, paid[1] as string, '5000.00');
      const [s] = (await gw.admin('POST', '/settlements', { merchantId: m.id })).body.items;
      const out = await gw.admin('POST', `/settlements/${s.id}/payout`, { bankReference: '0012345678901234567' });
      assert.equal(out.status, 200, JSON.stringify(out.body));
      const name = (await gw.admin('GET', `/merchants/${m.id}`)).body.merchantName as string;
      const report = (layout: string) =>
        fetch(`${gw.url}/admin/v1/settlements/${s.id}/report.csv?layout=${layout}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
      const res = await report('spreadsheet');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-disposition') ?? '', /filename="settlement-stl_\w+-spreadsheet\.csv"/);
      const bytes = Buffer.from(await res.arrayBuffer());
      assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 byte order mark');
      const [top, table] = bytes.toString('utf8').slice(1).split('\r\n\r\n') as [string, string];
      const summary = Object.fromEntries(
        top.split('\r\n').map((line) => [line.slice(0, line.indexOf(',')), line.slice(line.indexOf(',') + 1)]),
      );
      assert.deepEqual(summary, {
        'Settlement report': s.id,
        Merchant: name,
        'Merchant id': m.id,
        'Entries up to': summary['Entries up to'],
        'Made at': summary['Made at'],
        Status: 'paid',
        Payments: '2',
        Gross: '32345.00',
        Fees: '-226.00',
        Refunds: '-5000.00',
        Disbursed: '0.00',
        Returned: '0.00',
        Net: '27119.00',
        'Paid out at': summary['Paid out at'],
        'Bank reference': '"=""0012345678901234567"""',
      });
      for (const at of ['Entries up to', 'Made at', 'Paid out at']) assert.match(summary[at] as string, /\+07:00$/, at);
      const sum = ['Gross', 'Fees', 'Refunds', 'Disbursed', 'Returned'].reduce(
        (a, k) => a + Math.round(Number(summary[k]) * 100),
        0,
      );
      assert.equal(sum, 2711900, 'the lines from Gross to Returned add up to Net');
      const rows = table.trim().split('\r\n');
      assert.equal(
        rows[0],
        'referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName',
      );
      assert.equal(rows.length, 4);
      for (const ref of paid) {
        assert.ok(
          rows.some((r) => r.startsWith(`"=""${ref}""",`)),
          `${ref} is written as text: ${rows.join('\n')}`,
        );
      }
      // The plain report is unchanged: the header first, the references as they are.
      const plain = (await (await report('data')).text()).split('\r\n');
      assert.equal(plain[0], rows[0]);
      assert.ok(plain.some((r) => r.startsWith(`${paid[0]},`)));
      assert.equal((await report('pdf')).status, 400);
    });

    it('takes only entries before the cutoff, refuses a cutoff in the future and an unknown merchant', async () => {
      const m = await merchant();
      const ref = await qris(m.caller, '1000.00');
      await pay(ref);
      const early = new Date(Date.now() - 3_600_000).toISOString();
      assert.deepEqual((await gw.admin('POST', '/settlements', { merchantId: m.id, cutoff: early })).body.items, []);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      assert.equal((await gw.admin('POST', '/settlements', { merchantId: m.id, cutoff: future })).status, 400);
      assert.equal((await gw.admin('POST', '/settlements', { merchantId: 'nope' })).status, 404);
      assert.equal((await gw.admin('POST', '/settlements', { cutoff: 'yesterday' })).status, 400);
      assert.equal((await gw.admin('POST', '/settlements', { merchantId: m.id, extra: 1 })).status, 400);
      assert.equal((await gw.admin('GET', '/settlements/nope')).status, 404);
      assert.equal((await gw.admin('POST', '/settlements/nope/payout', { bankReference: 'X' })).status, 404);
      assert.equal((await gw.admin('GET', '/ledger/entries?kind=fee')).status, 400);
      assert.equal((await gw.admin('GET', '/merchants/nope/balance')).status, 404);
      const all = await gw.admin('POST', '/settlements', {});
      assert.ok(all.body.items.some((x: { merchantId: string }) => x.merchantId === m.id));
    });

    it('puts each of 20 payments racing a settlement in exactly one settlement, or leaves it pending', async () => {
      const m = await merchant();
      const refs = await Promise.all(Array.from({ length: 20 }, () => qris(m.caller, '1000.00')));
      const runs: Promise<{ status: number; body: { items: Array<{ id: string }> } }>[] = [];
      await Promise.all(
        refs.map(async (ref, i) => {
          if (i % 5 === 0) runs.push(gw.admin('POST', '/settlements', { merchantId: m.id }));
          await pay(ref);
        }),
      );
      runs.push(gw.admin('POST', '/settlements', { merchantId: m.id }));
      const made = (await Promise.all(runs)).flatMap((r) => {
        assert.equal(r.status, 201);
        return r.body.items;
      });
      const taken = new Map<string, string>();
      for (const s of made) {
        const shown = await gw.admin('GET', `/settlements/${s.id}`);
        for (const e of shown.body.entries as Array<{ referenceNo: string }>) {
          assert.equal(taken.has(e.referenceNo), false, `${e.referenceNo} is in two settlements`);
          taken.set(e.referenceNo, s.id);
        }
      }
      const b = await balanceOf(m.id);
      assert.equal(Number(b.pending) + Number(b.settling), 20_000, 'every payment is settled or pending, once');
      assert.equal(Number(b.settling), taken.size * 1000);
      assert.deepEqual((await verify()).problems, []);
    });

    it('keeps the journal append-only: the database refuses to change or delete an entry', async () => {
      await assert.rejects(
        rawSql(gw, "UPDATE ledger_entries SET amount_sen = 1 WHERE kind = 'payment'"),
        /append-only/,
      );
      await assert.rejects(rawSql(gw, 'DELETE FROM ledger_entries'), /append-only/);
      await assert.rejects(rawSql(gw, 'DELETE FROM settlement_items'), /append-only/);
    });

    it('keeps one payment entry per transaction: a second payment of a paid transaction posts nothing', async () => {
      const m = await merchant();
      const ref = await qris(m.caller, '5000.00');
      await pay(ref);
      const paid = (await gw.store.findTransaction(ref)) as TransactionRecord;
      // As if the guarded change were reached again from 01 by a bug: the transaction already names its entry.
      const again = gw.store
        .changeStatus({
          referenceNo: ref,
          expectedSeq: paid.seq,
          status: '00',
          statusDesc: 'Success',
          reason: 'twice',
          at: Date.now(),
          ledger: paymentEntry(paid, acquirerId, Date.now()),
        })
        .catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      const outcome = await again;
      assert.ok(outcome === undefined || outcome instanceof Error, 'refused: not changed, or an error');
      assert.equal((await gw.store.findTransaction(ref))?.seq, paid.seq, 'the transaction is unchanged');
      assert.equal((await entriesOf(`referenceNo=${ref}`)).length, 1);
      assert.deepEqual((await verify()).problems, []);
    });

    it('verification names an entry without its provider, one with a fee above its amount, and entries without their cause', async () => {
      await rawSql(
        gw,
        `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen)
         VALUES (1, 'payment', 'payment:FORGED', 'nobody', NULL, 'FORGED', 100, 0)`,
      );
      await rawSql(
        gw,
        `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen)
         VALUES (1, 'payment', 'payment:FORGED2', 'nobody', 'p', 'FORGED2', 100, 101)`,
      );
      // A paid transaction that no longer names its entry (a refund of it would post nothing).
      const m = await merchant();
      const ref = await qris(m.caller, '3000.00');
      await pay(ref);
      await rawSql(gw, `UPDATE transactions SET payment_entry_id = NULL WHERE reference_no = '${ref}'`);
      const v = await verify(true);
      assert.equal(v.ok, false);
      const types = new Set(v.problems.map((p) => p.type));
      for (const t of ['unbalanced', 'wrong_lines', 'no_cause', 'merchant_balance', 'payment_mismatch']) {
        assert.ok(types.has(t), t);
      }
      assert.ok(
        v.problems.some((p) => p.type === 'payment_mismatch' && p.message.startsWith(`${ref}: names no payment entry`)),
      );
    });
  });
}

// docs/books.md#reconciliation: a provider's report set against the gateway's records (CSV and
// JSON), every problem type, runs kept, and a missed payment applied through the provider's door:
// status 00, its ledger entry, the merchant's callback. Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

interface Problem {
  line: number | null;
  type: string;
  referenceNo?: string;
  expected?: string;
  actual?: string;
  resolvedAt?: string;
}

export function reconciliationSuite(under: StoreUnderTest): void {
  describe(`reconciliation against a provider’s report (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let acquirerId: string;
    let bankId: string;
    let caller: SnapCaller;
    let merchantId: string;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
      bankId = (await gw.store.getSetting('sandbox_bank_provider_id')) as string;
      const m = await gw.createMerchant({});
      merchantId = m.id;
      caller = await authenticate(gw.url, m);
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    async function qris(amount: string): Promise<string> {
      const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `RECON-${++seq}`,
        amount: idr(amount),
      });
      assert.equal(g.status, 200, g.text);
      return g.body.referenceNo as string;
    }
    const pay = async (referenceNo: string, status = '00') =>
      assert.equal((await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, { status })).status, 200);
    async function post(providerId: string, body: string, contentType: string) {
      const res = await fetch(`${gw.url}/admin/v1/providers/${providerId}/reconciliations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
        body,
      });
      return { status: res.status, body: await res.json() };
    }
    const now = () => formatJakartaTimestamp(Date.now());
    const byLine = (problems: Problem[]) => new Map(problems.map((p) => [p.line, p]));

    it('classifies every difference of a CSV report, keeps the run, and applies a missed payment once', async () => {
      const matched = await qris('10000.00');
      await pay(matched);
      const byProviderRef = await qris('11000.00');
      await pay(byProviderRef);
      const acquirerRef = (await gw.store.findTransaction(byProviderRef))?.details as { acquirerReferenceNo?: string };
      const missed = await qris('12000.00');
      const wrongAmount = await qris('13000.00');
      await pay(wrongAmount);
      const failed = await qris('14000.00');
      await pay(failed, '06');
      const notReported = await qris('15000.00');
      await pay(notReported);
      const csv = [
        'referenceNo,providerReference,amount,paidAt,status',
        `${matched},,10000.00,${now()},00`,
        `,${acquirerRef.acquirerReferenceNo},11000.00,${now()},`,
        `${missed},ACQ-MISSED-1,12000.00,${now()},00`,
        `${wrongAmount},,1300.00,${now()},00`,
        `${failed},,14000.00,${now()},00`,
        `${matched},,10000.00,${now()},00`,
        `QR000000000000UNKNOWN,,9000.00,${now()},00`,
      ].join('\r\n');
      const r = await post(acquirerId, csv, 'text/csv');
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.providerId, acquirerId);
      assert.equal(r.body.lines, 7);
      assert.equal(r.body.matched, 2, 'lines 1 and 2');
      assert.match(r.body.from, /^\d{4}-\d{2}-\d{2}$/);
      const p = byLine(r.body.problems);
      assert.deepEqual(p.get(3), {
        line: 3,
        type: 'missing_at_gateway',
        referenceNo: missed,
        expected: '01',
        actual: '00',
      });
      assert.deepEqual(p.get(4), {
        line: 4,
        type: 'amount_mismatch',
        referenceNo: wrongAmount,
        expected: '13000.00',
        actual: '1300.00',
      });
      assert.deepEqual(p.get(5), {
        line: 5,
        type: 'status_mismatch',
        referenceNo: failed,
        expected: '06',
        actual: '00',
      });
      assert.equal(p.get(6)?.type, 'duplicate');
      assert.equal(p.get(6)?.referenceNo, matched);
      assert.equal(p.get(7)?.type, 'missing_at_gateway');
      const absent = (r.body.problems as Problem[]).filter((x) => x.type === 'missing_at_provider');
      assert.ok(
        absent.some((x) => x.line === null && x.referenceNo === notReported),
        JSON.stringify(r.body.problems),
      );

      // Kept: listed and shown.
      const listed = await gw.admin('GET', `/providers/${acquirerId}/reconciliations`);
      assert.equal(listed.body.items[0].id, r.body.id);
      assert.deepEqual((await gw.admin('GET', `/reconciliations/${r.body.id}`)).body.problems, r.body.problems);

      // Applied as the acquirer would have notified it: 00, one payment entry, the merchant's callback.
      const applied = await gw.admin('POST', `/reconciliations/${r.body.id}/problems/3/apply`);
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      assert.equal(applied.body.referenceNo, missed);
      const txn = await gw.store.findTransaction(missed);
      assert.equal(txn?.status, '00');
      const entries = await gw.admin('GET', `/ledger/entries?referenceNo=${missed}`);
      assert.equal(entries.body.items.length, 1);
      assert.equal(entries.body.items[0].providerId, acquirerId);
      const notes = await gw.store.notificationsOf(missed);
      const body = JSON.parse(notes[notes.length - 1]?.body as string);
      assert.equal(body.latestTransactionStatus, '00');
      // No payer the acquirer did not report: none made up from its bank code.
      assert.deepEqual(
        [body.additionalInfo.payerIssuer, body.additionalInfo.payerName, body.additionalInfo.payerRefId],
        ['', '', ''],
      );
      // Its history says who applied it, from which run and line, for which acquirer.
      assert.match(
        (await gw.store.statusHistory(missed)).at(-1)?.reason ?? '',
        new RegExp(
          `^applied from reconciliation ${r.body.id} line 3 by admin key bootstrap \\(acquirer ${acquirerId}\\)$`,
        ),
      );
      const shown = (await gw.admin('GET', `/reconciliations/${r.body.id}`)).body.problems as Problem[];
      assert.ok(shown.find((x) => x.line === 3)?.resolvedAt);

      // Twice, another kind of problem, an unknown reference, a line with no problem: 409.
      assert.equal((await gw.admin('POST', `/reconciliations/${r.body.id}/problems/3/apply`)).status, 409);
      assert.equal((await gw.admin('POST', `/reconciliations/${r.body.id}/problems/4/apply`)).status, 409);
      assert.equal((await gw.admin('POST', `/reconciliations/${r.body.id}/problems/7/apply`)).status, 409);
      assert.equal((await gw.admin('POST', `/reconciliations/${r.body.id}/problems/1/apply`)).status, 404);
      assert.equal((await gw.admin('POST', '/reconciliations/nope/problems/1/apply')).status, 404);
      assert.equal((await gw.store.findTransaction(missed))?.seq, txn?.seq, 'nothing changed again');
      assert.equal((await gw.admin('GET', '/ledger/verify')).body.ok, true);
      assert.ok(merchantId);
    });

    it('reads the JSON form, and applies a bank’s missed VA payment through its payment flag', async () => {
      const created = await snapCall(gw.url, caller, `${API}/transfer-va/create-va`, {
        virtualAccountName: 'Budi',
        trxId: `RECON-VA-${++seq}`,
        totalAmount: idr('75000.00'),
      });
      assert.equal(created.status, 200, created.text);
      const va = created.body.virtualAccountData.virtualAccountNo as string;
      const txn = await gw.store.findTransactionByVirtualAccountNo(va);
      const r = await post(
        bankId,
        JSON.stringify({
          items: [
            { referenceNo: txn?.referenceNo, providerReference: 'BANK-PAY-77', amount: '75000.00', paidAt: now() },
          ],
        }),
        'application/json',
      );
      assert.equal(r.status, 201, JSON.stringify(r.body));
      assert.equal(r.body.problems[0].type, 'missing_at_gateway');
      const applied = await gw.admin('POST', `/reconciliations/${r.body.id}/problems/1/apply`);
      assert.equal(applied.status, 200, JSON.stringify(applied.body));
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(va))?.status, '00');
      assert.ok(await gw.store.findVaPayment(bankId, 'BANK-PAY-77'), 'recorded as the bank’s payment flag');
      const ref = txn?.referenceNo as string;
      assert.match(
        (await gw.store.statusHistory(ref)).at(-1)?.reason ?? '',
        new RegExp(`^applied from reconciliation ${r.body.id} line 1 by admin key bootstrap \\(bank ${bankId}\\)$`),
      );
      const vaNotes = await gw.store.notificationsOf(ref);
      const paid = JSON.parse(vaNotes[vaNotes.length - 1]?.body as string);
      assert.deepEqual(
        [paid.additionalInfo.payerIssuer, paid.additionalInfo.payerName, paid.additionalInfo.payerRefId],
        ['', '', ''],
        'no payer the bank did not report (not the VA’s own name, not its bank code)',
      );
      // Matched by its providerReference now.
      const again = await post(
        bankId,
        JSON.stringify({ items: [{ providerReference: 'BANK-PAY-77', amount: '75000.00', paidAt: now() }] }),
        'application/json',
      );
      assert.equal(again.status, 201);
      assert.equal(again.body.matched, 1);
    });

    it('takes a report of thousands of lines (up to 8 MiB), and audits it by its size only', async () => {
      const at = now();
      const items = Array.from({ length: 3000 }, (_, i) => ({
        providerReference: `BULK-${String(i).padStart(6, '0')}`,
        amount: '1000.00',
        paidAt: at,
        status: '06',
      }));
      const body = JSON.stringify({ items });
      assert.ok(body.length > 64 * 1024);
      const r = await post(acquirerId, body, 'application/json');
      assert.equal(r.status, 201, JSON.stringify(r.body).slice(0, 300));
      assert.equal(r.body.lines, 3000);
      const audit = await gw.admin('GET', `/audit?target=${acquirerId}&limit=1`);
      assert.deepEqual(audit.body.items[0].request, { omitted: 'a body over 64 KiB', bytes: body.length });
      const csv = [
        'referenceNo,providerReference,amount,paidAt,status',
        ...items.map((x) => `,${x.providerReference},1000.00,${at},06`),
      ];
      assert.equal((await post(acquirerId, csv.join('\n'), 'text/csv')).status, 201);
    });

    it('refuses a report it cannot read, naming why, and an unknown provider', async () => {
      const bad: Array<[string, string]> = [
        ['referenceNo,amount\nX,1.00', 'text/csv'],
        [`referenceNo,providerReference,amount,paidAt,status\nX,,12.5,${now()},00`, 'text/csv'],
        ['referenceNo,providerReference,amount,paidAt,status\n', 'text/csv'],
        [JSON.stringify({ items: [{ referenceNo: 'X', amount: 12, paidAt: now() }] }), 'application/json'],
        [JSON.stringify({ items: [{ referenceNo: 'X', amount: '1.00', paidAt: 'today' }] }), 'application/json'],
        [JSON.stringify([]), 'application/json'],
        ['whatever', 'text/plain'],
      ];
      for (const [body, type] of bad) {
        const r = await post(acquirerId, body, type);
        assert.equal(r.status, 400, `${type} ${body}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.status, 400);
      }
      assert.equal(
        (await post('nope', `referenceNo,providerReference,amount,paidAt,status\nX,,1.00,${now()},00`, 'text/csv'))
          .status,
        404,
      );
      assert.equal((await gw.admin('GET', '/providers/nope/reconciliations')).status, 404);
      assert.equal((await gw.admin('GET', '/reconciliations/nope')).status, 404);
    });
  });
}

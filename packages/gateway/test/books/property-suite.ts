// docs/books.md#verification, as a property: random sequences of payments (QRIS through the sandbox
// acquirer, e-wallet payments through the sandbox wallet, VAs through the sandbox bank and through a
// bank of the operator's), repeats, refunds (QRIS and e-wallet),
// settlements and payouts over several merchants, and the sandbox acquirer's reports of a random part
// of its payments (CSV or JSON, read back a page at a time; now and then spoiled with text no field
// may hold, and refused naming its line and field). After every step the ledger verifies clean (what
// is new, and the whole journal: running totals against the entries, the unsettled queue against the
// settlements) and each merchant's balance equals a model the test keeps itself. The seeds are fixed,
// so CI runs the same sequences every time; BOOKS_SEED=<n> runs another (a failure names its seed and
// step). After kill -9: test/providers/payment-crash-suite.ts.
// Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp, jakartaDay, toMinorUnits } from '@snapgate/snap';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const STEPS = 80;
/** A provider's report, as docs/books.md#the-report has it. */
const COLUMNS = ['referenceNo', 'providerReference', 'amount', 'paidAt', 'status'];
/** docs/operations.md#money-bounds: the largest single amount, and what one merchant may hold unsettled. */
const MAX_AMOUNT_SEN = 10n ** 16n;
const MAX_UNSETTLED_SEN = 10n ** 17n;
const idr = (value: string) => ({ value, currency: 'IDR' });
const money = (sen: bigint) => {
  const s = (sen < 0n ? -sen : sen).toString().padStart(3, '0');
  return `${sen < 0n ? '-' : ''}${s.slice(0, -2)}.${s.slice(-2)}`;
};

/** A small deterministic generator (mulberry32): the same seed, the same sequence. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
  };
}

interface Model {
  pending: bigint;
  /** Payments and refunds no settlement has taken yet (the bound's measure). */
  unsettled: bigint;
  settling: bigint;
  paidOut: bigint;
  fees: bigint;
}
interface Paid {
  referenceNo: string;
  merchant: number;
  kind: 'qris' | 'va' | 'ewallet';
  amountSen: bigint;
  refundedSen: bigint;
  partnerReferenceNo: string;
  repeat: () => Promise<void>;
}

export function propertySuite(under: StoreUnderTest): void {
  describe(`the books as a property: random payments, repeats, refunds, settlements, payouts, disbursements (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let bankCaller: SnapCaller;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      const bank = await gw.admin('POST', '/providers', { name: 'Bank Property', kind: 'bank', bankCode: '014' });
      assert.equal(bank.status, 201);
      bankCaller = await authenticate(gw.url, {
        clientKey: bank.body.clientKey,
        clientSecret: bank.body.clientSecret,
        partnerId: bank.body.clientKey,
      });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    const seeds = process.env.BOOKS_SEED ? [Number(process.env.BOOKS_SEED)] : [20261126, 7];
    for (const seed of seeds)
      it(`holds every invariant after every step, and the balances equal the model (seed ${seed})`, {
        timeout: 240_000,
      }, async (t) => {
        const r = random(seed);
        const merchants: Array<{ id: string; caller: SnapCaller }> = [];
        const model: Model[] = [];
        // Each merchant's fees, its disbursement fee, and its bank account at the sandbox bank, whose
        // number decides how a payout through the bank ends: 890 paid at once, 111 paid at the status
        // query, 222 failed there (docs/payouts.md#the-sandbox-bank).
        const setups = [
          {
            fees: { qris: { percent: '0.70' }, va: { fixed: '2500.00' }, disbursement: { fixed: '1000.00' } },
            account: '5551890',
          },
          { fees: {}, account: '5551111' },
          {
            fees: { qris: { percent: '1.50', fixed: '100.00' }, disbursement: { fixed: '250.00' } },
            account: '5551222',
          },
        ];
        const disbursementFee: bigint[] = [];
        for (const { fees, account } of setups) {
          const m = await gw.createMerchant({ fees, limits: { disbursementDaily: '9999999999999999.99' } });
          const verified = await gw.admin('PATCH', `/merchants/${m.id}`, {
            payoutAccount: { bankCode: '014', accountNo: account, accountName: `SANDBOX ${account.slice(-4)}` },
          });
          assert.equal(verified.status, 200, JSON.stringify(verified.body));
          merchants.push({ id: m.id, caller: await authenticate(gw.url, m) });
          model.push({ pending: 0n, unsettled: 0n, settling: 0n, paidOut: 0n, fees: 0n });
          const fixed = (fees as { disbursement?: { fixed: string } }).disbursement?.fixed;
          disbursementFee.push(fixed === undefined ? 0n : toMinorUnits(fixed));
        }
        const approver = (await gw.admin('POST', '/admin-keys', { name: `approver-${seed}`, scope: 'approve' })).body
          .key as string;
        const paid: Paid[] = [];
        const open: Array<{ id: string; merchant: number; netSen: bigint }> = [];
        /** Disbursements answered pending: how each ends is known at its status query. */
        const inFlight: Array<{ merchant: number; partnerReferenceNo: string; amountSen: bigint; fails: boolean }> = [];
        let n = 0;

        const charge = async (merchant: number, referenceNo: string) => {
          const txn = await gw.store.findTransaction(referenceNo);
          assert.equal(txn?.status, '00');
          const amount = toMinorUnits(txn?.paidAmount as string);
          const fee = toMinorUnits(txn?.feeAmount as string);
          const mm = model[merchant] as Model;
          mm.pending += amount - fee;
          mm.unsettled += amount;
          mm.fees += fee;
          return amount;
        };

        const isOverBound = (merchant: number, sen: bigint) =>
          (model[merchant] as Model).unsettled + sen > MAX_UNSETTLED_SEN;

        const steps: Record<string, () => Promise<string | undefined>> = {
          async qris() {
            const merchant = r.int(0, merchants.length - 1);
            const amount = money(BigInt(r.int(1_000, 2_000_000) * 100 + r.pick([0, 50, 99])));
            const partnerReferenceNo = `PROP-Q-${++n}`;
            const g = await snapCall(
              gw.url,
              (merchants[merchant] as { caller: SnapCaller }).caller,
              `${API}/qr/qr-mpm-generate`,
              {
                partnerReferenceNo,
                amount: idr(amount),
              },
            );
            assert.equal(g.status, 200, g.text);
            const ref = g.body.referenceNo as string;
            const pay = async () => assert.equal((await gw.admin('POST', `/sandbox/qris/${ref}/pay`, {})).status, 200);
            if (isOverBound(merchant, toMinorUnits(amount))) {
              const refused = await gw.admin('POST', `/sandbox/qris/${ref}/pay`, {});
              assert.equal(refused.body?.responseCode, '4035202', JSON.stringify(refused.body));
              return `QRIS ${amount} for merchant ${merchant}: refused, over the unsettled bound`;
            }
            await pay();
            const amountSen = await charge(merchant, ref);
            paid.push({
              referenceNo: ref,
              merchant,
              kind: 'qris',
              amountSen,
              refundedSen: 0n,
              partnerReferenceNo,
              repeat: pay,
            });
            return `QRIS ${amount} for merchant ${merchant}`;
          },
          async ewallet() {
            const merchant = r.int(0, merchants.length - 1);
            const amount = money(BigInt(r.int(1_000, 2_000_000) * 100 + r.pick([0, 50, 99])));
            const partnerReferenceNo = `PROP-E-${++n}`;
            const g = await snapCall(
              gw.url,
              (merchants[merchant] as { caller: SnapCaller }).caller,
              `${API}/debit/payment-host-to-host`,
              {
                partnerReferenceNo,
                amount: idr(amount),
                payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: idr(amount) }],
              },
            );
            assert.equal(g.status, 200, g.text);
            const ref = g.body.referenceNo as string;
            const pay = async () =>
              assert.equal((await gw.admin('POST', `/sandbox/ewallet/${ref}/pay`, {})).status, 200);
            if (isOverBound(merchant, toMinorUnits(amount))) {
              const refused = await gw.admin('POST', `/sandbox/ewallet/${ref}/pay`, {});
              assert.equal(refused.body?.responseCode, '4035602', JSON.stringify(refused.body));
              return `e-wallet ${amount} for merchant ${merchant}: refused, over the unsettled bound`;
            }
            await pay();
            const amountSen = await charge(merchant, ref);
            paid.push({
              referenceNo: ref,
              merchant,
              kind: 'ewallet',
              amountSen,
              refundedSen: 0n,
              partnerReferenceNo,
              repeat: pay,
            });
            return `e-wallet ${amount} for merchant ${merchant}`;
          },
          async va() {
            const merchant = r.int(0, merchants.length - 1);
            const viaBank = r.pick([true, false]);
            // One in four is drawn up to the largest single amount (docs/operations.md#money-bounds).
            const huge = BigInt(r.int(0, 99_999_999)) * 100_000_000n + BigInt(r.int(1, 99_999_999));
            const amount = money(
              r.int(1, 4) === 1
                ? huge > MAX_AMOUNT_SEN
                  ? MAX_AMOUNT_SEN
                  : huge
                : BigInt(r.int(10_000, 5_000_000) * 100),
            );
            const created = await snapCall(
              gw.url,
              (merchants[merchant] as { caller: SnapCaller }).caller,
              `${API}/transfer-va/create-va`,
              {
                virtualAccountName: 'Property',
                trxId: `PROP-V-${++n}`,
                totalAmount: idr(amount),
                ...(viaBank ? { additionalInfo: { bankCode: '014' } } : {}),
              },
            );
            assert.equal(created.status, 200, created.text);
            const va = created.body.virtualAccountData;
            const paymentRequestId = `PROP-PR-${n}`;
            const pay = viaBank
              ? async () => {
                  const f = await snapCall(gw.url, bankCaller, `${API}/transfer-va/payment`, {
                    partnerServiceId: va.partnerServiceId,
                    customerNo: va.customerNo,
                    virtualAccountNo: va.virtualAccountNo,
                    paymentRequestId,
                    paidAmount: idr(amount),
                  });
                  assert.equal(f.body.responseCode, '2002500', f.text);
                }
              : async () => {
                  const p = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va.virtualAccountNo)}/pay`, {});
                  assert.ok(p.status === 200 || p.body?.responseCode === '4042414', JSON.stringify(p.body));
                };
            if (isOverBound(merchant, toMinorUnits(amount))) {
              const refused = viaBank
                ? (
                    await snapCall(gw.url, bankCaller, `${API}/transfer-va/payment`, {
                      partnerServiceId: va.partnerServiceId,
                      customerNo: va.customerNo,
                      virtualAccountNo: va.virtualAccountNo,
                      paymentRequestId,
                      paidAmount: idr(amount),
                    })
                  ).body
                : (await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va.virtualAccountNo)}/pay`, {})).body;
              assert.equal(refused?.responseCode, '4032502', JSON.stringify(refused));
              return `VA ${amount} for merchant ${merchant}: refused, over the unsettled bound`;
            }
            await pay();
            const txn = await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo);
            const amountSen = await charge(merchant, txn?.referenceNo as string);
            paid.push({
              referenceNo: txn?.referenceNo as string,
              merchant,
              kind: 'va',
              amountSen,
              refundedSen: 0n,
              partnerReferenceNo: `PROP-V-${n}`,
              repeat: pay,
            });
            return `VA ${amount} for merchant ${merchant}${viaBank ? ' through bank 014' : ''}`;
          },
          async repeat() {
            if (paid.length === 0) return undefined;
            const p = r.pick(paid);
            if (p.refundedSen > 0n) return undefined;
            await p.repeat();
            return `repeat of ${p.kind} ${p.referenceNo}`;
          },
          async refund() {
            const refundable = paid.filter((p) => p.kind !== 'va' && p.refundedSen < p.amountSen);
            if (refundable.length === 0) return undefined;
            const p = r.pick(refundable);
            const left = p.amountSen - p.refundedSen;
            const sen = r.pick([left, BigInt(Math.max(1, Math.floor(Number(left) / r.int(2, 5))))]);
            if (isOverBound(p.merchant, sen)) return undefined;
            const res = await snapCall(
              gw.url,
              (merchants[p.merchant] as { caller: SnapCaller }).caller,
              p.kind === 'ewallet' ? `${API}/debit/refund` : `${API}/qr/qr-mpm-refund`,
              {
                originalReferenceNo: p.referenceNo,
                originalPartnerReferenceNo: p.partnerReferenceNo,
                partnerRefundNo: `PROP-RF-${++n}`,
                refundAmount: idr(money(sen)),
                reason: 'property',
              },
            );
            assert.equal(res.status, 200, res.text);
            p.refundedSen += sen;
            (model[p.merchant] as Model).pending -= sen;
            (model[p.merchant] as Model).unsettled += sen;
            return `refund ${money(sen)} of ${p.referenceNo}`;
          },
          async settle() {
            const one = r.pick([true, false]);
            const merchant = r.int(0, merchants.length - 1);
            const res = await gw.admin('POST', '/settlements', one ? { merchantId: merchants[merchant]?.id } : {});
            assert.equal(res.status, 201, JSON.stringify(res.body));
            const expected = model
              .map((mm, i) => ((!one || i === merchant) && mm.pending > 0n ? i : -1))
              .filter((i) => i >= 0);
            // Settling all also settles what earlier sequences left to other merchants: not this model's.
            const made = (res.body.items as Array<{ id: string; merchantId: string; net: string }>).filter((s) =>
              merchants.some((m) => m.id === s.merchantId),
            );
            assert.deepEqual(
              made.map((s) => merchants.findIndex((m) => m.id === s.merchantId)).sort(),
              expected.sort(),
              'a settlement for exactly the merchants with something pending',
            );
            for (const s of made) {
              const i = merchants.findIndex((m) => m.id === s.merchantId);
              const mm = model[i] as Model;
              assert.equal(s.net, money(mm.pending), `the settlement of merchant ${i} takes all it is owed`);
              mm.settling += mm.pending;
              open.push({ id: s.id, merchant: i, netSen: mm.pending });
              mm.pending = 0n;
              mm.unsettled = 0n;
            }
            return `settle ${one ? `merchant ${merchant}` : 'all'}: ${made.length} settlement(s)`;
          },
          async reconcile() {
            const qris = paid.filter((p) => p.kind === 'qris');
            if (qris.length === 0) return undefined;
            const acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
            const reported = qris.filter(() => r.int(0, 1) === 1);
            if (reported.length === 0) reported.push(r.pick(qris));
            const lines: Array<Record<string, string>> = [];
            for (const p of reported) {
              const txn = await gw.store.findTransaction(p.referenceNo);
              lines.push({
                referenceNo: p.referenceNo,
                providerReference: '',
                amount: txn?.paidAmount as string,
                paidAt: formatJakartaTimestamp(txn?.paidAt as number),
                status: '00',
              });
            }
            const isJson = r.pick([true, false]);
            // One report in three is spoiled: a NUL, an escape, or (CSV) a byte / (JSON) a surrogate that is not text.
            const spoil = r.int(0, 2) === 0 ? { line: r.int(1, lines.length), field: r.pick(COLUMNS) } : undefined;
            const bad = r.pick(['\u0000', '\u001b', 'other']);
            if (spoil) {
              const line = lines[spoil.line - 1] as Record<string, string>;
              line[spoil.field] = `X${bad === 'other' ? (isJson ? '\ud800' : '\ufffe') : bad}${line[spoil.field]}`;
            }
            const text = isJson
              ? JSON.stringify({ items: lines.map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v))) })
              : [COLUMNS.join(','), ...lines.map((l) => COLUMNS.map((c) => l[c]).join(','))].join('\r\n');
            // A CSV's 'other' is a byte that is not UTF-8 (0xFF) where the stand-in U+FFFE is.
            const body = isJson || bad !== 'other' ? Buffer.from(text) : notUtf8(text);
            const res = await fetch(`${gw.url}/admin/v1/providers/${acquirerId}/reconciliations`, {
              method: 'POST',
              headers: {
                authorization: `Bearer ${ADMIN_TOKEN}`,
                'content-type': isJson ? 'application/json' : 'text/csv',
              },
              body: new Uint8Array(body),
            });
            const run = await res.json();
            const what = `report of ${lines.length} QRIS as ${isJson ? 'JSON' : 'CSV'}`;
            if (spoil) {
              assert.equal(res.status, 400, JSON.stringify(run));
              const where = isJson ? `items\\[${spoil.line - 1}\\]` : `line ${spoil.line}`;
              assert.match(run.errors[0], new RegExp(`^${where}: ${spoil.field} holds `));
              return `${what}, ${spoil.field} of line ${spoil.line} spoiled: refused`;
            }
            assert.equal(res.status, 201, JSON.stringify(run));
            assert.deepEqual([run.lines, run.matched], [lines.length, lines.length], 'every paid QRIS matches');
            // Every problem, a page of a random size at a time from the first: each a payment of the
            // report's days that it does not name, once; every such payment of this sequence among them.
            const problems: Array<{ type: string; referenceNo: string }> = [];
            for (let cursor = ''; ; ) {
              const limit = r.int(1, 40);
              const page = await gw.admin('GET', `/reconciliations/${run.id}/problems?limit=${limit}${cursor}`);
              assert.ok(page.body.items.length <= limit);
              problems.push(...page.body.items);
              if (page.body.nextCursor === null) break;
              cursor = `&cursor=${page.body.nextCursor}`;
            }
            assert.deepEqual(problems.slice(0, run.problems.length), run.problems, 'the run answered the first page');
            assert.equal(problems.length, run.problemCount);
            const days = new Set(lines.map((l) => l.paidAt?.slice(0, 10)));
            const named = new Set(reported.map((p) => p.referenceNo));
            const missing = new Set<string>();
            for (const p of problems) {
              assert.equal(p.type, 'missing_at_provider', JSON.stringify(p));
              assert.ok(!named.has(p.referenceNo) && !missing.has(p.referenceNo), JSON.stringify(p));
              missing.add(p.referenceNo);
            }
            for (const p of qris) {
              const paidAt = (await gw.store.findTransaction(p.referenceNo))?.paidAt as number;
              if (!named.has(p.referenceNo) && days.has(jakartaDay(paidAt)))
                assert.ok(missing.has(p.referenceNo), `${p.referenceNo} is missing at the provider`);
            }
            return `${what}: matched, ${run.problemCount} missing at the provider`;
          },
          async payout() {
            if (open.length === 0) return undefined;
            const s = open.splice(r.int(0, open.length - 1), 1)[0] as (typeof open)[number];
            const res = await gw.admin('POST', `/settlements/${s.id}/payout`, { bankReference: `PROP-TRF-${++n}` });
            assert.equal(res.status, 200, JSON.stringify(res.body));
            const again = await gw.admin('POST', `/settlements/${s.id}/payout`, { bankReference: `PROP-TRF-${n}` });
            assert.equal(again.status, 409);
            const mm = model[s.merchant] as Model;
            mm.settling -= s.netSen;
            mm.paidOut += s.netSen;
            return `payout of ${money(s.netSen)} to merchant ${s.merchant}`;
          },
          async bankPayout() {
            if (open.length === 0) return undefined;
            const at = r.int(0, open.length - 1);
            const s = open[at] as (typeof open)[number];
            const res = await gw.admin('POST', `/settlements/${s.id}/payout`, {});
            assert.equal(res.status, 202, JSON.stringify(res.body));
            // A transfer the bank holds pending is asked about when the payout is read (36).
            if (res.body.status === 'paying') {
              const asked = (await gw.admin('GET', `/payouts/${res.body.payoutId}`)).body;
              // Above the approval limit: a second key (scope approve) sends it.
              if (asked.state === 'awaiting_approval') {
                const approved = await fetch(`${gw.url}/admin/v1/payouts/${asked.id}/approve`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${approver}`, 'content-type': 'application/json' },
                  body: '{}',
                });
                assert.equal(approved.status, 200, await approved.text());
                await gw.admin('GET', `/payouts/${asked.id}`);
              }
            }
            const after = (await gw.admin('GET', `/settlements/${s.id}`)).body;
            if (after.status === 'open') {
              assert.match(after.lastPayoutError, /status 06/);
              return `payout of ${money(s.netSen)} to merchant ${s.merchant} through the bank: failed, open again`;
            }
            assert.equal(after.status, 'paid', JSON.stringify(after));
            open.splice(at, 1);
            const mm = model[s.merchant] as Model;
            mm.settling -= s.netSen;
            mm.paidOut += s.netSen;
            return `payout of ${money(s.netSen)} to merchant ${s.merchant} through the bank`;
          },
          async disburse() {
            const merchant = r.int(0, merchants.length - 1);
            const mm = model[merchant] as Model;
            const fee = disbursementFee[merchant] as bigint;
            const room = mm.pending - fee;
            // Now and then more than pending funds (refused), else a part of it or all of it.
            const isOver = r.int(0, 4) === 0 || room < 100n;
            const drawn = isOver
              ? room > 0n
                ? room + 1n
                : 100n
              : BigInt(Math.max(100, Math.floor(Number(room) / r.int(1, 4))));
            // One amount is at most 100,000,000,000,000.00 (a larger one is refused as such, not for funds).
            const amountSen = drawn < MAX_AMOUNT_SEN ? drawn : MAX_AMOUNT_SEN;
            const suffix = r.pick(['1890', '1000', '1111', '1222']);
            const partnerReferenceNo = `PROP-D-${++n}`;
            const res = await snapCall(
              gw.url,
              (merchants[merchant] as { caller: SnapCaller }).caller,
              `${API}/transfer-interbank`,
              {
                partnerReferenceNo,
                amount: idr(money(amountSen)),
                beneficiaryAccountName: 'Supplier',
                beneficiaryAccountNo: `777${suffix}`,
                beneficiaryBankCode: '014',
              },
            );
            const what = `disbursement of ${money(amountSen)} (fee ${money(fee)}) by merchant ${merchant} to …${suffix}`;
            if (amountSen + fee > mm.pending) {
              assert.deepEqual([res.status, res.body.responseCode], [403, '4031814'], res.text);
              return `${what}: refused, more than pending`;
            }
            if (suffix === '1000') {
              assert.deepEqual([res.status, res.body.responseCode], [404, '4041811'], res.text);
              return `${what}: refused by the bank`;
            }
            mm.pending -= amountSen + fee;
            mm.fees += fee;
            if (suffix === '1890') {
              assert.deepEqual([res.status, res.body.responseCode], [200, '2001800'], res.text);
              return `${what}: paid`;
            }
            assert.deepEqual([res.status, res.body.responseCode], [202, '2021800'], res.text);
            inFlight.push({ merchant, partnerReferenceNo, amountSen, fails: suffix === '1222' });
            return `${what}: pending`;
          },
          async transferStatus() {
            if (inFlight.length === 0) return undefined;
            const d = inFlight.splice(r.int(0, inFlight.length - 1), 1)[0] as (typeof inFlight)[number];
            const res = await snapCall(
              gw.url,
              (merchants[d.merchant] as { caller: SnapCaller }).caller,
              `${API}/transfer/status`,
              { originalPartnerReferenceNo: d.partnerReferenceNo, serviceCode: '18' },
            );
            assert.equal(res.status, 200, res.text);
            assert.equal(res.body.latestTransactionStatus, d.fails ? '06' : '00');
            if (d.fails) {
              const mm = model[d.merchant] as Model;
              const fee = disbursementFee[d.merchant] as bigint;
              mm.pending += d.amountSen + fee;
              mm.fees -= fee;
            }
            return `status of ${d.partnerReferenceNo}: ${d.fails ? 'failed, returned' : 'paid'}`;
          },
        };
        const weights: Array<keyof typeof steps> = [
          'qris',
          'qris',
          'qris',
          'ewallet',
          'va',
          'va',
          'repeat',
          'refund',
          'refund',
          'settle',
          'payout',
          'bankPayout',
          'reconcile',
          'disburse',
          'disburse',
          'transferStatus',
        ];

        const log: string[] = [];
        // Every sequence opens with an e-wallet payment and a refund (of it: nothing else is paid
        // yet), so that each seed covers them whatever the random steps draw after.
        const opening: Array<keyof typeof steps> = ['ewallet', 'refund'];
        for (let step = 1; step <= STEPS; step++) {
          const what = await steps[opening[step - 1] ?? r.pick(weights)]?.();
          if (what === undefined) continue;
          log.push(`${step}: ${what}`);
          const context = `seed ${seed}, after step ${step} (${what}); steps so far:\n${log.join('\n')}`;
          const v = await gw.admin('GET', '/ledger/verify');
          assert.deepEqual(v.body.problems, [], context);
          // The whole journal too: every merchant's running totals against its entries summed, and
          // the unsettled queue against the settlements.
          const full = await gw.admin('GET', '/ledger/verify?full=true');
          assert.deepEqual(full.body.problems, [], `full: ${context}`);
          for (const [i, m] of merchants.entries()) {
            const b = (await gw.admin('GET', `/merchants/${m.id}/balance`)).body;
            const mm = model[i] as Model;
            assert.deepEqual(
              [b.pending, b.settling, b.paidOut, b.fees],
              [money(mm.pending), money(mm.settling), money(mm.paidOut), money(mm.fees)],
              `merchant ${i}: ${context}`,
            );
          }
        }
        t.diagnostic(`${log.length} steps applied`);
        assert.ok(
          paid.some((p) => p.kind === 'ewallet' && p.refundedSen > 0n),
          `an e-wallet payment refunded: ${log.slice(0, 3).join('\n')}`,
        );
      });
  });
}

/** The CSV text as UTF-8, with each U+FFFE (a stand-in) as the byte 0xFF, which UTF-8 never has. */
function notUtf8(text: string): Buffer {
  return Buffer.concat(
    text
      .split('\ufffe')
      .flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff]), Buffer.from(part)])),
  );
}

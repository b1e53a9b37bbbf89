// docs/books.md#verification, as a property: random sequences of payments (QRIS through the sandbox
// acquirer, VAs through the sandbox bank and through a bank of the operator's), repeats, refunds,
// settlements and payouts over several merchants. After every step the ledger verifies clean and
// each merchant's balance equals a model the test keeps itself. The seeds are fixed, so CI runs the
// same sequences every time; BOOKS_SEED=<n> runs another (a failure names its seed and step).
// Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toMinorUnits } from '@snapgate/snap';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const STEPS = 80;
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
  settling: bigint;
  paidOut: bigint;
  fees: bigint;
}
interface Paid {
  referenceNo: string;
  merchant: number;
  kind: 'qris' | 'va';
  amountSen: bigint;
  refundedSen: bigint;
  partnerReferenceNo: string;
  repeat: () => Promise<void>;
}

export function propertySuite(under: StoreUnderTest): void {
  describe(`the books as a property: random payments, repeats, refunds, settlements, payouts (${under.name})`, () => {
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
        for (const fees of [
          { qris: { percent: '0.70' }, va: { fixed: '2500.00' } },
          {},
          { qris: { percent: '1.50', fixed: '100.00' } },
        ]) {
          const m = await gw.createMerchant({ fees });
          merchants.push({ id: m.id, caller: await authenticate(gw.url, m) });
          model.push({ pending: 0n, settling: 0n, paidOut: 0n, fees: 0n });
        }
        const paid: Paid[] = [];
        const open: Array<{ id: string; merchant: number; netSen: bigint }> = [];
        let n = 0;

        const charge = async (merchant: number, referenceNo: string) => {
          const txn = await gw.store.findTransaction(referenceNo);
          assert.equal(txn?.status, '00');
          const amount = toMinorUnits(txn?.paidAmount as string);
          const fee = toMinorUnits(txn?.feeAmount as string);
          const mm = model[merchant] as Model;
          mm.pending += amount - fee;
          mm.fees += fee;
          return amount;
        };

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
          async va() {
            const merchant = r.int(0, merchants.length - 1);
            const viaBank = r.pick([true, false]);
            const amount = money(BigInt(r.int(10_000, 5_000_000) * 100));
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
            const refundable = paid.filter((p) => p.kind === 'qris' && p.refundedSen < p.amountSen);
            if (refundable.length === 0) return undefined;
            const p = r.pick(refundable);
            const left = p.amountSen - p.refundedSen;
            const sen = r.pick([left, BigInt(Math.max(1, Math.floor(Number(left) / r.int(2, 5))))]);
            const res = await snapCall(
              gw.url,
              (merchants[p.merchant] as { caller: SnapCaller }).caller,
              `${API}/qr/qr-mpm-refund`,
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
            }
            return `settle ${one ? `merchant ${merchant}` : 'all'}: ${made.length} settlement(s)`;
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
        };
        const weights: Array<keyof typeof steps> = [
          'qris',
          'qris',
          'qris',
          'va',
          'va',
          'repeat',
          'refund',
          'refund',
          'settle',
          'payout',
        ];

        const log: string[] = [];
        for (let step = 1; step <= STEPS; step++) {
          const what = await steps[r.pick(weights)]?.();
          if (what === undefined) continue;
          log.push(`${step}: ${what}`);
          const context = `seed ${seed}, after step ${step} (${what}); steps so far:\n${log.join('\n')}`;
          const v = await gw.admin('GET', '/ledger/verify');
          assert.deepEqual(v.body.problems, [], context);
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
      });
  });
}

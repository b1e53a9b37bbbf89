// docs/books.md#fees: a merchant's QRIS criteria and fees, the settings kept by each transaction
// at its creation, and the fee charged when it becomes 00 — in the callback, the query answer and
// the admin view. Real HTTP, both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

export function feesSuite(under: StoreUnderTest): void {
  describe(`fees per merchant (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    async function merchant(settings: Record<string, unknown>): Promise<{ id: string; caller: SnapCaller }> {
      const m = await gw.createMerchant(settings);
      return { id: m.id, caller: await authenticate(gw.url, m) };
    }
    async function paidQris(c: SnapCaller, amount: string) {
      const g = await snapCall(gw.url, c, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `FEE-${++seq}`,
        amount: idr(amount),
      });
      assert.equal(g.status, 200, g.text);
      return g.body as { referenceNo: string; partnerReferenceNo: string; qrContent: string };
    }
    const pay = async (referenceNo: string) =>
      assert.equal((await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, {})).status, 200);
    const feeOf = async (referenceNo: string) => (await gw.store.findTransaction(referenceNo))?.feeAmount;

    it('charges a percent fee when the QRIS is paid, in the callback, the query and the admin view', async () => {
      const { caller } = await merchant({ fees: { qris: { percent: '0.70' } } });
      const g = await paidQris(caller, '12345.00');
      assert.equal(await feeOf(g.referenceNo), '0.00', 'nothing before it is paid');
      await pay(g.referenceNo);
      assert.equal(await feeOf(g.referenceNo), '86.00');
      const notes = await gw.store.notificationsOf(g.referenceNo);
      const paidNote = JSON.parse(notes[notes.length - 1]?.body as string);
      assert.equal(paidNote.latestTransactionStatus, '00');
      assert.deepEqual(paidNote.additionalInfo.feeAmount, idr('86.00'));
      const q = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-query`, {
        originalReferenceNo: g.referenceNo,
        serviceCode: '47',
      });
      assert.deepEqual(q.body.feeAmount, idr('86.00'));
      assert.deepEqual((await gw.admin('GET', `/transactions/${g.referenceNo}`)).body.feeAmount, idr('86.00'));
    });

    it('charges Bank Indonesia’s MDR by default: a micro merchant nothing up to 500,000.00, 0.3 % above', async () => {
      const { caller } = await merchant({});
      const small = await paidQris(caller, '100000.00');
      const large = await paidQris(caller, '600000.00');
      await pay(small.referenceNo);
      await pay(large.referenceNo);
      assert.equal(await feeOf(small.referenceNo), '0.00');
      assert.equal(await feeOf(large.referenceNo), '1800.00');
      const { caller: medium } = await merchant({ qrisCriteria: 'UME' });
      const m = await paidQris(medium, '1500.00');
      await pay(m.referenceNo);
      assert.equal(await feeOf(m.referenceNo), '11.00', '0.7 % of 1,500.00 is 10.5: half up');
    });

    it('writes the merchant criteria into its QRIS', async () => {
      const { caller } = await merchant({ qrisCriteria: 'UBE' });
      const g = await paidQris(caller, '1000.00');
      assert.match(g.qrContent, /0303UBE/);
      assert.doesNotMatch(g.qrContent, /0303UMI/);
      const { caller: micro } = await merchant({});
      assert.match((await paidQris(micro, '1000.00')).qrContent, /0303UMI/);
    });

    it('keeps the settings a transaction was created with: a later change applies to new ones only', async () => {
      const { id, caller } = await merchant({ fees: { qris: { percent: '0.70' } } });
      const before = await paidQris(caller, '12345.00');
      const patched = await gw.admin('PATCH', `/merchants/${id}`, {
        fees: { qris: { percent: '2.00', fixed: '100.00' } },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(patched.body.fees, { qris: { percent: '2.00', fixed: '100.00' } });
      const afterChange = await paidQris(caller, '12345.00');
      await pay(before.referenceNo);
      await pay(afterChange.referenceNo);
      assert.equal(await feeOf(before.referenceNo), '86.00');
      assert.equal(await feeOf(afterChange.referenceNo), '347.00', '2 % of 12,345.00 is 246.90, plus 100.00');
    });

    it('charges a VA’s fixed fee when the bank pays it', async () => {
      const { caller } = await merchant({ fees: { va: { fixed: '2500.00' } } });
      const created = await snapCall(gw.url, caller, `${API}/transfer-va/create-va`, {
        virtualAccountName: 'Budi',
        trxId: `FEE-VA-${++seq}`,
        totalAmount: idr('150000.00'),
      });
      assert.equal(created.status, 200, created.text);
      const va = created.body.virtualAccountData.virtualAccountNo as string;
      const paid = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va)}/pay`, {});
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      const txn = await gw.store.findTransactionByVirtualAccountNo(va);
      assert.equal(txn?.feeAmount, '2500.00');
    });

    it('refuses fees and criteria it cannot apply, naming the field', async () => {
      for (const [settings, field] of [
        [{ fees: { qris: { percent: '0.7' } } }, 'fees.qris'],
        [{ fees: { qris: { percent: '100.01' } } }, 'fees.qris'],
        [{ fees: { qris: { rule: 'flat' } } }, 'fees.qris'],
        [{ fees: { va: { fixed: '-1.00' } } }, 'fees.va.fixed'],
        [{ fees: { card: {} } }, 'fees'],
        [{ qrisCriteria: 'XYZ' }, 'qrisCriteria'],
      ] as const) {
        const r = await gw.admin('POST', '/merchants', { name: 'Bad Fees', ...settings });
        assert.equal(r.status, 400, JSON.stringify(settings));
        assert.ok(
          (r.body.errors as string[]).some((e) => e.startsWith(field)),
          `${JSON.stringify(settings)}: ${JSON.stringify(r.body.errors)}`,
        );
      }
    });
  });
}

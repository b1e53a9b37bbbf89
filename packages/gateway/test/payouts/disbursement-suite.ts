// docs/payouts.md#disbursements: a merchant sends money with its B2B token over SNAP Transfer Credit
// (16, 18, 36), funded from its pending balance, through the payout bank (the built-in sandbox bank
// over real HTTP). Every sandbox outcome, the limits, bad input, a race on one balance, and the
// settlement that nets what was sent; the books verified after each. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callbackHmacStringToSign, verifyHmacSha512 } from '@snapgate/snap';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, newExternalId, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0';
const INQUIRY = `${API}/account-inquiry-external`;
const TRANSFER = `${API}/transfer-interbank`;
const STATUS = `${API}/transfer/status`;
const idr = (value: string) => ({ value, currency: 'IDR' });
let seq = 0;

export function disbursementSuite(under: StoreUnderTest): void {
  describe(`disbursements (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({
        ...(opened.store ? { store: opened.store } : {}),
        env: { SNAPGATE_UPSTREAM_TIMEOUT_MS: '2000' },
      });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    /** A merchant that may disburse, with `paid` collected by QRIS (fee 0.7 %, so 99,300.00 of 100,000.00 pending). */
    async function funded(
      o: { paid?: string; daily?: string; fee?: string } = {},
    ): Promise<{ m: TestMerchant; caller: SnapCaller }> {
      const m = await gw.createMerchant({
        fees: { qris: { percent: '0.70' }, ...(o.fee ? { disbursement: { fixed: o.fee } } : {}) },
        limits: { disbursementDaily: o.daily ?? '1000000.00' },
      });
      const caller = await authenticate(gw.url, m);
      const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `FUND-${++seq}`,
        amount: idr(o.paid ?? '100000.00'),
      });
      assert.equal(g.status, 200, g.text);
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      return { m, caller };
    }
    const transfer = (caller: SnapCaller, accountNo: string, amount: string, more: Record<string, unknown> = {}) =>
      snapCall(gw.url, caller, TRANSFER, {
        partnerReferenceNo: `DISB-${++seq}`,
        amount: idr(amount),
        beneficiaryAccountName: 'Toko Sumber Rejeki',
        beneficiaryAccountNo: accountNo,
        beneficiaryBankCode: '014',
        sourceAccountNo: '0000000000',
        transactionDate: '2026-01-15T10:30:00+07:00',
        ...more,
      });
    const status = (caller: SnapCaller, partnerReferenceNo: string) =>
      snapCall(gw.url, caller, STATUS, { originalPartnerReferenceNo: partnerReferenceNo, serviceCode: '18' });
    const balance = async (merchantId: string) => (await gw.admin('GET', `/merchants/${merchantId}/balance`)).body;
    const verified = async () => {
      const r = await gw.admin('GET', '/ledger/verify');
      assert.deepEqual([r.status, r.body.problems], [200, []]);
    };
    const sentToBank = async (referenceNo: string) => gw.store.findSandboxTransfer({ partnerReferenceNo: referenceNo });

    it('is off until the merchant has a daily limit: 16, 18 and 36 answer 403 Feature Not Allowed', async () => {
      const m = await gw.createMerchant({});
      const caller = await authenticate(gw.url, m);
      const inquiry = await snapCall(gw.url, caller, INQUIRY, {
        beneficiaryBankCode: '014',
        beneficiaryAccountNo: '1234567890',
      });
      const sent = await transfer(caller, '1234567890', '1000.00');
      const asked = await status(caller, 'NONE');
      assert.deepEqual(
        [inquiry, sent, asked].map((r) => [r.status, r.body.responseCode, r.body.responseMessage]),
        [
          [403, '4031601', 'Feature Not Allowed'],
          [403, '4031801', 'Feature Not Allowed'],
          [403, '4033601', 'Feature Not Allowed'],
        ],
      );
    });

    it('asks who holds an account (16): the bank’s name, or 404 for an account it does not know', async () => {
      const { caller } = await funded();
      const found = await snapCall(gw.url, caller, INQUIRY, {
        partnerReferenceNo: 'INQ-1',
        beneficiaryBankCode: '014',
        beneficiaryAccountNo: '1234567890',
        additionalInfo: { note: 'x' },
      });
      assert.equal(found.status, 200, found.text);
      assert.deepEqual(found.body, {
        responseCode: '2001600',
        responseMessage: 'Successful',
        partnerReferenceNo: 'INQ-1',
        beneficiaryAccountName: 'SANDBOX 7890',
        beneficiaryAccountNo: '1234567890',
        beneficiaryBankCode: '014',
        currency: 'IDR',
        additionalInfo: { note: 'x' },
      });
      const none = await snapCall(gw.url, caller, INQUIRY, {
        beneficiaryBankCode: '014',
        beneficiaryAccountNo: '1234567000',
      });
      assert.deepEqual([none.status, none.body.responseCode], [404, '4041611']);
    });

    it('pays at once (any other account): 200, the amount and fee from pending, one transfer, status 00', async () => {
      const { m, caller } = await funded({ fee: '2500.00' });
      const r = await transfer(caller, '1234567890', '50000.00', { additionalInfo: { order: 'PO-7' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.responseCode, '2001800');
      assert.match(r.body.referenceNo, /^PO[0-9A-F]{32}$/);
      assert.deepEqual(
        {
          amount: r.body.amount,
          to: r.body.beneficiaryAccountNo,
          bank: r.body.beneficiaryBankCode,
          info: r.body.additionalInfo,
        },
        { amount: idr('50000.00'), to: '1234567890', bank: '014', info: { order: 'PO-7' } },
      );
      assert.equal((await sentToBank(r.body.referenceNo))?.status, '00');
      const b = await balance(m.id);
      assert.deepEqual([b.pending, b.fees], ['46800.00', '3200.00']);
      const s = await status(caller, r.body.partnerReferenceNo);
      assert.equal(s.status, 200, s.text);
      assert.deepEqual(
        [s.body.responseCode, s.body.latestTransactionStatus, s.body.transactionStatusDesc, s.body.originalReferenceNo],
        ['2003600', '00', 'Success', r.body.referenceNo],
      );
      const payouts = (await gw.admin('GET', `/payouts?merchantId=${m.id}&kind=disbursement`)).body.items;
      assert.deepEqual(
        payouts.map((p: { state: string; amount: string; fee: string }) => [p.state, p.amount, p.fee]),
        [['paid', '50000.00', '2500.00']],
      );
      await verified();
    });

    it('refuses an account the bank does not know (000): 404 4041811, amount and fee back in pending', async () => {
      const { m, caller } = await funded({ fee: '2500.00' });
      const r = await transfer(caller, '1234567000', '50000.00');
      assert.deepEqual(
        [r.status, r.body.responseCode, r.body.responseMessage],
        [404, '4041811', 'Invalid Card/Account/Customer'],
      );
      const b = await balance(m.id);
      assert.deepEqual([b.pending, b.fees], ['99300.00', '700.00']);
      const s = await status(caller, `DISB-${seq}`);
      assert.equal(s.body.latestTransactionStatus, '06');
      await verified();
    });

    it('answers pending (111, 222) with 202, and the status query ends it: paid, or failed and returned', async () => {
      const { m, caller } = await funded({ fee: '1000.00' });
      const paid = await transfer(caller, '1234567111', '10000.00');
      const failed = await transfer(caller, '1234567222', '20000.00');
      assert.deepEqual(
        [paid, failed].map((r) => [r.status, r.body.responseCode, r.body.responseMessage]),
        [
          [202, '2021800', 'Request In Progress'],
          [202, '2021800', 'Request In Progress'],
        ],
      );
      // Both held while on their way: 99,300.00 − 11,000.00 − 21,000.00.
      assert.equal((await balance(m.id)).pending, '67300.00');
      await verified();
      const a = await status(caller, paid.body.partnerReferenceNo);
      const b = await status(caller, failed.body.partnerReferenceNo);
      assert.deepEqual([a.body.latestTransactionStatus, b.body.latestTransactionStatus], ['00', '06']);
      // The failed one's amount and fee are back.
      assert.equal((await balance(m.id)).pending, '88300.00');
      assert.equal((await balance(m.id)).fees, '1700.00');
      await verified();
    });

    it('refuses more than pending (4031814) and past the daily limit (4031802), holding nothing', async () => {
      const { m, caller } = await funded({ daily: '60000.00' });
      const tooMuch = await transfer(caller, '1234567890', '99300.01');
      assert.deepEqual([tooMuch.status, tooMuch.body.responseCode], [403, '4031814']);
      const first = await transfer(caller, '1234567890', '50000.00');
      assert.equal(first.status, 200, first.text);
      const over = await transfer(caller, '1234567890', '10000.01');
      assert.deepEqual([over.status, over.body.responseCode], [403, '4031802']);
      // A failed disbursement does not count against the day.
      const refused = await transfer(caller, '1234567000', '10000.00');
      assert.equal(refused.status, 404);
      const last = await transfer(caller, '1234567890', '10000.00');
      assert.equal(last.status, 200, last.text);
      assert.equal((await balance(m.id)).pending, '39300.00');
      const payouts = (await gw.admin('GET', `/payouts?merchantId=${m.id}`)).body.items;
      assert.equal(payouts.length, 3, 'nothing was written for the refused requests');
      await verified();
    });

    it('answers a repeat of the same request again, and a reused partnerReferenceNo 409 4091801', async () => {
      const { caller } = await funded();
      const body = {
        partnerReferenceNo: `DISB-${++seq}`,
        amount: idr('1000.00'),
        beneficiaryAccountName: 'Toko',
        beneficiaryAccountNo: '1234567890',
        beneficiaryBankCode: '014',
      };
      const externalId = newExternalId();
      const first = await snapCall(gw.url, caller, TRANSFER, body, { externalId });
      const again = await snapCall(gw.url, caller, TRANSFER, body, { externalId });
      assert.equal(first.status, 200, first.text);
      assert.equal(again.text, first.text);
      const reused = await snapCall(gw.url, caller, TRANSFER, { ...body, amount: idr('2000.00') });
      assert.deepEqual([reused.status, reused.body.responseCode], [409, '4091801']);
      // Even when the balance could no longer fund it: a reused reference is a duplicate, never "not sent".
      const tooMuch = await snapCall(gw.url, caller, TRANSFER, { ...body, amount: idr('99999.00') });
      assert.deepEqual([tooMuch.status, tooMuch.body.responseCode], [409, '4091801']);
      assert.equal((await sentToBank(first.body.referenceNo))?.status, '00');
    });

    it('answers every bad field with a SNAP 400, and an unknown transfer 404 4043601', async () => {
      const { caller } = await funded();
      const good = {
        partnerReferenceNo: 'BAD-1',
        amount: idr('1000.00'),
        beneficiaryAccountName: 'Toko',
        beneficiaryAccountNo: '1234567890',
        beneficiaryBankCode: '014',
      };
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['no partnerReferenceNo', { partnerReferenceNo: undefined }, '4001802'],
        ['a long partnerReferenceNo', { partnerReferenceNo: 'P'.repeat(65) }, '4001801'],
        ['no amount', { amount: undefined }, '4001802'],
        ['a zero amount', { amount: idr('0.00') }, '4001801'],
        ['a negative amount', { amount: idr('-5.00') }, '4001801'],
        ['a float amount', { amount: { value: 1000, currency: 'IDR' } }, '4001801'],
        ['17 integer digits', { amount: idr('12345678901234567.00') }, '4001801'],
        ['another currency', { amount: idr('1000.00').value && { value: '1000.00', currency: 'USD' } }, '4001801'],
        ['no beneficiaryAccountName', { beneficiaryAccountName: undefined }, '4001802'],
        ['a long beneficiaryAccountName', { beneficiaryAccountName: 'N'.repeat(101) }, '4001801'],
        ['no beneficiaryAccountNo', { beneficiaryAccountNo: undefined }, '4001802'],
        ['letters in beneficiaryAccountNo', { beneficiaryAccountNo: '12345abc' }, '4001801'],
        ['no beneficiaryBankCode', { beneficiaryBankCode: undefined }, '4001802'],
        ['an unknown bank code shape', { beneficiaryBankCode: '14' }, '4001801'],
        ['a bad transactionDate', { transactionDate: 'yesterday' }, '4001801'],
        ['a long remark', { remark: 'R'.repeat(51) }, '4001801'],
        ['additionalInfo not an object', { additionalInfo: 'x' }, '4001801'],
      ];
      for (const [what, change, code] of cases) {
        const r = await snapCall(gw.url, caller, TRANSFER, { ...good, ...change });
        assert.deepEqual([r.status, r.body.responseCode], [400, code], `${what}: ${r.text}`);
      }
      const inquiries: Array<[string, Record<string, unknown>, string]> = [
        ['no bank code', { beneficiaryAccountNo: '1234567890' }, '4001602'],
        ['no account', { beneficiaryBankCode: '014' }, '4001602'],
        ['a bad account', { beneficiaryBankCode: '014', beneficiaryAccountNo: '1'.repeat(35) }, '4001601'],
      ];
      for (const [what, body, code] of inquiries) {
        const r = await snapCall(gw.url, caller, INQUIRY, body);
        assert.deepEqual([r.status, r.body.responseCode], [400, code], `${what}: ${r.text}`);
      }
      const statuses: Array<[string, Record<string, unknown>, number, string]> = [
        ['no reference', { serviceCode: '18' }, 400, '4003602'],
        ['no serviceCode', { originalPartnerReferenceNo: 'X' }, 400, '4003602'],
        ['another serviceCode', { originalPartnerReferenceNo: 'X', serviceCode: '47' }, 400, '4003601'],
        ['an unknown transfer', { originalPartnerReferenceNo: 'NEVER', serviceCode: '18' }, 404, '4043601'],
      ];
      for (const [what, body, httpStatus, code] of statuses) {
        const r = await snapCall(gw.url, caller, STATUS, body);
        assert.deepEqual([r.status, r.body.responseCode], [httpStatus, code], `${what}: ${r.text}`);
      }
    });

    it('lets 20 disbursements race one balance: never below zero, exactly what it funds', async () => {
      const { m, caller } = await funded();
      // 99,300.00 pending: nine of 10,000.00 fit, the other eleven are refused.
      const answers = await Promise.all(Array.from({ length: 20 }, () => transfer(caller, '1234567890', '10000.00')));
      const codes = answers.map((r) => r.body.responseCode);
      assert.equal(codes.filter((c) => c === '2001800').length, 9, codes.join(' '));
      assert.equal(codes.filter((c) => c === '4031814').length, 11, codes.join(' '));
      assert.equal((await balance(m.id)).pending, '9300.00');
      await verified();
    });

    it('nets disbursements into the next settlement, and a returned one into the one after', async () => {
      const { m, caller } = await funded({ fee: '500.00' });
      const sent = await transfer(caller, '1234567890', '20000.00');
      const later = await transfer(caller, '1234567222', '5000.00');
      assert.deepEqual([sent.status, later.status], [200, 202]);
      const first = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const s1 = first.body.items[0];
      // 100,000.00 − 700.00 fee − (20,000.00 + 500.00) − (5,000.00 + 500.00), nothing returned yet.
      assert.deepEqual(
        [s1.gross, s1.fees, s1.refunds, s1.disbursed, s1.returned, s1.net],
        ['100000.00', '700.00', '0.00', '26000.00', '0.00', '73300.00'],
      );
      const report = await fetch(`${gw.url}/admin/v1/settlements/${s1.id}/report.csv`, {
        headers: { authorization: 'Bearer test-admin-token-0123456789' },
      });
      const lines = (await report.text()).trim().split('\r\n');
      const rows = lines.slice(1).map((l) => l.split(','));
      assert.deepEqual(
        rows.map((r) => [r[2], r[4], r[5], r[6]]).sort(),
        [
          ['disbursement', '-20000.00', '500.00', '-20500.00'],
          ['disbursement', '-5000.00', '500.00', '-5500.00'],
          ['payment', '100000.00', '700.00', '99300.00'],
        ].sort(),
      );
      assert.equal(rows.find((r) => r[4] === '-20000.00')?.[1], sent.body.partnerReferenceNo);
      // The pending one fails at its status query: amount and fee come back, into the next settlement.
      assert.equal((await status(caller, later.body.partnerReferenceNo)).body.latestTransactionStatus, '06');
      const second = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(second.status, 201, JSON.stringify(second.body));
      const s2 = second.body.items[0];
      assert.deepEqual([s2.count, s2.returned, s2.net], [0, '5500.00', '5500.00']);
      const b = await balance(m.id);
      assert.deepEqual([b.pending, b.settling], ['0.00', '78800.00']);
      await verified();
    });

    it('takes a disbursement asked after the cutoff into the settlement all the same (never paid twice)', async () => {
      const { m, caller } = await funded();
      const cutoff = new Date(Date.now() - 1).toISOString();
      // After the cutoff, before the run reaches the merchant: this money has left pending already.
      const sent = await transfer(caller, '1234567890', '90000.00');
      assert.equal(sent.status, 200, sent.text);
      const run = await gw.admin('POST', '/settlements', { merchantId: m.id, cutoff });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const s = run.body.items[0];
      assert.deepEqual([s.gross, s.disbursed, s.net], ['100000.00', '90000.00', '9300.00']);
      assert.equal((await balance(m.id)).pending, '0.00', 'never below zero');
      await verified();
    });

    it('makes no settlement while disbursements leave nothing to pay, and keeps them pending', async () => {
      const { m, caller } = await funded({ paid: '10000.00' });
      // 9,930.00 pending, all of it sent.
      assert.equal((await transfer(caller, '1234567890', '9930.00')).status, 200);
      const run = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.deepEqual([run.status, run.body.items], [201, []]);
      assert.equal((await balance(m.id)).pending, '0.00');
      await verified();
    });
  });

  describe(`transfer callbacks (${under.name})`, () => {
    let gw: TestGateway;
    let receiver: Receiver;
    let elsewhere: Receiver;
    let cleanup: () => Promise<void>;

    before(async () => {
      receiver = await startReceiver();
      elsewhere = await startReceiver();
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ ...(opened.store ? { store: opened.store } : {}), dispatch: true });
    });
    after(async () => {
      await gw.close();
      await cleanup();
      await receiver.close();
      await elsewhere.close();
    });

    async function disbursing(settings: Record<string, unknown>) {
      const m = await gw.createMerchant({
        callbackBaseUrl: receiver.baseUrl,
        callbackSignature: 'hmac-sha512',
        limits: { disbursementDaily: '1000000.00' },
        ...settings,
      });
      const caller = await authenticate(gw.url, m);
      const g = await snapCall(gw.url, caller, `${API}/qr/qr-mpm-generate`, {
        partnerReferenceNo: `FUND-${++seq}`,
        amount: idr('100000.00'),
      });
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      return { m, caller };
    }
    const send = (caller: SnapCaller, accountNo: string) =>
      snapCall(gw.url, caller, TRANSFER, {
        partnerReferenceNo: `CB-${++seq}`,
        amount: idr('12345.00'),
        beneficiaryAccountName: 'Toko',
        beneficiaryAccountNo: accountNo,
        beneficiaryBankCode: '014',
        additionalInfo: { batch: 'B-1' },
      });
    const askStatus = (caller: SnapCaller, partnerReferenceNo: string) =>
      snapCall(gw.url, caller, STATUS, { originalPartnerReferenceNo: partnerReferenceNo, serviceCode: '18' });
    const noticeOf = (on: Receiver, referenceNo: string) =>
      on.received.find((r) => r.url.endsWith('/v1.0/transfer/notify') && r.body.includes(referenceNo));

    it('tells a transfer answered pending how it ended, signed, at <callbackBaseUrl>/v1.0/transfer/notify', async () => {
      const { m, caller } = await disbursing({});
      const paid = await send(caller, '1234567111');
      const failed = await send(caller, '1234567222');
      assert.deepEqual([paid.status, failed.status], [202, 202]);
      assert.equal((await askStatus(caller, paid.body.partnerReferenceNo)).body.latestTransactionStatus, '00');
      assert.equal((await askStatus(caller, failed.body.partnerReferenceNo)).body.latestTransactionStatus, '06');
      const got = await waitFor('the paid transfer’s callback', () => noticeOf(receiver, paid.body.referenceNo));
      assert.equal(got.url, '/v1.0/transfer/notify');
      assert.deepEqual(JSON.parse(got.body), {
        originalPartnerReferenceNo: paid.body.partnerReferenceNo,
        originalReferenceNo: paid.body.referenceNo,
        serviceCode: '18',
        latestTransactionStatus: '00',
        transactionStatusDesc: 'Success',
        amount: idr('12345.00'),
        beneficiaryAccountNo: '1234567111',
        beneficiaryBankCode: '014',
        additionalInfo: { batch: 'B-1' },
      });
      const data = callbackHmacStringToSign({
        path: got.url,
        partnerId: got.headers['x-partner-id'] as string,
        rawBody: got.body,
        timestamp: got.headers['x-timestamp'] as string,
      });
      assert.equal(verifyHmacSha512(m.clientSecret, data, got.headers['x-signature'] as string), true);
      const lost = await waitFor('the failed transfer’s callback', () => noticeOf(receiver, failed.body.referenceNo));
      assert.equal(JSON.parse(lost.body).latestTransactionStatus, '06');
      // Acknowledged: the outbox holds them delivered, as any callback.
      await waitFor('both delivered', async () => {
        const all = (await gw.admin('GET', `/notifications?merchantId=${m.id}`)).body.items as Array<{
          kind: string;
          state: string;
        }>;
        const items = all.filter((n) => n.kind === 'transfer');
        return items.length === 2 && items.every((n) => n.state === 'delivered') && items;
      });
    });

    it('sends it to transferCallbackUrl when set, and nothing for a transfer answered at once', async () => {
      const { caller } = await disbursing({ transferCallbackUrl: `${elsewhere.baseUrl}/hooks/v1.0/transfer/notify` });
      const atOnce = await send(caller, '1234567890');
      assert.equal(atOnce.status, 200, atOnce.text);
      const later = await send(caller, '1234567111');
      assert.equal((await askStatus(caller, later.body.partnerReferenceNo)).body.latestTransactionStatus, '00');
      const got = await waitFor('the callback', () => noticeOf(elsewhere, later.body.referenceNo));
      assert.equal(got.url, '/hooks/v1.0/transfer/notify');
      assert.equal(noticeOf(receiver, later.body.referenceNo), undefined);
      assert.equal(noticeOf(elsewhere, atOnce.body.referenceNo), undefined);
    });
  });
}

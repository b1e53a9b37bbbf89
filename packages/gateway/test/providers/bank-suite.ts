import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const API = '/api/snap/v1.0/transfer-va';
const idr = (value: string) => ({ value, currency: 'IDR' });
const SUCCESS = { english: 'Success', indonesia: 'Sukses' };

// A bank simulator with its own RSA key and its own HTTP client (test/helpers/snap.ts signs with
// node:crypto directly): nothing of the gateway's own SNAP client is on this side.
export function bankSuite(under: StoreUnderTest): void {
  describe(`bank → snapgate: VA inquiry (24) and payment flag (25) (${under.name})`, () => {
    const clock = createManualClock(Date.now());
    const ts = () => formatJakartaTimestamp(clock.now());
    const bankKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const bankPrivatePem = bankKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const bankPublicPem = bankKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    let gw: TestGateway;
    let merchant: SnapCaller;
    let bank: SnapCaller & { id: string };
    let otherBank: SnapCaller & { id: string };
    let seq = 0;

    const call = (caller: SnapCaller, path: string, body: unknown, o: Parameters<typeof snapCall>[4] = {}) =>
      snapCall(gw.url, caller, path, body, { timestamp: ts(), ...o });

    async function connectBank(name: string, bankCode: string, publicKeyPem?: string) {
      const r = await gw.admin('POST', '/providers', { name, kind: 'bank', bankCode, publicKeyPem });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const token = await postToken(gw.url, {
        clientKey: r.body.clientKey,
        ...(publicKeyPem ? { privateKeyPem: bankPrivatePem } : { clientSecret: r.body.clientSecret }),
        timestamp: ts(),
      });
      assert.equal(token.status, 200, token.text);
      return {
        id: r.body.id as string,
        clientKey: r.body.clientKey as string,
        clientSecret: r.body.clientSecret as string,
        partnerId: r.body.clientKey as string,
        accessToken: token.body.accessToken as string,
      };
    }

    /** A token taken at the manual clock's time (the clock jumps hours in the expiry test). */
    async function fresh(c: SnapCaller, credentials: { privateKeyPem?: string } = {}): Promise<SnapCaller> {
      const token = await postToken(gw.url, {
        clientKey: c.clientKey,
        ...(credentials.privateKeyPem ? credentials : { clientSecret: c.clientSecret }),
        timestamp: ts(),
      });
      return { ...c, accessToken: token.body.accessToken };
    }

    async function createVa(over: Record<string, unknown> = {}) {
      const r = await call(await fresh(merchant), `${API}/create-va`, {
        virtualAccountName: 'Budi Santoso',
        trxId: `INV-${++seq}`,
        totalAmount: idr('150000.00'),
        additionalInfo: { bankCode: '014' },
        ...over,
      });
      assert.equal(r.status, 200, r.text);
      return r.body.virtualAccountData as {
        partnerServiceId: string;
        customerNo: string;
        virtualAccountNo: string;
        trxId: string;
      };
    }

    const numbers = (va: { partnerServiceId: string; customerNo: string; virtualAccountNo: string }) => ({
      partnerServiceId: va.partnerServiceId,
      customerNo: va.customerNo,
      virtualAccountNo: va.virtualAccountNo,
    });

    const inquire = (va: Parameters<typeof numbers>[0], by = bank) =>
      call(by, `${API}/inquiry`, {
        ...numbers(va),
        inquiryRequestId: `INQ-${++seq}`,
        trxDateInit: ts(),
        channelCode: 6011,
      });

    const payFlag = (va: Parameters<typeof numbers>[0], over: Record<string, unknown> = {}, by = bank) =>
      call(by, `${API}/payment`, {
        ...numbers(va),
        paymentRequestId: `PAY-${++seq}`,
        paidAmount: idr('150000.00'),
        referenceNo: `BNK-00${seq}`,
        flagAdvise: 'N',
        channelCode: '6011',
        unknownBankField: { ignored: true },
        ...over,
      });

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ clock, store: opened.store });
      const m = await gw.createMerchant();
      merchant = await authenticate(gw.url, { ...m, clientKey: m.clientKey });
      // The helper took the token at real time; the manual clock starts at real time too.
      bank = await connectBank('Bank Central', '014', bankPublicPem);
      otherBank = await connectBank('Bank Lain', '009');
    });
    let cleanup: () => Promise<void> = async () => undefined;
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('answers an inquiry with the bill, then a payment flag that pays the VA and notifies the merchant once', async () => {
      const va = await createVa();
      const inq = await call(bank, `${API}/inquiry`, {
        ...numbers(va),
        inquiryRequestId: 'INQ-1',
        channelCode: 6011,
      });
      assert.equal(inq.status, 200, inq.text);
      assert.deepEqual(inq.body, {
        responseCode: '2002400',
        responseMessage: 'Successful',
        virtualAccountData: {
          inquiryStatus: '00',
          inquiryReason: SUCCESS,
          ...numbers(va),
          virtualAccountName: 'Budi Santoso',
          inquiryRequestId: 'INQ-1',
          totalAmount: idr('150000.00'),
          virtualAccountTrxType: 'C',
          billDetails: [],
          freeTexts: [],
        },
      });

      const pay = await call(bank, `${API}/payment`, {
        ...numbers(va),
        paymentRequestId: 'PAY-1',
        paidAmount: idr('150000.00'),
        trxDateTime: '2026-11-23T10:00:00+07:00',
        referenceNo: 'BNK/778-12',
        flagAdvise: 'N',
        additionalInfo: { payerName: 'BUDI S' },
      });
      assert.equal(pay.status, 200, pay.text);
      assert.deepEqual(pay.body, {
        responseCode: '2002500',
        responseMessage: 'Successful',
        virtualAccountData: {
          paymentFlagStatus: '00',
          paymentFlagReason: SUCCESS,
          paymentRequestId: 'PAY-1',
          paidAmount: idr('150000.00'),
          ...numbers(va),
          virtualAccountName: 'Budi Santoso',
          trxDateTime: '2026-11-23T10:00:00+07:00',
        },
      });
      const txn = await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo);
      assert.equal(txn?.status, '00');
      assert.equal(txn?.paidAmount, '150000.00');
      const notes = await gw.store.notificationsOf(txn?.referenceNo as string);
      assert.equal(notes.length, 1);
      const body = JSON.parse(notes[0]?.body as string);
      assert.equal(body.originalPartnerReferenceNo, va.trxId);
      assert.equal(body.latestTransactionStatus, '00');
      assert.deepEqual(body.amount, idr('150000.00'));
      assert.deepEqual(
        [body.additionalInfo.payerIssuer, body.additionalInfo.payerName, body.additionalInfo.payerRefId],
        ['014', 'BUDI S', '77812'],
      );

      // The bank timed out and advises the same payment again: the original answer, nothing new.
      const repeat = await call(bank, `${API}/payment`, {
        ...numbers(va),
        paymentRequestId: 'PAY-1',
        paidAmount: idr('150000.00'),
        trxDateTime: '2026-11-23T10:00:05+07:00',
        referenceNo: 'BNK/778-12',
        flagAdvise: 'Y',
      });
      assert.equal(repeat.status, 200);
      assert.equal(repeat.text, pay.text);
      assert.equal((await gw.store.notificationsOf(txn?.referenceNo as string)).length, 1);

      // Another payment of a paid VA, and an inquiry about it.
      const second = await payFlag(va);
      assert.equal(second.status, 404);
      assert.deepEqual(second.body, { responseCode: '4042514', responseMessage: 'Paid Bill' });
      assert.deepEqual((await inquire(va)).body, { responseCode: '4042414', responseMessage: 'Paid Bill' });
    });

    it('answers a paymentRequestId reused for another VA or another amount with 4092500 and pays nothing', async () => {
      const first = await createVa();
      const paid = await payFlag(first, { paymentRequestId: 'PAY-REUSED' });
      assert.equal(paid.status, 200, paid.text);
      const firstTxn = await gw.store.findTransactionByVirtualAccountNo(first.virtualAccountNo);
      const second = await createVa({ totalAmount: idr('250000.00') });
      const secondTxn = await gw.store.findTransactionByVirtualAccountNo(second.virtualAccountNo);

      // Another VA under the used id: no "Successful", the VA stays unpaid, its merchant hears nothing.
      const otherVa = await payFlag(second, { paymentRequestId: 'PAY-REUSED', paidAmount: idr('250000.00') });
      assert.equal(otherVa.status, 409, otherVa.text);
      assert.deepEqual(otherVa.body, { responseCode: '4092500', responseMessage: 'Conflict' });
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(second.virtualAccountNo))?.status, '01');
      assert.equal((await gw.store.notificationsOf(secondTxn?.referenceNo as string)).length, 0);

      // The same VA under the used id with another amount is not a repeat either.
      const otherAmount = await payFlag(first, { paymentRequestId: 'PAY-REUSED', paidAmount: idr('150000.01') });
      assert.equal(otherAmount.status, 409, otherAmount.text);
      assert.deepEqual(otherAmount.body, { responseCode: '4092500', responseMessage: 'Conflict' });
      // An unknown VA under the used id is refused too, before "Not Found" could hide the reuse.
      const unknown = await payFlag(
        { partnerServiceId: second.partnerServiceId, customerNo: '99999999999', virtualAccountNo: 'X' },
        { paymentRequestId: 'PAY-REUSED' },
      );
      assert.equal(unknown.status, 409, unknown.text);

      // The true repeat still answers the original answer, byte for byte, and notifies once.
      const repeat = await payFlag(first, { paymentRequestId: 'PAY-REUSED', flagAdvise: 'Y' });
      assert.equal(repeat.status, 200);
      assert.equal(repeat.text, paid.text);
      assert.equal((await gw.store.notificationsOf(firstTxn?.referenceNo as string)).length, 1);

      // The second VA is still payable under its own id.
      const own = await payFlag(second, { paidAmount: idr('250000.00') });
      assert.equal(own.status, 200, own.text);
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(second.virtualAccountNo))?.status, '00');
    });

    it('finds a VA whose number the bank sent trimmed or with its partnerServiceId unpadded', async () => {
      const va = await createVa();
      const r = await call(bank, `${API}/inquiry`, {
        partnerServiceId: va.partnerServiceId.trim(),
        customerNo: va.customerNo,
        virtualAccountNo: va.virtualAccountNo.trim(),
        inquiryRequestId: 'INQ-TRIM',
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.virtualAccountData.virtualAccountNo, va.virtualAccountNo);
    });

    it('refuses another amount for a closed VA with 4042513, and takes any positive amount for an open one', async () => {
      const va = await createVa();
      assert.deepEqual((await payFlag(va, { paidAmount: idr('149999.99') })).body, {
        responseCode: '4042513',
        responseMessage: 'Invalid Amount',
      });
      const open = await createVa({ virtualAccountTrxType: 'O', totalAmount: undefined });
      const inq = await inquire(open);
      assert.deepEqual(inq.body.virtualAccountData.totalAmount, idr('0.00'));
      assert.equal(inq.body.virtualAccountData.virtualAccountTrxType, 'O');
      assert.equal((await payFlag(open, { paidAmount: idr('0.00') })).body.responseCode, '4042513');
      const paid = await payFlag(open, { paidAmount: idr('12345.67') });
      assert.equal(paid.status, 200, paid.text);
      const txn = await gw.store.findTransactionByVirtualAccountNo(open.virtualAccountNo);
      assert.equal(txn?.paidAmount, '12345.67');
    });

    it('answers [Expired] for an expired VA and for a deleted one', async () => {
      const expiring = await createVa({ expiredDate: formatJakartaTimestamp(clock.now() + 3_600_000) });
      const deleted = await createVa();
      const del = await call(
        await fresh(merchant),
        `${API}/delete-va`,
        { ...numbers(deleted), trxId: deleted.trxId },
        {
          method: 'DELETE',
        },
      );
      assert.equal(del.status, 200, del.text);
      clock.advance(2 * 3_600_000);
      // The merchant's token outlived the clock; take fresh ones.
      for (const va of [expiring, deleted]) {
        const bankNow = await connectBankToken();
        assert.deepEqual((await inquire(va, bankNow)).body, {
          responseCode: '4042419',
          responseMessage: 'Invalid Bill/Virtual Account [Expired]',
        });
        assert.deepEqual((await payFlag(va, {}, bankNow)).body, {
          responseCode: '4042519',
          responseMessage: 'Invalid Bill/Virtual Account [Expired]',
        });
      }
      const txn = await gw.store.findTransactionByVirtualAccountNo(expiring.virtualAccountNo);
      assert.deepEqual([txn?.status, txn?.statusDesc], ['06', 'Expired']);
    });

    async function connectBankToken(): Promise<SnapCaller & { id: string }> {
      const token = await postToken(gw.url, {
        clientKey: bank.clientKey,
        privateKeyPem: bankPrivatePem,
        timestamp: ts(),
      });
      assert.equal(token.status, 200, token.text);
      return { ...bank, accessToken: token.body.accessToken };
    }

    it('answers Not Found for an unknown VA, for numbers that do not match, and for another bank’s VA', async () => {
      const b = await connectBankToken();
      const va = await createVa();
      const unknown = { ...numbers(va), virtualAccountNo: `${va.partnerServiceId}999999999999` };
      const notFoundInquiry = { responseCode: '4042412', responseMessage: 'Invalid Bill/Virtual Account [Not Found]' };
      const notFoundPayment = { responseCode: '4042512', responseMessage: 'Invalid Bill/Virtual Account [Not Found]' };
      assert.deepEqual((await inquire(unknown, b)).body, notFoundInquiry);
      assert.deepEqual((await payFlag(unknown, {}, b)).body, notFoundPayment);
      assert.deepEqual((await inquire({ ...numbers(va), customerNo: '000000000001' }, b)).body, notFoundInquiry);
      // VA of bank 014, asked about by bank 009; and a VA of bank 009 asked about by 014.
      const other = await connectOther();
      assert.deepEqual((await inquire(va, other)).body, notFoundInquiry);
      assert.deepEqual((await payFlag(va, {}, other)).body, notFoundPayment);
      const va009 = await createVa({ additionalInfo: { bankCode: '009' } });
      assert.deepEqual((await inquire(va009, b)).body, notFoundInquiry);
      assert.equal((await inquire(va009, other)).status, 200);
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo))?.status, '01');
    });

    async function connectOther(): Promise<SnapCaller & { id: string }> {
      const token = await postToken(gw.url, {
        clientKey: otherBank.clientKey,
        clientSecret: otherBank.clientSecret,
        timestamp: ts(),
      });
      return { ...otherBank, accessToken: token.body.accessToken };
    }

    it('refuses a merchant’s token on a bank path, and a bank’s token on a merchant path (401 xx01)', async () => {
      const b = await connectBankToken();
      const m = await fresh(merchant);
      const va = await createVaAs(m);
      const asMerchant = await call(m, `${API}/inquiry`, {
        ...numbers(va),
        inquiryRequestId: 'X',
      });
      assert.equal(asMerchant.status, 401);
      assert.deepEqual(asMerchant.body, { responseCode: '4012401', responseMessage: 'Invalid Token (B2B)' });
      const asBank = await call(b, `${API}/create-va`, {
        virtualAccountName: 'X',
        trxId: 'X',
        totalAmount: idr('1.00'),
      });
      assert.deepEqual(asBank.body, { responseCode: '4012701', responseMessage: 'Invalid Token (B2B)' });
      const status = await call(b, `${API}/status`, { virtualAccountNo: va.virtualAccountNo });
      assert.equal(status.body.responseCode, '4012601');
    });

    async function createVaAs(m: SnapCaller) {
      const r = await call(m, `${API}/create-va`, {
        virtualAccountName: 'Budi',
        trxId: `INV-${++seq}`,
        totalAmount: idr('1000.00'),
        additionalInfo: { bankCode: '014' },
      });
      return r.body.virtualAccountData;
    }

    it('checks the bank’s headers and fields like any SNAP call', async () => {
      const b = await connectBankToken();
      const va = await createVa();
      const wrongPartner = await call({ ...b, partnerId: 'someone-else' }, `${API}/payment`, {
        ...numbers(va),
        paymentRequestId: 'P',
        paidAmount: idr('150000.00'),
      });
      assert.deepEqual(wrongPartner.body, {
        responseCode: '4012500',
        responseMessage: 'Unauthorized. [Unknown Partner]',
      });
      const forged = await call(
        b,
        `${API}/payment`,
        { ...numbers(va), paymentRequestId: 'P', paidAmount: idr('1.00') },
        {
          secret: 'not-the-secret',
        },
      );
      assert.deepEqual(forged.body, { responseCode: '4012500', responseMessage: 'Unauthorized. [Invalid Signature]' });
      const cases: Array<[Record<string, unknown>, string, string]> = [
        [{ paymentRequestId: undefined }, '4002502', 'Invalid Mandatory Field {paymentRequestId}'],
        [{ paymentRequestId: 'x'.repeat(129) }, '4002501', 'Invalid Field Format {paymentRequestId}'],
        [{ paidAmount: undefined }, '4002502', 'Invalid Mandatory Field {paidAmount}'],
        [{ paidAmount: { value: 150000, currency: 'IDR' } }, '4002501', 'Invalid Field Format {paidAmount.value}'],
        [{ paidAmount: idr('150000.5') }, '4002501', 'Invalid Field Format {paidAmount.value}'],
        [{ partnerServiceId: undefined }, '4002502', 'Invalid Mandatory Field {partnerServiceId}'],
        [{ virtualAccountNo: 7 }, '4002501', 'Invalid Field Format {virtualAccountNo}'],
        [{ flagAdvise: 'X' }, '4002501', 'Invalid Field Format {flagAdvise}'],
        [{ trxDateTime: 'yesterday' }, '4002501', 'Invalid Field Format {trxDateTime}'],
      ];
      for (const [over, code, message] of cases) {
        const r = await payFlag(va, over, b);
        assert.deepEqual(r.body, { responseCode: code, responseMessage: message }, JSON.stringify(over));
      }
      const noInquiryId = await call(b, `${API}/inquiry`, numbers(va));
      assert.deepEqual(noInquiryId.body, {
        responseCode: '4002402',
        responseMessage: 'Invalid Mandatory Field {inquiryRequestId}',
      });
      const notJson = await call(b, `${API}/payment`, 'not json');
      assert.deepEqual(notJson.body, { responseCode: '4002500', responseMessage: 'Bad Request' });
      assert.equal((await gw.store.findTransactionByVirtualAccountNo(va.virtualAccountNo))?.status, '01');
    });

    it('logs every inbound call per provider, with the answer', async () => {
      const r = await gw.admin('GET', `/providers/${bank.id}/inbound?limit=5`);
      assert.equal(r.status, 200);
      assert.equal(r.body.items.length, 5);
      const newest = r.body.items[0];
      assert.equal(newest.method, 'POST');
      assert.match(newest.path, /^\/api\/snap\/v1\.0\/transfer-va\/(inquiry|payment)$/);
      assert.match(newest.responseCode, /^\d{7}$/);
      assert.equal(typeof newest.durationMs, 'number');
      assert.match(newest.at, /Z$/);
      assert.ok(r.body.nextCursor);
      assert.equal((await gw.admin('GET', '/providers/nope/inbound')).status, 404);
    });

    it('refuses a disabled bank’s tokens at once, old and new', async () => {
      const before = await connectOther();
      const va = await createVa({ additionalInfo: { bankCode: '009' } });
      assert.equal((await inquire(va, before)).status, 200);
      const off = await gw.admin('PATCH', `/providers/${otherBank.id}`, { status: 'disabled' });
      assert.equal(off.status, 200);
      assert.equal(off.body.status, 'disabled');
      const refused = await postToken(gw.url, {
        clientKey: otherBank.clientKey,
        clientSecret: otherBank.clientSecret,
        timestamp: ts(),
      });
      assert.deepEqual(refused.body, { responseCode: '4017100', responseMessage: 'Unauthorized. [Client Disabled]' });
      assert.equal((await inquire(va, before)).body.responseCode, '4012401');
    });
  });
}

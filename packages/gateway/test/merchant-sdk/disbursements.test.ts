// docs/protocol.md#disbursements through the merchant SDK against a real sandbox gateway: account
// inquiry (16), transfer (18, paid at once or answered 202 pending), transfer status (36), and the
// transfer callback received by a merchant server built on the SDK's handlers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type CallbackResult,
  createCallbackHandler,
  createSnapClient,
  createTokenClient,
  createTransferCallbackHandler,
  type SnapClient,
  TRANSFER_CALLBACK_PATH,
  type TransferEvent,
  type TransferNotification,
  writeResult,
} from '@snapgate/merchant-sdk';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';

const FAST = { SNAPGATE_RETRY_SCHEDULE: '0s,50ms,50ms,50ms', SNAPGATE_RATE_LIMIT: 'off' };
const ACK = { responseCode: '2002600', responseMessage: 'Success' };
const idr = (value: string) => ({ value, currency: 'IDR' });
let refs = 0;
const ref = (p: string) => `${p}-${Date.now()}-${++refs}`;

interface NotificationView {
  id: string;
  referenceNo: string;
  kind: string;
  state: string;
  latestTransactionStatus: string;
}

describe('merchant-sdk disbursements against a real gateway (docs/protocol.md#disbursements)', () => {
  let gw: TestGateway;
  let receiver: Receiver;
  let m: TestMerchant;
  let snap: SnapClient;
  /** The HTTP status of every SNAP answer the client read, in order. */
  const httpStatuses: number[] = [];
  const transferEvents: TransferEvent[] = [];
  const transferResults: CallbackResult<TransferNotification>[] = [];
  const paymentResults: CallbackResult[] = [];

  before(async () => {
    // The merchant's server: transfer callbacks on their path, payment callbacks on the others,
    // each to the SDK handler of its kind.
    receiver = await startReceiver();
    gw = await startGateway({ dispatch: true, env: FAST });
    m = await gw.createMerchant({
      partnerId: 'PARTNER-SDK-DISB',
      callbackBaseUrl: receiver.baseUrl,
      callbackSignature: 'hmac-sha512',
      fees: { qris: { percent: '0.70' }, disbursement: { fixed: '1000.00' } },
      limits: { disbursementDaily: '1000000.00' },
    });
    const key = { clientSecret: m.clientSecret, partnerId: m.partnerId };
    const transfers = createTransferCallbackHandler({
      ...key,
      onTransfer: (e) => void transferEvents.push(e),
      onOutcome: (r) => transferResults.push(r),
    });
    const payments = createCallbackHandler({
      ...key,
      onStatus: () => undefined,
      onOutcome: (r) => paymentResults.push(r),
    });
    receiver.set(async (req, res) => {
      const handler = req.url.startsWith(TRANSFER_CALLBACK_PATH) ? transfers : payments;
      writeResult(
        res,
        await handler.handle({ method: req.method, path: req.url, headers: req.headers, rawBody: req.body }),
      );
    });

    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (String(input).includes('/api/snap/v1.0/') && !String(input).includes('access-token')) {
        httpStatuses.push(res.status);
      }
      return res;
    };
    snap = createSnapClient({
      baseUrl: gw.url,
      partnerId: m.partnerId,
      clientSecret: m.clientSecret,
      tokenClient: createTokenClient({ baseUrl: gw.url, clientKey: m.clientKey, clientSecret: m.clientSecret }),
      fetch: recording,
      retryDelayMs: 0,
    });
    // Funded: a paid QRIS of 100,000.00 leaves 99,300.00 pending after the 0.7 % fee.
    const qr = await snap.generateQris({ partnerReferenceNo: ref('FUND'), amount: idr('100000.00') });
    const paid = await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, {});
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
  });
  after(async () => {
    await gw?.close();
    await receiver?.close();
  });

  const transferTo = (accountNo: string, amount = '10000.00') =>
    snap.transfer({
      partnerReferenceNo: ref('DISB'),
      amount: idr(amount),
      beneficiaryAccountName: 'Toko Sumber Rejeki',
      beneficiaryAccountNo: accountNo,
      beneficiaryBankCode: '014',
      remark: 'invoice 88',
      additionalInfo: { batch: 'B-1' },
    });
  const transferNotices = async () =>
    ((await gw.admin('GET', `/notifications?merchantId=${m.id}`)).body.items as NotificationView[]).filter(
      (n) => n.kind === 'transfer',
    );
  const lastStatus = () => httpStatuses.at(-1);

  it('asks who holds an account, and throws 404 4041611 for one the bank does not know', async () => {
    const found = await snap.accountInquiry({
      beneficiaryBankCode: '014',
      beneficiaryAccountNo: '1234567890',
      partnerReferenceNo: 'INQ-1',
      additionalInfo: { note: 'x' },
    });
    assert.deepEqual(found, {
      responseCode: '2001600',
      responseMessage: 'Successful',
      partnerReferenceNo: 'INQ-1',
      beneficiaryAccountName: 'SANDBOX 7890',
      beneficiaryAccountNo: '1234567890',
      beneficiaryBankCode: '014',
      currency: 'IDR',
      additionalInfo: { note: 'x' },
    });
    await assert.rejects(snap.accountInquiry({ beneficiaryBankCode: '014', beneficiaryAccountNo: '1234567000' }), {
      name: 'SnapApiError',
      httpStatus: 404,
      responseCode: '4041611',
    });
  });

  it('sends a transfer paid at once (200 2001800), whose status is 00', async () => {
    const sent = await transferTo('1234567890');
    assert.equal(lastStatus(), 200);
    assert.equal(sent.responseCode, '2001800');
    assert.equal(sent.responseMessage, 'Successful');
    assert.match(sent.referenceNo, /^PO[0-9A-F]{32}$/);
    assert.deepEqual(
      [sent.amount, sent.beneficiaryAccountNo, sent.beneficiaryBankCode, sent.additionalInfo],
      [idr('10000.00'), '1234567890', '014', { batch: 'B-1' }],
    );
    const s = await snap.transferStatus({ originalPartnerReferenceNo: sent.partnerReferenceNo });
    assert.deepEqual(
      [s.responseCode, s.latestTransactionStatus, s.transactionStatusDesc, s.originalReferenceNo, s.serviceCode],
      ['2003600', '00', 'Success', sent.referenceNo, '18'],
    );
    // Refusals are thrown with the gateway's code: a used partnerReferenceNo, an unknown transfer.
    await assert.rejects(
      snap.transfer({
        partnerReferenceNo: sent.partnerReferenceNo,
        amount: idr('1.00'),
        beneficiaryAccountName: 'Toko',
        beneficiaryAccountNo: '1234567890',
        beneficiaryBankCode: '014',
      }),
      { name: 'SnapApiError', httpStatus: 409, responseCode: '4091801' },
    );
    await assert.rejects(snap.transferStatus({ originalPartnerReferenceNo: ref('NEVER') }), {
      httpStatus: 404,
      responseCode: '4043601',
    });
  });

  it('returns a pending transfer (202 2021800) instead of throwing it; its status query ends it: 00', async () => {
    const sent = await transferTo('1234567111');
    assert.equal(lastStatus(), 202);
    assert.deepEqual([sent.responseCode, sent.responseMessage], ['2021800', 'Request In Progress']);
    assert.match(sent.referenceNo, /^PO[0-9A-F]{32}$/);
    const s = await snap.transferStatus({
      originalPartnerReferenceNo: sent.partnerReferenceNo,
      originalReferenceNo: sent.referenceNo,
    });
    assert.equal(lastStatus(), 200);
    assert.deepEqual(
      [s.latestTransactionStatus, s.transactionStatusDesc, s.originalReferenceNo],
      ['00', 'Success', sent.referenceNo],
    );
    // Its end is told by callback too, applied once by the SDK's transfer handler.
    const e = await waitFor('the paid transfer’s callback', () =>
      transferEvents.find((x) => x.notification.originalReferenceNo === sent.referenceNo),
    );
    assert.deepEqual([e.action, e.status], ['PAID', '00']);
  });

  it('tells a pending transfer’s end by a callback the SDK verifies, applies once and acknowledges', async () => {
    const sent = await transferTo('1234567222', '12345.00');
    assert.equal(lastStatus(), 202);
    assert.equal(sent.responseCode, '2021800');
    // Its status query asks the bank, which fails it: the end is written with its callback.
    const s = await snap.transferStatus({ originalPartnerReferenceNo: sent.partnerReferenceNo });
    assert.equal(s.latestTransactionStatus, '06');
    const result = await waitFor('the failed transfer’s callback', () =>
      transferResults.find((r) => r.notification?.originalReferenceNo === sent.referenceNo),
    );
    assert.deepEqual([result.outcome, result.action, result.httpStatus, result.body], ['applied', 'FAILED', 200, ACK]);
    const e = transferEvents.find((x) => x.notification.originalReferenceNo === sent.referenceNo);
    assert.ok(e);
    assert.deepEqual(
      [e.action, e.status, e.previousStatus, e.path],
      ['FAILED', '06', undefined, TRANSFER_CALLBACK_PATH],
    );
    assert.deepEqual(e.notification, {
      originalPartnerReferenceNo: sent.partnerReferenceNo,
      originalReferenceNo: sent.referenceNo,
      serviceCode: '18',
      latestTransactionStatus: '06',
      transactionStatusDesc: 'Failed',
      amount: idr('12345.00'),
      beneficiaryAccountNo: '1234567222',
      beneficiaryBankCode: '014',
      additionalInfo: { batch: 'B-1' },
    });
    // The gateway holds it delivered: acknowledged on the first attempt, as any callback.
    const notice = await waitFor('the transfer notification delivered', async () => {
      const n = (await transferNotices()).find((x) => x.referenceNo === sent.referenceNo);
      return n?.state === 'delivered' && n;
    });
    assert.equal(notice.id, e.externalId);
    assert.equal(notice.latestTransactionStatus, '06');
    const shown = await gw.admin('GET', `/notifications/${notice.id}`);
    assert.equal(shown.body.attempts.length, 1);
    assert.deepEqual(JSON.parse(shown.body.attempts[0].responseBody), ACK);
    assert.equal(transferEvents.filter((x) => x.notification.originalReferenceNo === sent.referenceNo).length, 1);
  });

  it('sent transfer callbacks only for the transfers answered 202, and none of them to the payment handler', async () => {
    const notices = await waitFor('both transfer notifications delivered', async () => {
      const all = await transferNotices();
      return all.length === 2 && all.every((n) => n.state === 'delivered') && all;
    });
    assert.deepEqual(notices.map((n) => n.latestTransactionStatus).sort(), ['00', '06']);
    assert.deepEqual(
      transferResults.map((r) => r.outcome),
      ['applied', 'applied'],
    );
    // The funding QRIS's payment callback went to the payment handler, which applied it.
    await waitFor('the payment callback', () => paymentResults.length > 0);
    assert.deepEqual(
      paymentResults.map((r) => [r.outcome, r.notification?.latestTransactionStatus]),
      [['applied', '00']],
    );
  });
});

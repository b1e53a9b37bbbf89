// The merchant SDK's e-wallet calls against a real gateway (docs/ewallets.md): pay, status, refund
// and cancel typed; the payment's callbacks verified, applied and acknowledged by an SDK receiver at
// the e-wallet path, a partial refund told to onRefund; a refusal thrown as a SnapApiError.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  CALLBACK_PATHS,
  createSnapClient,
  createTokenClient,
  type RefundEvent,
  SnapApiError,
  type SnapClient,
  type TokenClient,
} from '@snapgate/merchant-sdk';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { approvedAuthCode } from '../helpers/wallet.ts';
import { type SdkReceiver, startSdkReceiver } from './sdk-receiver.ts';

const FAST = { SNAPGATE_RETRY_SCHEDULE: '0s,50ms,50ms,50ms', SNAPGATE_RATE_LIMIT: 'off' };
const WALLET_PATH = '/v1.0/debit/notify';
const idr = (value: string) => ({ value, currency: 'IDR' });
let refs = 0;
const ref = (p: string) => `${p}-${Date.now()}-${++refs}`;

describe('merchant-sdk e-wallet payments against a real gateway (docs/ewallets.md)', () => {
  let gw: TestGateway;
  let receiver: SdkReceiver;
  let snap: SnapClient;
  let tokens: TokenClient;
  const refunds: RefundEvent[] = [];
  before(async () => {
    gw = await startGateway({ dispatch: true, env: FAST });
    const partnerId = 'PARTNER-WALLET';
    const m = await gw.createMerchant({ partnerId });
    receiver = await startSdkReceiver({
      clientSecret: m.clientSecret,
      partnerId,
      onRefund: (e: RefundEvent) => void refunds.push(e),
    } as Parameters<typeof startSdkReceiver>[0]);
    const patched = await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: receiver.baseUrl });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    tokens = createTokenClient({ baseUrl: gw.url, clientKey: m.clientKey, clientSecret: m.clientSecret });
    snap = createSnapClient({
      baseUrl: gw.url,
      partnerId,
      clientSecret: m.clientSecret,
      tokenClient: tokens,
      retryDelayMs: 0,
    });
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  const pay = (value: string) =>
    snap.payDebit({
      partnerReferenceNo: ref('EW'),
      amount: idr(value),
      payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: idr(value) }],
    });
  const eventOf = (referenceNo: string, status: string) =>
    waitFor(`the SDK receiver's ${status} of ${referenceNo}`, () =>
      receiver.events.find((e) => e.notification.originalReferenceNo === referenceNo && e.status === status),
    );

  it('suggests the e-wallet callback path with the others', () => {
    assert.ok((CALLBACK_PATHS as readonly string[]).includes(WALLET_PATH));
  });

  it('pays, reads the status, and receives the approval as PAID at the e-wallet path, acknowledged', async () => {
    const p = await pay('20000.00');
    assert.equal(p.responseCode, '2005400');
    assert.match(p.webRedirectUrl ?? '', /\/pay\/[A-Za-z0-9_-]{22}\/wallet$/);
    assert.equal(`${p.additionalInfo.checkoutUrl}/wallet`, p.webRedirectUrl);
    const unpaid = await snap.debitStatus({ originalReferenceNo: p.referenceNo });
    assert.deepEqual(
      [unpaid.responseCode, unpaid.latestTransactionStatus, unpaid.additionalInfo.payOption],
      ['2005500', '01', 'SANDBOXPAY'],
    );
    assert.equal((await gw.admin('POST', `/sandbox/ewallet/${p.referenceNo}/pay`, { payerName: 'ANI' })).status, 200);
    const e = await eventOf(p.referenceNo, '00');
    assert.equal(e.action, 'PAID');
    assert.equal(e.path, WALLET_PATH);
    assert.equal(e.notification.transactionStatusDesc, 'Success');
    assert.equal(e.notification.additionalInfo.payOption, 'SANDBOXPAY');
    assert.deepEqual(e.notification.additionalInfo.feeAmount, idr('300.00'));
    const [n] = await gw.store.notificationsOf(p.referenceNo);
    assert.ok(n);
    await waitFor('the callback delivered', async () => (await gw.store.findNotification(n.id))?.state === 'delivered');
    const paid = await snap.debitStatus({ originalPartnerReferenceNo: p.partnerReferenceNo });
    assert.equal(paid.latestTransactionStatus, '00');
    assert.equal(paid.additionalInfo.payerName, 'ANI');
  });

  it('refunds a part (onRefund, status stays 00) and the rest (04), and throws a refusal as SnapApiError', async () => {
    const p = await pay('10000.00');
    await gw.admin('POST', `/sandbox/ewallet/${p.referenceNo}/pay`, {});
    await eventOf(p.referenceNo, '00');
    const part = await snap.refundDebit({
      originalPartnerReferenceNo: p.partnerReferenceNo,
      partnerRefundNo: ref('RF'),
      refundAmount: idr('4000.00'),
    });
    assert.deepEqual([part.responseCode, part.refundAmount], ['2005800', idr('4000.00')]);
    await waitFor('onRefund of the part', () => refunds.find((r) => r.refund.refundNo === part.refundNo));
    await assert.rejects(
      snap.refundDebit({
        originalPartnerReferenceNo: p.partnerReferenceNo,
        partnerRefundNo: ref('RF'),
        refundAmount: idr('6000.01'),
      }),
      (e: unknown) => e instanceof SnapApiError && e.responseCode === '4045813',
    );
    const rest = await snap.refundDebit({
      originalPartnerReferenceNo: p.partnerReferenceNo,
      originalReferenceNo: p.referenceNo,
      partnerRefundNo: ref('RF'),
      refundAmount: idr('6000.00'),
    });
    await waitFor('onRefund of the rest', () => refunds.find((r) => r.refund.refundNo === rest.refundNo));
    await eventOf(p.referenceNo, '04');
    assert.equal((await snap.debitStatus({ originalReferenceNo: p.referenceNo })).latestTransactionStatus, '04');
  });

  it('cancels an unpaid payment (05, told), and throws 4055701 for a paid one', async () => {
    const p = await pay('5000.00');
    const c = await snap.cancelDebit({ originalPartnerReferenceNo: p.partnerReferenceNo, reason: 'customer left' });
    assert.equal(c.responseCode, '2005700');
    assert.equal(c.originalReferenceNo, p.referenceNo);
    await eventOf(p.referenceNo, '05');
    const q = await pay('5000.00');
    await gw.admin('POST', `/sandbox/ewallet/${q.referenceNo}/pay`, {});
    await assert.rejects(
      snap.cancelDebit({ originalPartnerReferenceNo: q.partnerReferenceNo }),
      (e: unknown) => e instanceof SnapApiError && e.responseCode === '4055701',
    );
  });

  it('binds an account, takes the customer token, pays from it without a redirect, and unbinds', async () => {
    const bound = await snap.bindAccount({
      partnerReferenceNo: ref('CUST'),
      redirectUrl: 'https://shop.example/linked',
      additionalInfo: { payOption: 'SANDBOXPAY' },
    });
    assert.equal(bound.responseCode, '2000700');
    // The customer links the account at the sandbox wallet's page, and comes back with an authCode.
    const authCode = await approvedAuthCode(bound.redirectUrl);
    const customer = await tokens.customerToken({ grantType: 'authorization_code', authCode });
    assert.equal(customer.additionalInfo.referenceNo, bound.referenceNo);
    await assert.rejects(
      tokens.customerToken({ grantType: 'authorization_code', authCode }),
      (e: unknown) => e instanceof SnapApiError && e.responseCode === '4017400',
    );
    const paid = await snap.payDebit(
      {
        partnerReferenceNo: ref('BOUND'),
        amount: idr('12000.00'),
        payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: idr('12000.00') }],
      },
      { customerToken: customer.accessToken },
    );
    assert.equal(paid.webRedirectUrl, undefined);
    assert.equal((await eventOf(paid.referenceNo, '00')).action, 'PAID');
    const refreshed = await tokens.customerToken({ grantType: 'refresh_token', refreshToken: customer.refreshToken });
    const ended = await snap.unbindAccount({}, { customerToken: refreshed.accessToken });
    assert.equal(ended.unlinkResult, 'success');
    await assert.rejects(
      snap.unbindAccount({}, { customerToken: refreshed.accessToken }),
      (e: unknown) => e instanceof SnapApiError && e.responseCode === '4010902',
    );
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSnapClient, createTokenClient, type SnapClient } from '@snapgate/merchant-sdk';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';

let refs = 0;
const ref = (p: string) => `${p}-${Date.now()}-${++refs}`;
const idr = (value: string) => ({ value, currency: 'IDR' });

describe('merchant-sdk payment client against a real gateway (docs/protocol.md#payment-calls)', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  let snap: SnapClient;
  const clientFor = (extra: Partial<Parameters<typeof createSnapClient>[0]> = {}) =>
    createSnapClient({
      baseUrl: gw.url,
      partnerId: m.partnerId,
      clientSecret: m.clientSecret,
      tokenClient: createTokenClient({ baseUrl: gw.url, clientKey: m.clientKey, clientSecret: m.clientSecret }),
      retryDelayMs: 0,
      ...extra,
    });
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    m = await gw.createMerchant({ partnerId: 'PARTNER-SDK', merchantName: 'TOKO SDK', merchantCity: 'BANDUNG' });
    snap = clientFor();
  });
  after(() => gw.close());

  it('generates, queries, pays and refunds a QRIS', async () => {
    const partnerReferenceNo = ref('QR');
    const qr = await snap.generateQris({ partnerReferenceNo, amount: idr('10000.00') });
    assert.equal(qr.responseCode, '2004700');
    assert.equal(qr.partnerReferenceNo, partnerReferenceNo);
    assert.equal(qr.merchantName, 'TOKO SDK');
    assert.match(qr.qrContent, /^000201010212.*6304[0-9A-F]{4}$/);
    assert.match(qr.additionalInfo.validityPeriod, /\+07:00$/);

    const unpaid = await snap.queryQris({ originalReferenceNo: qr.referenceNo });
    assert.equal(unpaid.responseCode, '2005100');
    assert.equal(unpaid.latestTransactionStatus, '01');
    assert.equal(unpaid.paidTime, undefined);

    assert.equal((await gw.admin('POST', `/sandbox/qris/${qr.referenceNo}/pay`, { payerName: 'ANI' })).status, 200);
    const paid = await snap.queryQris({ originalPartnerReferenceNo: partnerReferenceNo });
    assert.equal(paid.latestTransactionStatus, '00');
    assert.deepEqual(paid.amount, idr('10000.00'));
    assert.ok(paid.paidTime);
    assert.equal(paid.additionalInfo?.payerName, 'ANI');

    const part = await snap.refundQris({
      originalPartnerReferenceNo: partnerReferenceNo,
      partnerRefundNo: ref('RF'),
      refundAmount: idr('4000.00'),
      reason: 'one item returned',
    });
    assert.equal(part.responseCode, '2007800');
    assert.deepEqual(part.refundAmount, idr('4000.00'));
    await assert.rejects(
      snap.refundQris({
        originalPartnerReferenceNo: partnerReferenceNo,
        partnerRefundNo: ref('RF'),
        refundAmount: idr('6000.01'),
      }),
      { responseCode: '4047813', httpStatus: 404 },
    );
    await snap.refundQris({
      originalPartnerReferenceNo: partnerReferenceNo,
      partnerRefundNo: ref('RF'),
      refundAmount: idr('6000.00'),
    });
    assert.equal((await snap.queryQris({ originalReferenceNo: qr.referenceNo })).latestTransactionStatus, '04');
  });

  it('cancels an unpaid QRIS, and refuses to cancel it twice with 405 4057701', async () => {
    const qr = await snap.generateQris({ partnerReferenceNo: ref('CX'), amount: idr('500.00') });
    const c = await snap.cancelQris({ originalReferenceNo: qr.referenceNo, reason: 'customer left' });
    assert.equal(c.responseCode, '2007700');
    assert.equal(c.originalReferenceNo, qr.referenceNo);
    assert.ok(c.cancelTime);
    assert.equal((await snap.queryQris({ originalReferenceNo: qr.referenceNo })).latestTransactionStatus, '05');
    await assert.rejects(snap.cancelQris({ originalReferenceNo: qr.referenceNo }), {
      name: 'SnapApiError',
      httpStatus: 405,
      responseCode: '4057701',
      responseMessage: 'Requested Operation Is Not Allowed',
    });
  });

  it('creates, inquires, updates, pays and reads the status of a VA', async () => {
    const trxId = ref('VA');
    const created = await snap.createVa({
      virtualAccountName: 'BUDI',
      trxId,
      totalAmount: idr('75000.00'),
      virtualAccountEmail: '',
      additionalInfo: { bankCode: '014' },
    });
    assert.equal(created.responseCode, '2002700');
    const va = created.virtualAccountData;
    assert.equal(va.trxId, trxId);
    assert.equal(va.virtualAccountNo, `${va.partnerServiceId}${va.customerNo}`);
    assert.equal(va.partnerServiceId.length, 8);
    assert.equal(va.additionalInfo.bankCode, '014');

    const inquiry = await snap.inquiryVa({ virtualAccountNo: va.virtualAccountNo, trxId });
    assert.equal(inquiry.responseCode, '2003000');
    assert.equal(inquiry.virtualAccountData.latestTransactionStatus, '01');

    const updated = await snap.updateVa({
      virtualAccountNo: va.virtualAccountNo,
      virtualAccountName: 'BUDI S',
      totalAmount: idr('80000.00'),
    });
    assert.equal(updated.responseCode, '2002800');
    assert.equal(updated.virtualAccountData.virtualAccountName, 'BUDI S');
    assert.deepEqual(updated.virtualAccountData.totalAmount, idr('80000.00'));

    const unpaid = await snap.vaStatus({ virtualAccountNo: va.virtualAccountNo });
    assert.equal(unpaid.responseCode, '2002600');
    assert.equal(unpaid.virtualAccountData.paymentFlagStatus, '01');

    const pay = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va.virtualAccountNo)}/pay`, {});
    assert.equal(pay.status, 200, JSON.stringify(pay.body));
    const status = await snap.vaStatus({ virtualAccountNo: va.virtualAccountNo, trxId });
    assert.equal(status.virtualAccountData.paymentFlagStatus, '00');
    assert.deepEqual(status.virtualAccountData.paidAmount, idr('80000.00'));
    assert.equal(status.virtualAccountData.latestTransactionStatus, '00');
  });

  it('deletes an unpaid VA with DELETE, after which it cannot be paid', async () => {
    const trxId = ref('DV');
    const va = (await snap.createVa({ virtualAccountName: 'SARI', trxId, totalAmount: idr('1000.00') }))
      .virtualAccountData;
    const deleted = await snap.deleteVa({ virtualAccountNo: va.virtualAccountNo, trxId });
    assert.equal(deleted.responseCode, '2003100');
    assert.equal(deleted.virtualAccountData.virtualAccountNo, va.virtualAccountNo);
    const pay = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(va.virtualAccountNo)}/pay`, {});
    assert.equal(pay.status, 404);
    await assert.rejects(snap.deleteVa({ virtualAccountNo: va.virtualAccountNo }), { responseCode: '4053101' });
  });

  it("throws the gateway's SNAP error for a refused request", async () => {
    await assert.rejects(snap.queryQris({ originalReferenceNo: '000000000000000000' }), {
      httpStatus: 404,
      responseCode: '4045101',
      responseMessage: 'Transaction Not Found',
    });
    const partnerReferenceNo = ref('DUP');
    await snap.generateQris({ partnerReferenceNo, amount: idr('1.00') });
    await assert.rejects(snap.generateQris({ partnerReferenceNo, amount: idr('1.00') }), {
      httpStatus: 409,
      responseCode: '4094701',
      responseMessage: 'Duplicate partnerReferenceNo',
    });
    await assert.rejects(snap.createVa({ virtualAccountName: 'X', trxId: ref('NOAMT') }), {
      responseCode: '4002702',
      responseMessage: 'Invalid Mandatory Field {totalAmount}',
    });
    const wrongSecret = clientFor({ clientSecret: 'not-the-secret' });
    await assert.rejects(wrongSecret.queryQris({ originalReferenceNo: 'x' }), {
      responseCode: '4015100',
      responseMessage: 'Unauthorized. [Invalid Signature]',
    });
    const wrongPartner = clientFor({ partnerId: 'SOMEONE-ELSE' });
    await assert.rejects(wrongPartner.queryQris({ originalReferenceNo: 'x' }), {
      responseMessage: 'Unauthorized. [Unknown Partner]',
    });
  });

  it('retries a lost answer with the same X-EXTERNAL-ID and bytes: the gateway replays, nothing runs twice', async () => {
    const sent: Array<{ externalId: string | null; body: string }> = [];
    let lost = 0;
    // The first attempt reaches the gateway, which runs it; its answer is lost on the way back.
    const flaky: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      if (String(input).includes('/qr/')) {
        sent.push({
          externalId: headers.get('x-external-id'),
          body: Buffer.from(init?.body as Uint8Array).toString('utf8'),
        });
      }
      const res = await fetch(input, init);
      if (String(input).includes('/qr/qr-mpm-generate') && lost++ === 0) {
        await res.arrayBuffer();
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
        });
      }
      return res;
    };
    const retrying = clientFor({ fetch: flaky });
    const partnerReferenceNo = ref('RETRY');
    const qr = await retrying.generateQris({ partnerReferenceNo, amount: idr('12345.00') });
    assert.equal(sent.length, 2);
    assert.equal(sent[0]?.externalId, sent[1]?.externalId);
    assert.equal(sent[0]?.body, sent[1]?.body);
    // One transaction, and the answer is the one the first attempt produced.
    const txns = await gw.admin('GET', `/transactions?merchantId=${m.id}&limit=500`);
    const mine = (txns.body.items as Array<{ partnerReferenceNo: string; referenceNo: string }>).filter(
      (t) => t.partnerReferenceNo === partnerReferenceNo,
    );
    assert.equal(mine.length, 1);
    assert.equal(mine[0]?.referenceNo, qr.referenceNo);
  });

  it('retries a refused connection, then gives up with the network error', async () => {
    let calls = 0;
    const down: typeof fetch = async () => {
      calls++;
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    };
    await assert.rejects(clientFor({ fetch: down, retries: 2 }).queryQris({ originalReferenceNo: 'x' }), {
      name: 'SnapNetworkError',
      code: 'ECONNREFUSED',
      timedOut: false,
    });
    // The token request is the first to fail; every attempt tries it again.
    assert.equal(calls, 3);
  });
});

import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

/**
 * 20 concurrent refunds of 3,000.00 on a 10,000.00 payment: exactly three go through, nothing is
 * refunded twice, no answer is a 5xx, and the last 1,000.00 makes it Refunded (04).
 */
export async function refundRace(gw: TestGateway): Promise<void> {
  const c = await authenticate(gw.url, await gw.createMerchant());
  const g = (
    await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `RACE-${Date.now()}`,
      amount: { value: '10000.00', currency: 'IDR' },
    })
  ).body;
  assert.equal((await gw.admin('POST', `/sandbox/qris/${g.referenceNo}/pay`, {})).status, 200);
  const refund = (no: string, value: string) =>
    snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-refund', {
      originalPartnerReferenceNo: g.partnerReferenceNo,
      partnerRefundNo: no,
      refundAmount: { value, currency: 'IDR' },
    });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => refund(`R-${i}`, '3000.00')));
  const codes = answers.map((a) => a.body.responseCode as string);
  assert.equal(codes.filter((x) => x === '2007800').length, 3, codes.join(','));
  assert.ok(
    codes.every((x) => x === '2007800' || x === '4047813'),
    codes.join(','),
  );
  const t = await gw.admin('GET', `/transactions/${g.referenceNo}`);
  assert.deepEqual(t.body.refundedAmount, { value: '9000.00', currency: 'IDR' });
  assert.equal(t.body.status, '00');
  const last = await refund('R-last', '1000.00');
  assert.equal(last.body.responseCode, '2007800');
  assert.equal((await gw.admin('GET', `/transactions/${g.referenceNo}`)).body.status, '04');
}

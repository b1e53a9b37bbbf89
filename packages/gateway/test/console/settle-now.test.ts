// docs/console.md, books: "Settle now" says what the settlement took. Its count is of payments (a
// refund is not one): a settlement of two payments, one of them refunded in part, says two payments
// less the refund, never "entries" it did not count. No browser: the form is posted as a browser
// on the console posts it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { noticeAfter, postForm, signInByHand } from './console-gateway.ts';

describe('the console’s "Settle now"', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('says how many payments it took, and the refunds it netted against them', async () => {
    const merchant = await gw.createMerchant({ name: 'Toko Hitung' });
    const caller = await authenticate(gw.url, merchant);
    const paid: string[] = [];
    for (const n of [1, 2]) {
      const g = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `SETTLE-COUNT-${n}`,
        amount: { value: '10000.00', currency: 'IDR' },
      });
      assert.equal(g.status, 200, g.text);
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      paid.push(String(g.body.referenceNo));
    }
    const refund = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-refund', {
      originalPartnerReferenceNo: 'SETTLE-COUNT-1',
      partnerRefundNo: 'SETTLE-COUNT-RF',
      refundAmount: { value: '2500.00', currency: 'IDR' },
    });
    assert.equal(refund.status, 200, refund.text);

    const session = await signInByHand(gw.url);
    const res = await postForm(gw.url, session, '/console/books/settlements', { merchantId: merchant.id });
    const { text, page } = await noticeAfter(gw.url, session, res, 'ok');
    assert.equal(text, 'Settled before now: 2 payments, less Rp 2.500,00 of refunds, in this open settlement.');
    // The settlement's page lists what it took: both payments and the refund.
    assert.equal([...page.matchAll(/class="badge k-(payment|refund)"/g)].length, 3);
  });
});

// Checkout links (docs/checkout.md): every QRIS generate and VA create answers a checkoutUrl whose
// id is random and stored with the transaction; returnUrl is checked and kept; the page is served
// under a strict CSP, framed only by the merchant's own origins, and shows the payer nothing of the
// gateway's or the merchant's ids. On both stores, through the payment and admin APIs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { newExternalId, type SnapCaller, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import { type Order, QR, qrisOrder, shop, VA, vaOrder } from './checkout-kit.ts';

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors";

export function checkoutLinksSuite(under: StoreUnderTest): void {
  describe(`checkout links and the page (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let c: SnapCaller;
    let merchant: Awaited<ReturnType<typeof shop>>['merchant'];
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store });
      ({ merchant, caller: c } = await shop(gw));
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    const idShape = (o: Order) => {
      assert.match(o.checkoutUrl, new RegExp(`^${gw.url.replace(/[.]/g, '\\.')}/pay/[A-Za-z0-9_-]{22}$`));
      assert.ok(!o.checkoutId.includes(o.referenceNo.slice(-6)), 'the id is no reference');
    };

    it('answers a QRIS generate with additionalInfo.checkoutUrl: a fresh random id, stored with the transaction', async () => {
      const [a, b] = [await qrisOrder(gw, c), await qrisOrder(gw, c)];
      idShape(a);
      idShape(b);
      assert.notEqual(a.checkoutId, b.checkoutId);
      assert.deepEqual(Object.keys(a.body.additionalInfo), ['validityPeriod', 'checkoutUrl']);
      assert.equal((await gw.store.findTransactionByCheckoutId(a.checkoutId))?.referenceNo, a.referenceNo);
      assert.equal((await gw.store.findTransaction(b.referenceNo))?.checkoutId, b.checkoutId);
      assert.equal(await gw.store.findTransactionByCheckoutId('AAAAAAAAAAAAAAAAAAAAAA'), undefined);
    });

    it('answers a VA create with virtualAccountData.additionalInfo.checkoutUrl, and inquiry with the same', async () => {
      const [a, b] = [await vaOrder(gw, c), await vaOrder(gw, c, { open: true })];
      idShape(a);
      idShape(b);
      assert.notEqual(a.checkoutId, b.checkoutId);
      assert.deepEqual(a.body.virtualAccountData.additionalInfo, { bankCode: '999', checkoutUrl: a.checkoutUrl });
      const inquiry = await snapCall(gw.url, c, `${VA}/inquiry-va`, { virtualAccountNo: a.virtualAccountNo });
      assert.equal(inquiry.body.virtualAccountData.additionalInfo.checkoutUrl, a.checkoutUrl);
    });

    it('answers an idempotent replay with the same checkoutUrl, byte for byte', async () => {
      const externalId = newExternalId();
      const body = { partnerReferenceNo: `REPLAY-${Date.now()}`, amount: { value: '10000.00', currency: 'IDR' } };
      const first = await snapCall(gw.url, c, `${QR}/qr-mpm-generate`, body, { externalId });
      const again = await snapCall(gw.url, c, `${QR}/qr-mpm-generate`, body, { externalId });
      assert.equal(again.text, first.text);
      const vaBody = { virtualAccountName: 'ANI', trxId: `REPLAY-${Date.now()}`, totalAmount: body.amount };
      const vaId = newExternalId();
      const va1 = await snapCall(gw.url, c, `${VA}/create-va`, vaBody, { externalId: vaId });
      const va2 = await snapCall(gw.url, c, `${VA}/create-va`, vaBody, { externalId: vaId });
      assert.equal(va2.text, va1.text);
      assert.match(va1.body.virtualAccountData.additionalInfo.checkoutUrl, /\/pay\/[A-Za-z0-9_-]{22}$/);
    });

    it('refuses a bad returnUrl with Invalid Field Format naming the field, and keeps a good one for the page', async () => {
      for (const returnUrl of [
        'javascript:alert(1)',
        'ftp://shop.example/x',
        'not a url',
        'https://u:p@shop.example/',
        42,
      ]) {
        const q = await snapCall(gw.url, c, `${QR}/qr-mpm-generate`, {
          partnerReferenceNo: `BAD-${Date.now()}`,
          amount: { value: '1000.00', currency: 'IDR' },
          additionalInfo: { returnUrl },
        });
        assert.equal(q.status, 400, String(returnUrl));
        assert.deepEqual(q.body, {
          responseCode: '4004701',
          responseMessage: 'Invalid Field Format {additionalInfo.returnUrl}',
        });
        const v = await snapCall(gw.url, c, `${VA}/create-va`, {
          virtualAccountName: 'ANI',
          trxId: `BAD-${Date.now()}`,
          totalAmount: { value: '1000.00', currency: 'IDR' },
          additionalInfo: { returnUrl },
        });
        assert.deepEqual(v.body, {
          responseCode: '4002701',
          responseMessage: 'Invalid Field Format {additionalInfo.returnUrl}',
        });
      }
      const o = await qrisOrder(gw, c, { returnUrl: 'https://shop.example/done?order=1&x=2' });
      const page = await (await fetch(o.checkoutUrl)).text();
      assert.ok(page.includes('href="https://shop.example/done?order=1&amp;x=2"'));
    });

    it('serves the page with a strict CSP, no referrer, no sniffing, never framed; nothing the payer should not see', async () => {
      const other = await qrisOrder(gw, c);
      const o = await vaOrder(gw, c);
      const res = await fetch(o.checkoutUrl);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('content-security-policy'), `${CSP} 'none'`);
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const page = await res.text();
      assert.ok(page.includes('KOPI SENJA') && page.includes('Rp 75.000'));
      const sandboxBank = await gw.store.getSetting('sandbox_bank_provider_id');
      for (const secret of [merchant.id, merchant.clientKey, merchant.clientSecret, sandboxBank, other.referenceNo]) {
        assert.ok(!page.includes(secret as string), `the page shows ${secret}`);
      }
      assert.ok(!page.includes('Kopi Senja Operator Name'), 'the operators’ name of the merchant is not shown');
      assert.doesNotMatch(page, /https?:\/\/(?!127\.0\.0\.1)[^"']*\.(js|css)/, 'nothing from elsewhere');
    });

    it('lets a merchant allow its own origins to frame its pages (checkoutFrameAncestors)', async () => {
      const framed = await shop(gw, {
        checkoutFrameAncestors: ['https://shop.example', 'https://pay.shop.example:8443'],
      });
      assert.deepEqual(framed.merchant.checkoutFrameAncestors, [
        'https://shop.example',
        'https://pay.shop.example:8443',
      ]);
      const o = await qrisOrder(gw, framed.caller);
      let res = await fetch(o.checkoutUrl);
      assert.equal(
        res.headers.get('content-security-policy'),
        `${CSP} https://shop.example https://pay.shop.example:8443`,
      );
      assert.equal(res.headers.get('x-frame-options'), null);
      const refused = await gw.admin('PATCH', `/merchants/${framed.merchant.id}`, {
        checkoutFrameAncestors: ['http://shop.example', 'https://shop.example/path'],
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(
        refused.body.errors.map((e: string) => e.split(':')[0]),
        ['checkoutFrameAncestors.0', 'checkoutFrameAncestors.1'],
      );
      const cleared = await gw.admin('PATCH', `/merchants/${framed.merchant.id}`, { checkoutFrameAncestors: [] });
      assert.equal(cleared.body.checkoutFrameAncestors, null);
      res = await fetch(o.checkoutUrl);
      assert.equal(res.headers.get('content-security-policy'), `${CSP} 'none'`);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
    });

    it('answers an unknown or malformed id with a friendly 404 page in either language, never a stack', async () => {
      for (const path of [
        '/pay/AAAAAAAAAAAAAAAAAAAAAA',
        '/pay/short',
        '/pay/..%2F..%2Fetc',
        '/pay/AAAAAAAAAAAAAAAAAAAAAA/nothing',
      ]) {
        const res = await fetch(`${gw.url}${path}`);
        assert.equal(res.status, 404, path);
        assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'$/);
        const page = await res.text();
        assert.match(page, /<html lang="id">[\s\S]*Halaman pembayaran tidak ditemukan/);
        assert.doesNotMatch(page, /at .*\.ts:\d+|Error:/);
      }
      const en = await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA`, {
        headers: { 'accept-language': 'en-GB,en;q=0.9' },
      });
      assert.match(await en.text(), /<html lang="en">[\s\S]*Payment page not found/);
      assert.equal((await fetch(`${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA/events`)).status, 404);
    });

    it('keeps the page of a finished payment, showing how it ended', async () => {
      const o = await qrisOrder(gw, c);
      const cancel = await snapCall(gw.url, c, `${QR}/qr-mpm-cancel`, { originalReferenceNo: o.referenceNo });
      assert.equal(cancel.status, 200);
      const res = await fetch(o.checkoutUrl, { headers: { 'accept-language': 'en' } });
      assert.equal(res.status, 200);
      const page = await res.text();
      assert.match(page, /Payment cancelled/);
      assert.doesNotMatch(page, /<svg|http-equiv="refresh"|sandbox-pay/);
    });
  });
}

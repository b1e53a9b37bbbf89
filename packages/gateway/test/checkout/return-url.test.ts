// A checkout's returnUrl has one form (docs/checkout.md): normalised once when QRIS generate or VA
// create accepts it (WHATWG URL), kept so, and used as kept by the page's link and by its return to
// the shop, by meta refresh without script and by the script with it. Real HTTP, then Chromium.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSuite, type TestChromium } from '../helpers/chromium.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { type SnapCaller, snapCall } from '../helpers/snap.ts';
import { launchBrowser, type Order, payBySandbox, QR, qrisOrder, shop, startShop, vaOrder } from './checkout-kit.ts';

const GIVEN = 'HTTPS://Shop.Example:443/a/../done?x=1';
const KEPT = 'https://shop.example/done?x=1';

describe('a checkout returnUrl is normalised once, and that form is the one used', browserSuite, () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let shopSite: Receiver;
  let b: TestChromium;
  before(async () => {
    gw = await startGateway();
    c = (await shop(gw)).caller;
    shopSite = await startShop();
    b = await launchBrowser();
  });
  after(async () => {
    await b?.close();
    await shopSite?.close();
    await gw?.close();
  });

  const pageOf = async (o: Order) => (await fetch(o.checkoutUrl)).text();
  /** Every place the page names the way back: its link, and its refresh once paid. */
  const waysBack = (page: string) => ({
    links: [...page.matchAll(/<a class="button" href="([^"]*)">/g)].map((m) => m[1]),
    refresh: /<meta http-equiv="refresh" content="3; url=([^"]*)">/.exec(page)?.[1],
  });

  it('keeps a QRIS returnUrl normalised, and links and redirects there once paid', async () => {
    const o = await qrisOrder(gw, c, { returnUrl: GIVEN });
    const txn = await gw.store.findTransaction(o.referenceNo);
    assert.equal(txn?.details.additionalInfo?.returnUrl, KEPT);
    const waiting = await pageOf(o);
    assert.deepEqual(waysBack(waiting), { links: [KEPT], refresh: undefined });
    assert.ok(!waiting.includes('Shop.Example'), 'the form given is nowhere on the page');

    await payBySandbox(gw, o);
    const paid = await pageOf(o);
    assert.deepEqual(waysBack(paid), { links: [KEPT], refresh: KEPT });
    assert.ok(!paid.includes('Shop.Example') && !paid.includes(':443'));
  });

  it('keeps a VA returnUrl normalised, echoes that form, and links and redirects there once paid', async () => {
    const o = await vaOrder(gw, c, { returnUrl: GIVEN });
    assert.equal(o.body.virtualAccountData.additionalInfo.returnUrl, KEPT);
    assert.deepEqual(waysBack(await pageOf(o)), { links: [KEPT], refresh: undefined });
    await payBySandbox(gw, o);
    assert.deepEqual(waysBack(await pageOf(o)), { links: [KEPT], refresh: KEPT });
  });

  it('refuses a returnUrl whose normalised form passes 2048 characters', async () => {
    const long = `https://shop.example/${'é'.repeat(1000)}`;
    assert.ok(long.length <= 2048 && new URL(long).href.length > 2048);
    const r = await snapCall(gw.url, c, `${QR}/qr-mpm-generate`, {
      partnerReferenceNo: `LONG-${Date.now()}`,
      amount: { value: '1000.00', currency: 'IDR' },
      additionalInfo: { returnUrl: long },
    });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      responseCode: '4004701',
      responseMessage: 'Invalid Field Format {additionalInfo.returnUrl}',
    });
  });

  it('takes the payer to that one form in Chromium, without script (meta refresh) and with it', async () => {
    // The shop on 127.0.0.1 (http outside production), given unnormalised, with a quote in its path
    // that the unquoted refresh must carry whole.
    const port = new URL(shopSite.baseUrl).port;
    const given = `HTTP://127.0.0.1:${port}/a/../it's/done?x=1`;
    const kept = `http://127.0.0.1:${port}/it's/done?x=1`;
    assert.equal(new URL(given).href, kept);

    const withoutScript = await qrisOrder(gw, c, { returnUrl: given });
    await payBySandbox(gw, withoutScript);
    const plain = await (await b.newContext({ javaScriptEnabled: false })).newPage();
    await plain.goto(withoutScript.checkoutUrl);
    assert.equal(await plain.getByRole('link', { name: 'Kembali ke toko' }).getAttribute('href'), kept);
    await plain.waitForURL(kept, { timeout: 10_000 });
    await plain.getByRole('heading', { name: 'Back at the shop' }).waitFor();

    const withScript = await qrisOrder(gw, c, { returnUrl: given });
    const live = await (await b.newContext()).newPage();
    await live.goto(withScript.checkoutUrl);
    await payBySandbox(gw, withScript);
    await live.waitForURL(kept, { timeout: 10_000 });
    const arrivals = shopSite.received.filter((r) => r.url === "/it's/done?x=1");
    assert.equal(arrivals.length, 2, JSON.stringify(shopSite.received.map((r) => r.url)));
  });
});

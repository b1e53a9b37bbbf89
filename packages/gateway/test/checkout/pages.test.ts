// The checkout pages in Chromium at 390×844, as a payer uses them (docs/checkout.md): a payment
// made elsewhere (another browser, through the sandbox) shows on the open page by itself within
// 2 s and takes the payer back to the shop; expiry and cancellation show too; without JavaScript
// the page reloads itself until the payment ends; Indonesian by default, English on request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuite, type TestChromium } from '../helpers/chromium.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Receiver, waitFor } from '../helpers/receiver.ts';
import { type SnapCaller, snapCall } from '../helpers/snap.ts';
import {
  launchBrowser,
  type Order,
  payBySandbox,
  QR,
  qrisOrder,
  screenshotPath,
  shop,
  startShop,
  vaOrder,
} from './checkout-kit.ts';

describe('the checkout pages in Chromium', browserSuite, () => {
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
    // Optional: when Chromium cannot start, the servers must still close, or the file never ends.
    await b?.close();
    await shopSite?.close();
    await gw?.close();
  });

  const statusOf = (page: Page, text: string) => page.locator('#status', { hasText: text });
  const open = async (order: Order, options = {}) => {
    const page = await (await b.newContext(options)).newPage();
    const listening = gw.gateway.checkoutStreams.size;
    await page.goto(order.checkoutUrl);
    await waitFor('the page listening for its payment', () => gw.gateway.checkoutStreams.size > listening);
    // Marks this very document: a page that reloaded would have lost it.
    await page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });
    return page;
  };
  const stayed = (page: Page) => page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true);

  /** Pays as another payer would: its own browser context, the page's Pay (sandbox) button. */
  const payFromElsewhere = async (order: Order) => {
    const page = await (await b.newContext({ locale: 'en-US' })).newPage();
    await page.goto(order.checkoutUrl);
    await Promise.all([
      page.waitForURL(order.checkoutUrl),
      page.getByRole('button', { name: 'Pay (sandbox)' }).click(),
    ]);
    await statusOf(page, 'Payment successful').waitFor();
  };

  it('shows a QRIS paid from another browser within 2 s, without reloading, then goes back to the shop', async () => {
    const returnUrl = `${shopSite.baseUrl}/orders/1?paid=1`;
    const o = await qrisOrder(gw, c, { returnUrl });
    const page = await open(o);
    await statusOf(page, 'Menunggu pembayaran').waitFor();
    assert.equal(await page.locator('.qr svg').count(), 1);
    await payFromElsewhere(o);
    await statusOf(page, 'Pembayaran berhasil').waitFor({ timeout: 2000 });
    assert.ok(await stayed(page), 'updated in place');
    assert.equal(await page.locator('.qr').isVisible(), false);
    await page.getByRole('link', { name: 'Kembali ke toko' }).waitFor();
    await page.screenshot({ path: screenshotPath('qris-paid-returning'), fullPage: true });
    await page.waitForURL(returnUrl, { timeout: 10_000 });
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
    assert.ok(shopSite.received.some((r) => r.url === '/orders/1?paid=1'));
  });

  it('shows a VA paid from another browser within 2 s, then goes back to the shop; its number copies', async () => {
    const returnUrl = `${shopSite.baseUrl}/orders/2`;
    const o = await vaOrder(gw, c, { returnUrl });
    const context = await b.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    const page = await context.newPage();
    await page.goto(o.checkoutUrl);
    await waitFor('the page listening', () => gw.gateway.checkoutStreams.size > 0);
    await page.getByRole('button', { name: 'Salin' }).click();
    await page.getByText('Nomor disalin').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), o.virtualAccountNo?.replace(/\s/g, ''));
    await payFromElsewhere(o);
    await statusOf(page, 'Pembayaran berhasil').waitFor({ timeout: 2000 });
    await page.waitForURL(returnUrl, { timeout: 10_000 });
  });

  it('shows the receipt when there is no way back to the shop', async () => {
    const o = await qrisOrder(gw, c);
    const page = await open(o, { locale: 'en-US' });
    await payBySandbox(gw, o);
    await statusOf(page, 'Payment successful').waitFor({ timeout: 2000 });
    const receipt = page.locator('#receipt');
    await receipt.waitFor();
    assert.match(
      (await receipt.textContent()) ?? '',
      /KOPI SENJA[\s\S]*Rp 15\.000[\s\S]*\d+ \w{3} \d{4}, \d\d:\d\d WIB[\s\S]*\d{18}/,
    );
    assert.ok(await stayed(page));
  });

  it('shows the payment time running out, and then expired', async () => {
    const o = await qrisOrder(gw, c, { validitySec: 3 });
    const page = await open(o);
    await statusOf(page, 'Menunggu pembayaran').waitFor();
    assert.match((await page.locator('#countdown').textContent()) ?? '', /^00:0[0-4]$/);
    gw.gateway.expiry.start(200);
    try {
      await statusOf(page, 'Waktu pembayaran habis').waitFor({ timeout: 10_000 });
    } finally {
      await gw.gateway.expiry.stop();
    }
    assert.ok(await stayed(page));
    assert.equal(await page.locator('#countdown').isVisible(), false);
    assert.equal(await page.getByRole('button', { name: 'Bayar (sandbox)' }).isVisible(), false);
  });

  it('shows a QRIS the merchant cancels as cancelled', async () => {
    const o = await qrisOrder(gw, c, { returnUrl: `${shopSite.baseUrl}/orders/3` });
    const page = await open(o);
    const cancel = await snapCall(gw.url, c, `${QR}/qr-mpm-cancel`, { originalReferenceNo: o.referenceNo });
    assert.equal(cancel.status, 200);
    await statusOf(page, 'Pembayaran dibatalkan').waitFor({ timeout: 2000 });
    // Ended without payment: a way back to the shop, but no automatic return.
    await page.getByRole('link', { name: 'Kembali ke toko' }).waitFor();
    assert.equal(await page.locator('#redirecting').isVisible(), false);
    assert.ok(await stayed(page));
  });

  it('works without JavaScript: the page reloads itself until the payment ends, then stops', async () => {
    const o = await qrisOrder(gw, c);
    const context = await b.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(o.checkoutUrl);
    await statusOf(page, 'Menunggu pembayaran').waitFor();
    assert.match(await page.content(), /<noscript><meta http-equiv="refresh" content="5"><\/noscript>/);
    assert.equal(await page.getByRole('button', { name: 'Salin' }).count(), 0);
    await payBySandbox(gw, o);
    await statusOf(page, 'Pembayaran berhasil').waitFor({ timeout: 15_000 });
    assert.doesNotMatch(await page.content(), /http-equiv="refresh"/);
    await page.screenshot({ path: screenshotPath('qris-paid-no-javascript'), fullPage: true });

    // A VA page without script: its steps are there, the copy button (script) is not.
    const va = await vaOrder(gw, c);
    await page.goto(va.checkoutUrl);
    await page.getByRole('heading', { name: 'Cara membayar' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Salin' }).isVisible(), false);
  });

  it('speaks Indonesian by default, English when the browser prefers it, and remembers the toggle', async () => {
    const o = await qrisOrder(gw, c);
    const id = await (await b.newContext({ locale: 'id-ID' })).newPage();
    await id.goto(o.checkoutUrl);
    assert.equal(await id.getAttribute('html', 'lang'), 'id');
    await statusOf(id, 'Menunggu pembayaran').waitFor();

    const context = await b.newContext({ locale: 'en-US' });
    const en = await context.newPage();
    await en.goto(o.checkoutUrl);
    assert.equal(await en.getAttribute('html', 'lang'), 'en');
    await statusOf(en, 'Waiting for payment').waitFor();
    await en.screenshot({ path: screenshotPath('qris-waiting-english'), fullPage: true });
    await en.getByRole('link', { name: 'Bahasa Indonesia' }).click();
    await statusOf(en, 'Menunggu pembayaran').waitFor();
    await en.goto(o.checkoutUrl);
    assert.equal(await en.getAttribute('html', 'lang'), 'id', 'the toggle is remembered');
    await en.getByRole('link', { name: 'English' }).click();
    await statusOf(en, 'Waiting for payment').waitFor();
    // Live labels follow the page's language.
    await payBySandbox(gw, o);
    await statusOf(en, 'Payment successful').waitFor({ timeout: 2000 });
  });
});

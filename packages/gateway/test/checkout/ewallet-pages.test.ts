// An e-wallet payment in Chromium at 390×844, as a payer on a phone makes it (docs/ewallets.md):
// the checkout page's wallet button leads to the sandbox wallet's page, whose real buttons approve
// or decline; the wallet tells the gateway at its notify door, the merchant's server receives the
// signed callback, and the payer lands back on the checkout page (then the shop, once paid).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuite, type TestChromium } from '../helpers/chromium.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { type SnapCaller, snapCall } from '../helpers/snap.ts';
import { registerWallet, startWallet, type TestWallet } from '../helpers/wallet.ts';
import { launchBrowser, screenshotPath, shop, startShop } from './checkout-kit.ts';

const WALLET_ACK = '{"responseCode":"2005600","responseMessage":"Success"}';
let n = 0;

describe('an e-wallet payment in Chromium, on a phone', browserSuite, () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let shopSite: Receiver;
  let merchantServer: Receiver;
  let b: TestChromium;
  let wallet: TestWallet;
  before(async () => {
    wallet = await startWallet();
    gw = await startGateway({ dispatch: true });
    merchantServer = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(WALLET_ACK);
    });
    const made = await shop(gw, { callbackBaseUrl: merchantServer.baseUrl });
    c = made.caller;
    shopSite = await startShop();
    b = await launchBrowser();
  });
  after(async () => {
    await b?.close();
    await shopSite?.close();
    await merchantServer?.close();
    await gw?.close();
    await wallet?.close();
  });

  /** An e-wallet payment through payment-host-to-host, back to the shop at `returnUrl`. */
  async function order(returnUrl: string) {
    const partnerReferenceNo = `WALLET-${Date.now()}-${++n}`;
    const r = await snapCall(gw.url, c, '/api/snap/v1.0/debit/payment-host-to-host', {
      partnerReferenceNo,
      amount: { value: '25000.00', currency: 'IDR' },
      urlParams: [{ url: returnUrl, type: 'PAY_RETURN', isDeeplink: 'N' }],
      payOptionDetails: [
        { payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: { value: '25000.00', currency: 'IDR' } },
      ],
    });
    assert.equal(r.status, 200, r.text);
    return r.body as { referenceNo: string; webRedirectUrl: string; additionalInfo: { checkoutUrl: string } };
  }

  /** Whether anything on the page scrolls sideways at this width. */
  const sideways = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);

  /** The callbacks the merchant's server received for a payment, as parsed bodies. */
  const callbacksOf = (referenceNo: string) =>
    merchantServer.received
      .filter((r) => r.url === '/v1.0/debit/notify')
      .map((r) => JSON.parse(r.body) as Record<string, any>)
      .filter((body) => body.originalReferenceNo === referenceNo);

  it('approves from the wallet’s page: the callback arrives, the page shows it paid, then the shop', async () => {
    const returnUrl = `${shopSite.baseUrl}/orders/wallet-1`;
    const o = await order(returnUrl);
    const page = await (await b.newContext()).newPage();
    await page.goto(o.additionalInfo.checkoutUrl);
    await page.locator('#status', { hasText: 'Menunggu pembayaran' }).waitFor();
    assert.equal(await sideways(page), false, 'the checkout page fits a phone');
    await page.screenshot({ path: screenshotPath('ewallet-waiting'), fullPage: true });
    await Promise.all([
      page.waitForURL(o.webRedirectUrl),
      page.getByRole('link', { name: 'Bayar dengan SANDBOXPAY' }).click(),
    ]);
    await page.getByRole('heading', { name: 'SANDBOXPAY' }).waitFor();
    await page.getByText('KOPI SENJA meminta pembayaran dari dompet Anda.').waitFor();
    assert.equal(await sideways(page), false, 'the wallet’s page fits a phone');
    await page.screenshot({ path: screenshotPath('ewallet-wallet'), fullPage: true });
    await Promise.all([
      page.waitForURL(o.additionalInfo.checkoutUrl),
      page.getByRole('button', { name: 'Setujui' }).click(),
    ]);
    await page.locator('#status', { hasText: 'Pembayaran berhasil' }).waitFor();
    await waitFor('the merchant’s callback of the payment', () =>
      callbacksOf(o.referenceNo).some((body) => body.latestTransactionStatus === '00'),
    );
    const [told] = callbacksOf(o.referenceNo);
    assert.equal(told?.additionalInfo.payOption, 'SANDBOXPAY');
    assert.deepEqual(told?.additionalInfo.feeAmount, { value: '375.00', currency: 'IDR' });
    await waitFor('the callback delivered', async () =>
      (await gw.store.notificationsOf(o.referenceNo)).every((x) => x.state === 'delivered'),
    );
    await page.waitForURL(returnUrl, { timeout: 10_000 });
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
  });

  it('sends the payer of a connected wallet to its page, and on a phone offers its app (the deep link)', async () => {
    await registerWallet(gw, wallet, 'DANA');
    const r = await snapCall(gw.url, c, '/api/snap/v1.0/debit/payment-host-to-host', {
      partnerReferenceNo: `WALLET-${Date.now()}-${++n}`,
      amount: { value: '25000.00', currency: 'IDR' },
      payOptionDetails: [
        { payMethod: 'EMONEY', payOption: 'DANA', transAmount: { value: '25000.00', currency: 'IDR' } },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const { referenceNo, additionalInfo } = r.body;
    const phone = await (await b.newContext({ hasTouch: true, isMobile: true })).newPage();
    await phone.goto(additionalInfo.checkoutUrl);
    const pay = phone.getByRole('link', { name: 'Bayar dengan DANA' });
    await pay.waitFor();
    assert.equal(await pay.getAttribute('href'), `https://wallet.example/authorise/W${referenceNo}`);
    const app = phone.getByRole('link', { name: 'Buka aplikasi DANA' });
    assert.equal(await app.isVisible(), true, 'a phone is offered the wallet’s app');
    assert.equal(await app.getAttribute('href'), `walletapp://authorise?ref=W${referenceNo}`);
    assert.equal(await sideways(phone), false, 'the checkout page fits a phone');
    await phone.screenshot({ path: screenshotPath('ewallet-connected-phone'), fullPage: true });
    // On a computer, where no wallet app is, only the wallet's page.
    const desk = await (await b.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    await desk.goto(additionalInfo.checkoutUrl);
    await desk.getByRole('link', { name: 'Bayar dengan DANA' }).waitFor();
    assert.equal(await desk.locator('#wallet-app').isVisible(), false);
    // The sandbox wallet's page is the sandbox wallet's payments' only: not this one's.
    const sandboxPage = await desk.goto(`${additionalInfo.checkoutUrl}/wallet`);
    assert.equal(sandboxPage?.status(), 404);
  });

  it('links a customer’s account at the sandbox wallet’s consent page, back at the shop with an authCode', async () => {
    const partnerReferenceNo = `CUSTOMER-${Date.now()}-${++n}`;
    const bound = await snapCall(gw.url, c, '/api/snap/v1.0/registration-account-binding', {
      partnerReferenceNo,
      redirectUrl: `${shopSite.baseUrl}/account/linked`,
      additionalInfo: { payOption: 'SANDBOXPAY' },
    });
    assert.equal(bound.status, 200, bound.text);
    const page = await (await b.newContext()).newPage();
    await page.goto(bound.body.redirectUrl);
    await page.getByText('KOPI SENJA ingin menghubungkan akun SANDBOXPAY Anda', { exact: false }).waitFor();
    assert.equal(await sideways(page), false, 'the consent page fits a phone');
    await page.screenshot({ path: screenshotPath('ewallet-binding'), fullPage: true });
    await Promise.all([
      page.waitForURL(/\/account\/linked\?/),
      page.getByRole('button', { name: 'Hubungkan' }).click(),
    ]);
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
    const back = new URL(page.url());
    assert.equal(back.searchParams.get('state'), partnerReferenceNo);
    assert.equal(back.searchParams.get('resultCode'), '00');
    assert.match(back.searchParams.get('authCode') ?? '', /^[\w-]{43}$/);
  });

  it('declines from the wallet’s page in English: the page shows it failed, and the merchant is told 06', async () => {
    const o = await order(`${shopSite.baseUrl}/orders/wallet-2`);
    const page = await (await b.newContext({ locale: 'en-US' })).newPage();
    await page.goto(o.webRedirectUrl);
    await page.getByText('KOPI SENJA asks for a payment from your wallet.').waitFor();
    await Promise.all([
      page.waitForURL(o.additionalInfo.checkoutUrl),
      page.getByRole('button', { name: 'Decline' }).click(),
    ]);
    await page.locator('#status', { hasText: 'Payment failed' }).waitFor();
    await waitFor('the merchant’s callback of the decline', () =>
      callbacksOf(o.referenceNo).some((body) => body.latestTransactionStatus === '06'),
    );
    assert.equal((await gw.store.findTransaction(o.referenceNo))?.statusDesc, 'Declined');
    // Answered: the wallet's page offers nothing more.
    await page.goto(o.webRedirectUrl);
    await page.getByText('This payment has been answered already.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Approve' }).count(), 0);
  });

  it('refuses an answer posted from another site (403), and changes nothing', async () => {
    const o = await order(`${shopSite.baseUrl}/orders/wallet-3`);
    const res = await fetch(o.webRedirectUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: 'answer=approve',
      redirect: 'manual',
    });
    assert.equal(res.status, 403);
    const bad = await fetch(o.webRedirectUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: 'answer=maybe',
      redirect: 'manual',
    });
    assert.equal(bad.status, 400);
    assert.equal((await gw.store.findTransaction(o.referenceNo))?.status, '01');
    // A QRIS has no wallet page.
    const qr = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `QR-${Date.now()}-${++n}`,
      amount: { value: '1000.00', currency: 'IDR' },
    });
    assert.equal((await fetch(`${qr.body.additionalInfo.checkoutUrl}/wallet`)).status, 404);
  });
});

// Every state of both checkout pages (QRIS and VA) checked with axe-core in Chromium at 390×844:
// no serious or critical violation. Each state's screenshot is kept for docs/checkout.md.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { browserSuite, type TestChromium } from '../helpers/chromium.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { type SnapCaller, snapCall } from '../helpers/snap.ts';
import {
  launchBrowser,
  type Order,
  payBySandbox,
  QR,
  qrisOrder,
  screenshotPath,
  shop,
  VA,
  vaOrder,
} from './checkout-kit.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

describe('the checkout pages’ accessibility (axe-core)', browserSuite, () => {
  let gw: TestGateway;
  let c: SnapCaller;
  let b: TestChromium;
  /** Only the axe runs bypass the CSP: axe is injected as a script of the page's own. */
  let axeContext: BrowserContext;
  before(async () => {
    gw = await startGateway();
    c = (await shop(gw)).caller;
    b = await launchBrowser();
    axeContext = await b.newContext({ bypassCSP: true });
  });
  after(async () => {
    // Optional: when Chromium cannot start, the gateway must still close, or the file never ends.
    await b?.close();
    await gw?.close();
  });

  /** Opens the page, waits for `text` in its status, runs axe; the serious and critical violations. */
  async function check(
    name: string,
    url: string,
    text: string,
    act?: () => Promise<void>,
    context: BrowserContext = axeContext,
  ): Promise<void> {
    const page = await context.newPage();
    try {
      await page.goto(url);
      if (act) await act();
      await page.getByText(text).first().waitFor({ timeout: 5000 });
      await page.addScriptTag({ content: AXE });
      const result = (await page.evaluate(() =>
        (window as unknown as { axe: { run: (c: unknown) => Promise<unknown> } }).axe.run(document),
      )) as { violations: Violation[]; passes: unknown[] };
      assert.ok(result.passes.length > 10, 'axe ran its rules');
      const violations = result.violations;
      if (process.env.AXE_DEBUG)
        console.log(
          name,
          violations.map((v) => `${v.id} ${v.impact}`),
        );
      const serious = violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
      assert.deepEqual(serious, [], name);
      await page.screenshot({ path: screenshotPath(name), fullPage: true });
    } finally {
      await page.close();
    }
  }

  const expired = async (o: Promise<Order>) => {
    const order = await o;
    await waitFor('the expiry', async () => (await gw.gateway.expiry.runOnce()) > 0, 10_000);
    return order;
  };

  it('has none on a QRIS page in every state', async () => {
    const shopUrl = 'https://shop.example/orders/9';
    const waiting = await qrisOrder(gw, c);
    await check('qris-waiting', waiting.checkoutUrl, 'Menunggu pembayaran');

    const processing = await qrisOrder(gw, c);
    await payBySandbox(gw, processing, '02');
    await check('qris-processing', processing.checkoutUrl, 'Pembayaran sedang diproses');

    // Paid while the page is open: the live receipt.
    const live = await qrisOrder(gw, c);
    await check('qris-paid', live.checkoutUrl, 'Bukti pembayaran', async () => {
      await waitFor('the page listening', () => gw.gateway.checkoutStreams.size > 0);
      await payBySandbox(gw, live);
    });

    const failed = await qrisOrder(gw, c, { returnUrl: shopUrl });
    await payBySandbox(gw, failed, '06');
    await check('qris-failed', failed.checkoutUrl, 'Pembayaran gagal');

    const gone = await expired(qrisOrder(gw, c, { validitySec: 1 }));
    await check('qris-expired', gone.checkoutUrl, 'Waktu pembayaran habis');

    const cancelled = await qrisOrder(gw, c);
    await snapCall(gw.url, c, `${QR}/qr-mpm-cancel`, { originalReferenceNo: cancelled.referenceNo });
    await check('qris-cancelled', cancelled.checkoutUrl, 'Pembayaran dibatalkan');

    const refunded = await qrisOrder(gw, c, { amount: '20000.00' });
    await payBySandbox(gw, refunded);
    await snapCall(gw.url, c, `${QR}/qr-mpm-refund`, {
      originalPartnerReferenceNo: refunded.partnerReferenceNo,
      partnerRefundNo: `RF-${Date.now()}`,
      refundAmount: { value: '20000.00', currency: 'IDR' },
    });
    await check('qris-refunded', refunded.checkoutUrl, 'Pembayaran telah dikembalikan');
  });

  it('has none on a VA page in every state', async () => {
    const waiting = await vaOrder(gw, c);
    await check('va-waiting', waiting.checkoutUrl, 'Menunggu pembayaran');

    const open = await vaOrder(gw, c, { open: true });
    // In English, in a context of its own: the language chosen is remembered.
    const english = await b.newContext({ bypassCSP: true, locale: 'en-US' });
    await check('va-open-amount', `${open.checkoutUrl}?lang=en`, 'Any amount', undefined, english);

    const paid = await vaOrder(gw, c);
    await payBySandbox(gw, paid);
    await check('va-paid', paid.checkoutUrl, 'Bukti pembayaran');

    const gone = await expired(vaOrder(gw, c, { expirySec: 1 }));
    await check('va-expired', gone.checkoutUrl, 'Waktu pembayaran habis');

    const deleted = await vaOrder(gw, c, { returnUrl: 'https://shop.example/orders/10' });
    await snapCall(
      gw.url,
      c,
      `${VA}/delete-va`,
      { virtualAccountNo: deleted.virtualAccountNo, trxId: deleted.partnerReferenceNo },
      { method: 'DELETE' },
    );
    await check('va-cancelled', deleted.checkoutUrl, 'Pembayaran dibatalkan');
  });

  it('has none on the page of an unknown link', async () => {
    await check('not-found', `${gw.url}/pay/AAAAAAAAAAAAAAAAAAAAAA`, 'Halaman pembayaran tidak ditemukan');
  });
});

// The console and the portal on a phone (390 × 844) and on a laptop (1366 × 768), in Debian's
// Chromium: every page reached from the menus and their lists, none scrolls sideways (neither the
// page nor a table inside it), a transaction list keeps merchant, amount and status on screen, and
// the delivery chart's labels stay legible at both widths.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium, sidewaysScroll } from '../helpers/chromium.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

/** Whether an element is shown and lies entirely inside the viewport's width. */
async function onScreen(page: Page, selector: string): Promise<boolean[]> {
  return page.$$eval(selector, (els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth;
    }),
  );
}

describe('the console and the portal at phone width', browserSuite, () => {
  let gw: ConsoleGateway;
  let receiver: Receiver;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let portalUrl: string;
  let paidRef: string;

  before(async () => {
    receiver = await startReceiver();
    gw = await startConsoleGateway({ dispatch: true });
    browser = await launchChromium();
    context = browser.context;
    page = context.pages()[0] ?? (await context.newPage());
    page.on('dialog', (d) => void d.dismiss());

    // Something on every page: two merchants (one with a long name), a paid QRIS with its callback
    // delivered, an open VA, a settlement.
    const merchant = await gw.createMerchant({
      name: 'Warung Makan Sederhana Padang Minang Jaya Abadi Sentosa',
      callbackBaseUrl: receiver.baseUrl,
    });
    await gw.createMerchant({ name: 'Toko Kopi', callbackBaseUrl: receiver.baseUrl });
    const caller = await authenticate(gw.url, merchant);
    const q = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'ORDER-PHONE-000000000001',
      amount: { value: '1250000.00', currency: 'IDR' },
    });
    assert.equal(q.status, 200, q.text);
    paidRef = q.body.referenceNo as string;
    const paid = await gw.admin('POST', `/sandbox/qris/${paidRef}/pay`, {});
    assert.ok(paid.status < 300, JSON.stringify(paid.body));
    await waitFor('the callback delivered', async () =>
      (await gw.store.notificationsOf(paidRef)).some((n) => n.state === 'delivered'),
    );
    const v = await snapCall(gw.url, caller, '/api/snap/v1.0/transfer-va/create-va', {
      partnerServiceId: '   12345',
      customerNo: '000000000001',
      virtualAccountNo: '   12345000000000001',
      virtualAccountName: 'Budi Santoso',
      trxId: 'VA-PHONE-1',
      totalAmount: { value: '350000.00', currency: 'IDR' },
    });
    assert.equal(v.status, 200, v.text);
    const s = await gw.admin('POST', '/settlements', {});
    assert.ok(s.status < 300, JSON.stringify(s.body));
    const link = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
    assert.equal(link.status, 201, JSON.stringify(link.body));
    portalUrl = link.body.url as string;

    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', ADMIN_TOKEN);
    await page.click('main button[type=submit]');
    await page.waitForURL(/\/console\/overview/);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  /** The menu's pages and the first detail page each list links to, as paths. */
  async function pagesOf(home: string, menu: string, detail: string): Promise<string[]> {
    await page.goto(`${gw.url}${home}`);
    const listed = await page.$$eval(menu, (as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
    const seen = new Set<string>(listed);
    for (const path of listed) {
      await page.goto(`${gw.url}${path}`);
      const first = await page.$$eval(detail, (as) =>
        as.map((a) => new URL((a as HTMLAnchorElement).href).pathname).slice(0, 3),
      );
      for (const p of first) seen.add(p);
    }
    return [...seen];
  }

  test('no operator page scrolls sideways at 390 px', async () => {
    await page.setViewportSize(PHONE);
    const paths = await pagesOf('/console/overview', 'header nav a', 'main table a[href^="/console/"]');
    assert.ok(paths.length >= 10, paths.join(' '));
    // The books' pages reached through their tabs, not the menu: the settlements and a provider's reconciliation.
    const acquirer = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
    paths.push('/console/books/settlements', `/console/books/reconciliations/providers/${acquirer}`);
    // A settlement's own page, with its two report buttons.
    const [settlement] = (await gw.admin('GET', '/settlements?limit=1')).body.items as Array<{ id: string }>;
    assert.ok(settlement);
    paths.push(`/console/books/settlements/${settlement.id}`);
    assert.ok(paths.includes(`/console/transactions/${paidRef}`), paths.join(' '));
    const problems: string[] = [];
    for (const path of paths) {
      await page.goto(`${gw.url}${path}`);
      for (const p of await sidewaysScroll(page)) problems.push(`${path}: ${p}`);
    }
    assert.deepEqual(problems, []);
  });

  test('a transaction list keeps the merchant, the amount and the status on screen at 390 px', async () => {
    await page.setViewportSize(PHONE);
    await page.goto(`${gw.url}/console/transactions`);
    const rows = await page.$$('main table.stack tbody tr');
    assert.ok(rows.length >= 2);
    for (const cell of ['Merchant', 'Amount', 'Status']) {
      const shown = await onScreen(page, `main table.stack tbody td[data-label="${cell}"]`);
      assert.equal(shown.length, rows.length, cell);
      assert.ok(
        shown.every((s) => s),
        `${cell} is off screen in a row`,
      );
    }
    // Each value is labelled by its column in the stacked row.
    const label = await page.$eval(
      'main table.stack tbody td[data-label="Amount"]',
      (td) => getComputedStyle(td, '::before').content,
    );
    assert.equal(label, '"Amount"');
    assert.match((await page.textContent('main')) ?? '', /Rp 1\.250\.000,00/);
    await page.screenshot({ path: screenshotPath('transactions-phone'), fullPage: true });
    await page.goto(`${gw.url}/console/transactions/${paidRef}`);
    await page.screenshot({ path: screenshotPath('transaction-phone'), fullPage: true });
    await page.goto(`${gw.url}/console/books`);
    await page.screenshot({ path: screenshotPath('books-phone'), fullPage: true });
  });

  test('at 1366 px the lists stay tables: one row per transaction, the column names in the header', async () => {
    await page.setViewportSize(LAPTOP);
    await page.goto(`${gw.url}/console/transactions`);
    assert.equal(
      await page.$eval('main table.stack thead', (el) => getComputedStyle(el).display),
      'table-header-group',
    );
    assert.equal(await page.$eval('main table.stack tbody tr', (el) => getComputedStyle(el).display), 'table-row');
    assert.deepEqual(await sidewaysScroll(page), []);
  });

  test('the delivery chart is legible at both widths: its labels are text of at least 12 px', async () => {
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.goto(`${gw.url}/console/overview`);
      assert.ok(await page.$('svg.chart rect.ok'));
      assert.equal(await page.$('svg.chart text'), null, 'no label drawn inside the scaled picture');
      const sizes = await page.$$eval('.chart-axis span, .chart-max', (els) =>
        els.map((el) => Number.parseFloat(getComputedStyle(el).fontSize)),
      );
      assert.equal(sizes.length, 4);
      assert.ok(
        sizes.every((px) => px >= 12),
        `${size.width} px: ${sizes.join(', ')}`,
      );
      const box = await page.$eval('svg.chart', (el) => el.getBoundingClientRect().height);
      assert.ok(box >= 120, `the chart is ${box} px high at ${size.width} px`);
      assert.deepEqual(await sidewaysScroll(page), []);
    }
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: screenshotPath('overview-phone'), fullPage: true });
  });

  test('no portal page scrolls sideways at 390 px; amount and status on screen', async () => {
    const portal = await context.newPage();
    await portal.setViewportSize(PHONE);
    await portal.goto(portalUrl);
    await portal.click('button:text("Continue to the portal")');
    await portal.waitForURL(/\/console\/portal$/);
    const paths = await portal.$$eval('header nav a', (as) =>
      as.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
    );
    paths.push(`/console/portal/transactions/${paidRef}`);
    const problems: string[] = [];
    for (const path of paths) {
      await portal.goto(`${gw.url}${path}`);
      for (const p of await sidewaysScroll(portal)) problems.push(`${path}: ${p}`);
    }
    assert.deepEqual(problems, []);
    await portal.goto(`${gw.url}/console/portal`);
    for (const cell of ['Amount', 'Status']) {
      const shown = await onScreen(portal, `main table.stack tbody td[data-label="${cell}"]`);
      assert.ok(shown.length >= 2 && shown.every((s) => s), cell);
    }
    await portal.screenshot({ path: screenshotPath('portal-phone'), fullPage: true });
    await portal.close();
  });
});

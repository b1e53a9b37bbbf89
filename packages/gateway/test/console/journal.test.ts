// The journal page (Books → Journal) in Debian's Chromium: every ledger entry, filtered by merchant,
// kind, reference and day with the admin API's own rules, page by page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

describe('the journal in Chromium', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let kopi: string;
  let firstRef: string;

  /** A QRIS of `merchant` paid through the sandbox acquirer: one payment entry. */
  async function paidQris(merchant: Awaited<ReturnType<ConsoleGateway['createMerchant']>>, n: number) {
    const r = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `JOURNAL-${merchant.id.slice(0, 6)}-${n}`,
      amount: { value: '10000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    const ref = r.body.referenceNo as string;
    const paid = await gw.admin('POST', `/sandbox/qris/${ref}/pay`, {});
    assert.ok(paid.status < 300, JSON.stringify(paid.body));
    return ref;
  }

  /** The entries the table shows: [kind, reference] per entry. */
  const rows = () =>
    page.$$eval('#ledger-entries tbody.entry', (entries) =>
      entries.map((e) => [
        e.querySelector('td[data-label="Kind"]')?.textContent?.trim() ?? '',
        e.querySelector('td[data-label="Reference"] a')?.textContent?.trim() ?? '',
      ]),
    );

  before(async () => {
    gw = await startConsoleGateway();
    const a = await gw.createMerchant({ name: 'Toko Kopi' });
    const b = await gw.createMerchant({ name: 'Toko Buku' });
    kopi = a.id;
    firstRef = await paidQris(a, 0);
    for (let i = 1; i < 55; i++) await paidQris(a, i);
    await paidQris(b, 0);
    const s = await gw.admin('POST', '/settlements', { merchantId: b.id });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', ADMIN_TOKEN);
    await page.click('main button[type=submit]');
    await page.waitForURL(/\/console\/overview/);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('every entry, newest first, page by page: the pages hold what the admin API lists', async () => {
    await page.goto(`${gw.url}/console/books`);
    await page.click('nav.tabs a:text("Journal")');
    await page.waitForURL(/\/console\/books\/journal$/);
    const api = await gw.admin('GET', '/ledger/entries?limit=500');
    const all = api.body.items as Array<{ id: string }>;
    assert.equal(all.length, 57);
    const first = await page.$$eval('#ledger-entries tbody.entry', (e) => e.map((x) => x.getAttribute('data-entry')));
    assert.deepEqual(
      first,
      all.slice(0, 50).map((e) => e.id),
    );
    // Accounts carry their merchant's or provider's name, the account itself beneath.
    const account = (await page.textContent('#ledger-entries tbody.entry td[data-label="Account"]')) ?? '';
    assert.match(account, /Toko (Kopi|Buku) · (pending|settling)/);
    assert.match(account, /merchant:[0-9a-f-]+:(pending|settling)/);
    assert.match((await page.textContent('#ledger-entries')) ?? '', /Sandbox Acquirer/);
    await page.screenshot({ path: screenshotPath('journal'), fullPage: false });
    await page.click('nav.pager a:text("Older →")');
    const second = await page.$$eval('#ledger-entries tbody.entry', (e) => e.map((x) => x.getAttribute('data-entry')));
    assert.deepEqual(
      second,
      all.slice(50).map((e) => e.id),
    );
    assert.equal(await page.$('nav.pager a'), null);
  });

  test('filters: merchant, kind, reference and day, kept in the form and through the pages', async () => {
    await page.goto(`${gw.url}/console/books/journal`);
    await page.selectOption('select[name=kind]', 'settlement');
    await page.click('form.filters button[type=submit]');
    assert.deepEqual(
      (await rows()).map((r) => r[0]),
      ['settlement'],
    );
    assert.equal(await page.inputValue('select[name=kind]'), 'settlement');

    await page.goto(`${gw.url}/console/books/journal?merchant=${kopi}&kind=payment`);
    assert.equal((await rows()).length, 50);
    await page.click('nav.pager a:text("Older →")');
    assert.equal((await rows()).length, 5);
    assert.equal(await page.inputValue('select[name=merchant]'), kopi);

    await page.goto(`${gw.url}/console/books/journal?ref=${firstRef}`);
    assert.deepEqual(await rows(), [['payment', firstRef]]);

    const today = new Date(Date.now() + 7 * 3_600_000).toISOString().slice(0, 10);
    await page.goto(`${gw.url}/console/books/journal?kind=settlement&from=${today}&to=${today}`);
    assert.equal((await rows()).length, 1);
    await page.goto(`${gw.url}/console/books/journal?from=2020-01-01&to=2020-01-31`);
    assert.equal((await rows()).length, 0);
    assert.match((await page.textContent('main')) ?? '', /No ledger entry matches these filters/);
  });

  test('a filter the admin API refuses is shown with its problem, the filters as typed (400)', async () => {
    for (const [query, problem] of [
      ['kind=bonus', /kind:/],
      ['from=2026-13-45', /from:/],
      ['to=yesterday', /to:/],
      ['to=2026-02-30', /to:/],
      ['cursor=not-a-cursor', /cursor|refused|not valid/i],
    ] as const) {
      const r = await page.goto(`${gw.url}/console/books/journal?${query}`);
      if (query.startsWith('cursor')) {
        // A forged cursor is no filter problem: the page refuses it in plain words.
        assert.ok((r?.status() ?? 0) >= 400 && (r?.status() ?? 0) < 500, `${query}: ${r?.status()}`);
        continue;
      }
      assert.equal(r?.status(), 400, query);
      assert.match((await page.textContent('#form-problems')) ?? '', problem, query);
      assert.equal(await page.$('#ledger-entries'), null);
      assert.ok(await page.$('header nav'), 'the menu stays');
    }
    await page.goto(`${gw.url}/console/books/journal?kind=bonus&ref=QR1`);
    assert.equal(await page.inputValue('input[name=ref]'), 'QR1');
  });
});

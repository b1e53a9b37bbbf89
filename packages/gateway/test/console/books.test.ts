// The books in the web console and the merchant portal, driven in Debian's Chromium
// (playwright-core): balances, settling now, a settlement's entries, CSV report and payout,
// reconciling a provider's report and applying a missed payment, the portal's own settlements, a
// read key, and Post/Redirect/Get (a reload after an action repeats nothing). Without Chromium the
// tests skip with a message, except in CI (CI set), where they fail.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import type { Download, Page } from 'playwright-core';
import { SETTLEMENT_CSV_HEADER } from '../../src/books/settlement-report.ts';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import type { TestMerchant } from '../helpers/gateway.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

const EVIL = 'Evil <img src=x onerror=alert(7)><script>alert(8)</script>';

describe('the books in the web console, in Chromium', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const alerts: string[] = [];
  let merchant: TestMerchant;
  let evil: TestMerchant;
  let acquirerId: string;
  /** The paid QRIS, its settlement, the QRIS the report says was paid, and the reconciliation run. */
  let paidRef: string;
  let settlementId: string;
  let missedRef: string;
  let runId: string;

  const watch = (p: Page) => {
    p.on('dialog', (d) => {
      if (d.type() !== 'confirm') alerts.push(`${d.type()}: ${d.message()}`);
      void (d.type() === 'confirm' ? d.accept() : d.dismiss());
    });
    return p;
  };

  before(async () => {
    gw = await startConsoleGateway();
    browser = await launchChromium();
    page = watch(browser.context.pages()[0] ?? (await browser.context.newPage()));
    acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
    merchant = await gw.createMerchant({
      name: 'Toko Buku Sejahtera',
      fees: { qris: { percent: '0.70', fixed: '0.00' } },
    });
    evil = await gw.createMerchant({ name: EVIL });
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
  const login = async (p: Page, key = ADMIN_TOKEN) => {
    await p.goto(`${gw.url}/console/login`);
    await p.fill('#key', key);
    await p.click('main button[type=submit]');
    await p.waitForURL(/\/console\/overview$/);
  };
  const qris = async (m: TestMerchant, partnerReferenceNo: string, value: string) => {
    const r = await snapCall(gw.url, await authenticate(gw.url, m), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo,
      amount: { value, currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.referenceNo as string;
  };
  const pay = async (referenceNo: string) =>
    assert.equal((await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, {})).status, 200);
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const cell = (id: string, column: string) => `#balances tr[data-merchant="${id}"] td.${column}`;
  const countOf = async (path: string) => ((await gw.admin('GET', path)).body.items as unknown[]).length;
  const audits = async (action: string) =>
    (await gw.store.listAudit({ limit: 200 })).items.filter((a) => a.action === action).length;
  /** The statuses of an action's audit rows (a refusal: `<action> (refused)`). */
  const auditStatuses = async (action: string) =>
    (await gw.store.listAudit({ limit: 200 })).items.filter((a) => a.action === action).map((a) => a.httpStatus);
  const download = async (p: Page, link = '#report-link'): Promise<{ file: Download; text: string }> => {
    const [file] = await Promise.all([p.waitForEvent('download'), p.click(link)]);
    return { file, text: readFileSync(await file.path(), 'utf8') };
  };
  /** What a page's own script gets for a POST with the session's CSRF token. */
  const post = (p: Page, path: string, body: Record<string, string>) =>
    p.evaluate(
      async ([to, fields]) => {
        const token = (document.querySelector('header input[name=_csrf]') as HTMLInputElement).value;
        const r = await fetch(to as string, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ _csrf: token, ...(fields as Record<string, string>) }).toString(),
        });
        return r.status;
      },
      [path, body] as const,
    );

  test('balances: a sandbox payment is pending with its fee; names are text; the transaction shows its entry', async () => {
    paidRef = await qris(merchant, 'BOOK-1001', '15000.00');
    await pay(paidRef);
    await login(page);
    await page.click('header nav a:text("Books")');
    await page.waitForURL(/\/console\/books$/);
    assert.equal(await page.getAttribute('header nav a:text("Books")', 'aria-current'), 'page');
    // 15,000.00 at 0.70 %: a fee of 105.00, 14,895.00 owed.
    assert.equal(await text(page, cell(merchant.id, 'pending')), 'Rp 14.895,00');
    assert.equal(await text(page, cell(merchant.id, 'fees')), 'Rp 105,00');
    assert.equal(await text(page, cell(merchant.id, 'settling')), 'Rp 0,00');
    assert.equal(await text(page, cell(merchant.id, 'paid-out')), 'Rp 0,00');
    assert.equal(await text(page, cell(evil.id, 'pending')), 'Rp 0,00');
    // A merchant's name is shown as text, never run.
    assert.equal(await text(page, `#balances tr[data-merchant="${evil.id}"] td a`), EVIL);
    assert.equal(await page.$('main img[src=x]'), null);
    assert.equal(await page.$('main script'), null);
    await shot('books');

    await page.goto(`${gw.url}/console/transactions/${paidRef}`);
    const entries = await text(page, '#ledger-entries');
    assert.match(entries, /payment/);
    assert.ok(entries.includes(`merchant:${merchant.id}:pending`), entries);
    assert.ok(entries.includes(`provider:${acquirerId}`), entries);
    assert.match(entries, /Rp 15\.000,00/);
    assert.match(entries, /Rp 14\.895,00/);
    assert.match(entries, /Rp 105,00/);
    assert.deepEqual(alerts, []);
  });

  test('settle now, open the settlement, download its CSV, pay it out; no reload repeats an action', async () => {
    await page.goto(`${gw.url}/console/books/settlements`);
    await page.selectOption('select[name=merchantId]', merchant.id);
    await page.click('button:text("Settle now")');
    await page.waitForURL(/\/console\/books\/settlements\/stl_\w+$/);
    settlementId = new URL(page.url()).pathname.split('/').pop() as string;
    assert.equal(await text(page, '.flash.ok'), 'Settled before now: 1 payment, in this open settlement.');
    await page.reload();
    assert.equal(await countOf(`/settlements?merchantId=${merchant.id}`), 1, 'the reload settled nothing more');
    assert.equal(await audits('console: settle now'), 1);
    assert.match(await text(page, '#settlement-summary'), /open/);
    assert.equal(await text(page, '#settlement-net'), 'Rp 14.895,00');
    assert.match(await text(page, '#ledger-entries'), new RegExp(paidRef));

    // The report, as a download.
    const { file, text: csv } = await download(page);
    assert.equal(file.suggestedFilename(), `settlement-${settlementId}.csv`);
    const [header, row, end] = csv.split('\r\n');
    assert.equal(header, SETTLEMENT_CSV_HEADER);
    assert.match(
      row ?? '',
      new RegExp(`^${paidRef},BOOK-1001,payment,[^,]+,15000\\.00,105\\.00,14895\\.00,${acquirerId},`),
    );
    assert.equal(end, '');
    const answer = await browser.context.request.get(`${gw.url}/console/books/settlements/${settlementId}/report.csv`);
    assert.equal(answer.status(), 200);
    assert.match(answer.headers()['content-type'] ?? '', /^text\/csv/);
    assert.equal(answer.headers()['content-disposition'], `attachment; filename="settlement-${settlementId}.csv"`);
    const sheet = await download(page, '#report-spreadsheet-link');
    assert.match(sheet.text, /^\uFEFFSettlement report,/);
    assert.match(sheet.text, /\r\nMerchant,Toko Buku Sejahtera\r\n/);
    assert.ok(sheet.text.includes(`\r\n"=""${paidRef}""",BOOK-1001,payment,`), sheet.text);

    await page.goto(`${gw.url}/console/books`);
    assert.equal(await text(page, cell(merchant.id, 'pending')), 'Rp 0,00');
    assert.equal(await text(page, cell(merchant.id, 'settling')), 'Rp 14.895,00');

    // Nothing more to settle for this merchant now.
    await page.goto(`${gw.url}/console/books/settlements?merchant=${merchant.id}`);
    await page.selectOption('select[name=merchantId]', merchant.id);
    await page.click('button:text("Settle now")');
    await page.waitForURL(/\/console\/books\/settlements$/);
    assert.match(await text(page, '.flash.ok'), /Nothing to settle: no unsettled payment or refund before now/);

    // A second tab keeps the payout form of the open settlement.
    const stale = watch(await browser.context.newPage());
    await stale.goto(`${gw.url}/console/books/settlements/${settlementId}`);

    await page.goto(`${gw.url}/console/books/settlements/${settlementId}`);
    await page.fill('input[name=bankReference]', 'TRF-20261126-0001');
    await page.click('button:text("Record payout")');
    await page.waitForURL(/\?ok=paid-out$/);
    await page.reload();
    assert.match(await text(page, '#settlement-summary'), /paid out/);
    assert.match(await text(page, '#settlement-paid'), /TRF-20261126-0001/);
    assert.equal(await page.$('button:text("Record payout")'), null);
    assert.equal(await countOf(`/ledger/entries?merchantId=${merchant.id}&kind=payout`), 1);
    assert.equal(await audits('console: pay out settlement'), 1);
    await shot('settlement');

    // The stale form is refused, and the reason is shown on the settlement's page, once.
    await stale.fill('input[name=bankReference]', 'TRF-20261126-0002');
    await stale.click('button:text("Record payout")');
    await stale.waitForSelector('.flash.error');
    assert.equal(new URL(stale.url()).pathname, `/console/books/settlements/${settlementId}`);
    assert.match(await text(stale, '.flash.error'), /paid out already \(bank reference TRF-20261126-0001\)/);
    await stale.reload();
    assert.equal(await stale.$('.flash.error'), null, 'a notice is shown once');
    assert.match(await text(stale, '#settlement-paid'), /TRF-20261126-0001/);
    await stale.close();
    assert.deepEqual(await auditStatuses('console: pay out settlement (refused)'), [409], 'audited as refused');

    await page.goto(`${gw.url}/console/books`);
    assert.equal(await text(page, cell(merchant.id, 'pending')), 'Rp 0,00');
    assert.equal(await text(page, cell(merchant.id, 'settling')), 'Rp 0,00');
    assert.equal(await text(page, cell(merchant.id, 'paid-out')), 'Rp 14.895,00');

    await page.click('nav.tabs a:text("Verify ledger")');
    await page.waitForURL(/\/console\/books\/verify$/);
    assert.match(await text(page, '#verify-outcome'), /balanced/);
    assert.deepEqual(alerts, []);
  });

  test('reconcile a report naming an unpaid QRIS: missing_at_gateway, Apply it; a stale Apply is refused on the run page', async () => {
    missedRef = await qris(merchant, 'BOOK-1002', '12000.00');
    await page.goto(`${gw.url}/console/books/reconciliations`);
    await page.click(`#providers a[href="/console/books/reconciliations/providers/${acquirerId}"]`);
    // A report that cannot be read comes back as pasted, with why and the menu; nothing is run.
    await page.fill('#report-csv', 'not,a,report\n1,2,3');
    const [unread] = await Promise.all([page.waitForNavigation(), page.click('button:text("Reconcile")')]);
    assert.equal(unread?.status(), 400);
    assert.match(await text(page, '#form-problems'), /The report was not reconciled/);
    assert.equal(await page.inputValue('#report-csv'), 'not,a,report\n1,2,3');
    assert.equal(await page.getAttribute('header nav a:text("Books")', 'aria-current'), 'page');
    assert.equal(await countOf(`/providers/${acquirerId}/reconciliations`), 0);
    await page.fill(
      '#report-csv',
      [
        'referenceNo,providerReference,amount,paidAt,status',
        `${missedRef},ACQ-MISSED-1,12000.00,${formatJakartaTimestamp(Date.now())},00`,
      ].join('\n'),
    );
    await page.click('button:text("Reconcile")');
    await page.waitForURL(/\/console\/books\/reconciliations\/rec_\w+\?ok=reconciled$/);
    runId = new URL(page.url()).pathname.split('/').pop() as string;
    await page.reload();
    assert.equal(await countOf(`/providers/${acquirerId}/reconciliations`), 1, 'the reload ran nothing more');
    const line = await text(page, '#line-1');
    assert.match(line, /missing_at_gateway/);
    assert.ok(line.includes(missedRef), line);
    // The paid QRIS no line names.
    assert.match(await text(page, '#problems'), /missing_at_provider/);

    const stale = watch(await browser.context.newPage());
    await stale.goto(`${gw.url}/console/books/reconciliations/${runId}`);

    await page.click('#line-1 button:text("Apply line 1")');
    await page.waitForURL(/\?ok=applied#line-1$/);
    await page.reload();
    assert.match(await text(page, '#line-1'), /applied/);
    assert.equal(await page.$('#line-1 button'), null);
    assert.equal((await gw.store.findTransaction(missedRef))?.status, '00', 'the transaction is paid');
    assert.equal(await countOf(`/ledger/entries?referenceNo=${missedRef}&kind=payment`), 1);
    assert.equal(await audits('console: apply reconciliation problem'), 1);
    await shot('reconciliation');

    await stale.click('#line-1 button:text("Apply line 1")');
    await stale.waitForSelector('.flash.error');
    assert.equal(new URL(stale.url()).pathname, `/console/books/reconciliations/${runId}`);
    assert.match(await text(stale, '.flash.error'), /Line 1 was not applied: line 1 was applied already/);
    assert.match(await text(stale, '#line-1'), /applied/);
    await stale.reload();
    assert.equal(await stale.$('.flash.error'), null, 'a notice is shown once');
    await stale.close();
    assert.equal(await countOf(`/ledger/entries?referenceNo=${missedRef}&kind=payment`), 1);
    assert.deepEqual(await auditStatuses('console: apply reconciliation problem (refused)'), [409]);

    await page.goto(`${gw.url}/console/transactions/${missedRef}`);
    assert.match(await text(page, '#ledger-entries'), /Rp 12\.000,00/);
    await page.goto(`${gw.url}/console/books/verify`);
    assert.match(await text(page, '#verify-outcome'), /balanced/);
    // The whole journal, in the background: started, then followed until it is done.
    await page.click('#verify-in-background');
    await page.waitForURL(/\/console\/books\/verify\/jobs\/ver_[0-9a-f]{32}$/);
    const deadline = Date.now() + 30_000;
    while ((await page.getAttribute('#verify-job', 'data-state')) === 'running') {
      assert.ok(Date.now() < deadline, 'the verification ends');
      await page.reload();
    }
    assert.equal(await page.getAttribute('#verify-job', 'data-state'), 'done');
    assert.match(await text(page, '#verify-outcome'), /balanced/);
    assert.match(await text(page, '#verify-outcome'), /all checked/);
    assert.equal((await auditStatuses('console: verify the whole journal'))[0], 202);
    assert.equal((await page.goto(`${gw.url}/console/books/verify/jobs/ver_unknown`))?.status(), 404);
    assert.deepEqual(alerts, []);
  });

  test('portal: the merchant sees its own balance and settlement and downloads its report; another’s is not found', async () => {
    const other = await gw.createMerchant({ name: 'Other Merchant' });
    await pay(await qris(other, 'OTHER-1', '5000.00'));
    const settled = await gw.admin('POST', '/settlements', { merchantId: other.id });
    assert.equal(settled.status, 201, JSON.stringify(settled.body));
    const otherId = settled.body.items[0].id as string;

    const link = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
    assert.equal(link.status, 201, JSON.stringify(link.body));
    const portal = watch(await browser.context.newPage());
    await portal.goto(link.body.url);
    await portal.click('button:text("Continue to the portal")');
    await portal.click('header nav a:text("Settlements")');
    await portal.waitForURL(/\/console\/portal\/settlements$/);
    // 14,895.00 paid out; 12,000.00 applied less its 84.00 fee pending.
    assert.equal(await text(portal, '#balance-paid-out'), 'Rp 14.895,00');
    assert.equal(await text(portal, '#balance-pending'), 'Rp 11.916,00');
    assert.equal(await text(portal, '#balance-fees'), 'Rp 189,00');
    const list = await text(portal, '#settlements');
    assert.ok(list.includes(settlementId), list);
    assert.ok(!list.includes(otherId), list);
    await portal.screenshot({ path: screenshotPath('portal-settlements'), fullPage: true });

    await portal.click(`a:text("${settlementId}")`);
    await portal.waitForURL(`${gw.url}/console/portal/settlements/${settlementId}`);
    assert.match(await text(portal, '#settlement-paid'), /TRF-20261126-0001/);
    assert.match(await text(portal, '#ledger-entries'), new RegExp(paidRef));
    const { text: csv } = await download(portal);
    assert.equal(csv.split('\r\n')[0], SETTLEMENT_CSV_HEADER);
    assert.match(csv.split('\r\n')[1] ?? '', new RegExp(`^${paidRef},BOOK-1001,payment,`));
    // Which provider collected it is the operator's business: the merchant's copy names none.
    assert.match(csv.split('\r\n')[1] ?? '', /,qris,$/);
    // The copy for a spreadsheet: its summary, then the same table with the references as text.
    const sheet = await download(portal, '#report-spreadsheet-link');
    assert.equal(sheet.file.suggestedFilename(), `settlement-${settlementId}-spreadsheet.csv`);
    const [summary, table] = sheet.text.replace(/^\uFEFF/, '').split('\r\n\r\n') as [string, string];
    assert.match(summary, new RegExp(`^Settlement report,${settlementId}\r\n`));
    assert.match(summary, /\r\nNet,14895\.00\r\n/);
    assert.match(summary, /\r\nBank reference,TRF-20261126-0001$/);
    assert.equal(table.split('\r\n')[0], SETTLEMENT_CSV_HEADER);
    assert.match(table.split('\r\n')[1] ?? '', new RegExp(`^"=""${paidRef}""",BOOK-1001,payment,.*,qris,$`));

    const byUrl = await portal.goto(`${gw.url}/console/portal/settlements/${otherId}`);
    assert.equal(byUrl?.status(), 404);
    assert.doesNotMatch(await text(portal, 'main'), /Other Merchant|OTHER-1/);
    for (const query of ['', '?layout=spreadsheet']) {
      const report = await browser.context.request.get(
        `${gw.url}/console/portal/settlements/${otherId}/report.csv${query}`,
      );
      assert.equal(report.status(), 404);
      assert.doesNotMatch(await report.text(), /OTHER-1|Other Merchant/);
    }
    await portal.close();
  });

  test('settle now with a cutoff: one in the past takes only what came before it; a later or unreadable one is refused', async () => {
    const before = await countOf('/settlements');
    await page.goto(`${gw.url}/console/books/settlements`);
    await page.fill('input[name=cutoff]', '2020-01-01T00:00:00');
    await page.click('button:text("Settle now")');
    await page.waitForURL(/\/console\/books\/settlements$/);
    assert.match(
      await text(page, '.flash.ok'),
      /Nothing to settle: no unsettled payment or refund before 2020-01-01 00:00:00 WIB/,
    );
    assert.equal(await countOf('/settlements'), before);

    const tomorrow = new Date(Date.now() + 7 * 3_600_000 + 86_400_000).toISOString().slice(0, 19);
    await page.fill('input[name=cutoff]', tomorrow);
    await page.click('button:text("Settle now")');
    await page.waitForURL(/\/console\/books\/settlements$/);
    assert.match(await text(page, '.flash.error'), /Nothing was settled: cutoff: must not be later than now/);
    assert.equal(await countOf('/settlements'), before);

    // Cutoffs no date input would send, posted by hand with the page's token: not a time, and a
    // day that does not exist (never rolled over into March).
    const csrf = await page.inputValue('main form[action="/console/books/settlements"] input[name=_csrf]');
    for (const cutoff of ['yesterday', '2026-02-30T10:00']) {
      const status = await page.evaluate(
        async ([token, typed]) => {
          const r = await fetch('/console/books/settlements', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ _csrf: token as string, cutoff: typed as string }).toString(),
            redirect: 'manual',
          });
          return r.type === 'opaqueredirect' ? 303 : r.status;
        },
        [csrf, cutoff],
      );
      assert.equal(status, 303);
      await page.reload();
      assert.match(await text(page, '.flash.error'), new RegExp(`the cutoff ${cutoff} is not a date and time`));
    }
    assert.equal(await countOf('/settlements'), before);
    assert.deepEqual(await auditStatuses('console: settle now (refused)'), [400, 400, 400]);
  });

  test('a read key sees the books, but settling, paying out, reconciling and applying are hidden and refused', async () => {
    // An open settlement and an unapplied missed payment to try them on.
    const openId = (await gw.admin('GET', '/settlements?status=open')).body.items[0].id as string;
    const unpaid = await qris(merchant, 'BOOK-1003', '7000.00');
    const report = `referenceNo,providerReference,amount,paidAt,status\n${unpaid},,7000.00,${formatJakartaTimestamp(Date.now())},00\n`;
    const made = await fetch(`${gw.url}/admin/v1/providers/${acquirerId}/reconciliations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
      body: report,
    });
    assert.equal(made.status, 201);
    const run = (await made.json()) as { id: string };

    const key = await gw.admin('POST', '/admin-keys', { name: 'bookkeeper', scope: 'read' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    await browser.context.clearCookies();
    const p = watch(await browser.context.newPage());
    await login(p, key.body.key);

    await p.goto(`${gw.url}/console/books`);
    assert.equal(await text(p, cell(merchant.id, 'paid-out')), 'Rp 14.895,00');
    await p.goto(`${gw.url}/console/books/settlements`);
    assert.equal(await p.$('button:text("Settle now")'), null);
    await p.goto(`${gw.url}/console/books/settlements/${openId}`);
    assert.equal(await p.$('input[name=bankReference]'), null);
    assert.ok(await p.$('#report-link'), 'a read key may download the report');
    await p.goto(`${gw.url}/console/books/reconciliations/providers/${acquirerId}`);
    assert.equal(await p.$('#report-csv'), null);
    await p.goto(`${gw.url}/console/books/reconciliations/${run.id}`);
    assert.match(await text(p, '#line-1'), /not applied/);
    assert.equal(await p.$('#line-1 button'), null);
    await p.goto(`${gw.url}/console/books/verify`);
    assert.match(await text(p, '#verify-outcome'), /balanced/);

    const runs = await countOf(`/providers/${acquirerId}/reconciliations`);
    const statuses = {
      settle: await post(p, '/console/books/settlements', { merchantId: '' }),
      payout: await post(p, `/console/books/settlements/${openId}/payout`, { bankReference: 'TRF-READ-1' }),
      reconcile: await post(p, `/console/books/reconciliations/providers/${acquirerId}`, { csv: report }),
      apply: await post(p, `/console/books/reconciliations/${run.id}/problems/1/apply`, {}),
    };
    assert.deepEqual(statuses, { settle: 403, payout: 403, reconcile: 403, apply: 403 });
    assert.equal((await gw.admin('GET', `/settlements/${openId}`)).body.status, 'open');
    assert.equal((await gw.store.findTransaction(unpaid))?.status, '01');
    assert.equal(await countOf(`/providers/${acquirerId}/reconciliations`), runs);
    assert.equal(await countOf('/settlements?status=open'), 1);
    await p.close();
    await browser.context.clearCookies();
    assert.deepEqual(alerts, []);
  });
});

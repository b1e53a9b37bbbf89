// Payouts through the payout bank in the web console and the merchant portal, driven in Debian's
// Chromium (playwright-core) against a sandbox gateway, whose sandbox bank is the payout bank
// (docs/payouts.md): Pay through bank on a settlement (paid at once, awaiting approval, pending then
// failed, refused for no verified account and for no payout bank), the Payouts page with its filters
// and a payout with its exchanges, four eyes (the asking key refused, an approve key approving), and
// the portal's bank account and payouts. Every wait polls; nothing sleeps. Without Chromium the tests
// skip with a message, except in CI (CI set), where they fail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

const EVIL = 'Evil <img src=x onerror=alert(7)><script>alert(8)</script>';

describe('payouts in the web console and the portal, in Chromium', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const alerts: string[] = [];
  let seq = 0;
  /** The payout paid at once (its merchant and settlement), used again by the portal. */
  let first: { merchantId: string; settlementId: string; payoutId: string };
  let big: { merchantId: string; settlementId: string; payoutId: string };

  const watch = (p: Page) => {
    p.on('dialog', (d) => {
      if (d.type() !== 'confirm') alerts.push(`${d.type()}: ${d.message()}`);
      void (d.type() === 'confirm' ? d.accept() : d.dismiss());
    });
    return p;
  };

  before(async () => {
    // Above Rp 50.000,00 a payout waits for a second key.
    gw = await startConsoleGateway({ env: { SNAPGATE_PAYOUT_APPROVAL_ABOVE: '50000.00' } });
    browser = await launchChromium();
    page = watch(browser.context.pages()[0] ?? (await browser.context.newPage()));
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const login = async (p: Page, key: string, landing = /\/console\/overview$/) => {
    await p.goto(`${gw.url}/console/login`);
    await p.fill('#key', key);
    await p.click('main button[type=submit]');
    await p.waitForURL(landing);
  };
  const logout = async (p: Page) => {
    await p.click('header button:text("Log out")');
    await p.waitForURL(/\/console\/login$/);
  };
  /**
   * A merchant with a paid QRIS of `amount` (fee 0.70 %) settled; `accountNo` (when given) its bank
   * account at bank 014, verified by the sandbox bank (which answers SANDBOX <last 4 digits>).
   */
  async function settled(name: string, amount: string, accountNo?: string) {
    const m = await gw.createMerchant({ name, fees: { qris: { percent: '0.70', fixed: '0.00' } } });
    const g = await snapCall(gw.url, await authenticate(gw.url, m), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `PAYOUT-PAGE-${++seq}`,
      amount: { value: amount, currency: 'IDR' },
    });
    assert.equal(g.status, 200, g.text);
    assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
    if (accountNo) {
      const account = { bankCode: '014', accountNo, accountName: `SANDBOX ${accountNo.slice(-4)}` };
      const r = await gw.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: account });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.payoutAccount.verifiedName, account.accountName);
    }
    const s = await gw.admin('POST', '/settlements', { merchantId: m.id });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    return { merchantId: m.id, settlementId: s.body.items[0].id as string };
  }
  const settlement = async (id: string) => (await gw.admin('GET', `/settlements/${id}`)).body;
  const payoutsOf = async (merchantId: string) =>
    (await gw.admin('GET', `/payouts?merchantId=${merchantId}`)).body.items as Array<{ id: string; state: string }>;
  const auditStatuses = async (action: string) =>
    (await gw.store.listAudit({ limit: 500 })).items.filter((a) => a.action === action).map((a) => a.httpStatus);
  const payThroughBank = async (p: Page, settlementId: string) => {
    await p.goto(`${gw.url}/console/books/settlements/${settlementId}`);
    await p.click('#bank-payout button:text("Pay through bank")');
    await p.waitForSelector('.flash');
    assert.equal(new URL(p.url()).pathname, `/console/books/settlements/${settlementId}`);
  };
  /** What scrolls sideways on the page: the page itself, or a box in it (phone.test.ts checks every other page). */
  const sideways = (p: Page) =>
    p.evaluate(() => {
      const root = document.documentElement;
      const boxes = Array.from(document.querySelectorAll<HTMLElement>('main *')).filter((el) => {
        const x = getComputedStyle(el).overflowX;
        return (x === 'auto' || x === 'scroll') && el.scrollWidth > el.clientWidth + 1;
      });
      const past = Array.from(document.querySelectorAll<HTMLElement>('body *')).filter(
        (el) => el.getBoundingClientRect().right > root.clientWidth + 1,
      );
      const innermost = past
        .filter((el) => !past.some((other) => other !== el && el.contains(other)))
        .slice(0, 3)
        .map((el) => `${el.tagName.toLowerCase()} "${(el.textContent ?? '').slice(0, 30)}"`);
      return [
        ...(root.scrollWidth > root.clientWidth
          ? [`the page (${root.scrollWidth} > ${root.clientWidth} px: ${innermost.join(', ')})`]
          : []),
        ...boxes.map((el) => `${el.tagName.toLowerCase()}.${el.className} (${el.scrollWidth} > ${el.clientWidth} px)`),
      ];
    });
  const PHONE = { width: 390, height: 844 };
  const LAPTOP = { width: 1366, height: 900 };
  /** What a page's own script gets for a POST with the session's CSRF token. */
  const post = (p: Page, path: string) =>
    p.evaluate(async (to) => {
      const token = (document.querySelector('header input[name=_csrf]') as HTMLInputElement).value;
      const r = await fetch(to, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token }).toString(),
        redirect: 'manual',
      });
      return r.type === 'opaqueredirect' ? 303 : r.status;
    }, path);

  test('Pay through bank pays a settlement at once; the Payouts page lists the payout and shows its exchanges', async () => {
    // 20.000,00 less 140,00 (0.70 %): a net of 19.860,00, under the approval limit.
    const s = await settled('Toko Kopi Senja', '20000.00', '8880123456');
    await login(page, ADMIN_TOKEN);
    await page.goto(`${gw.url}/console/books/settlements/${s.settlementId}`);
    assert.match(await text(page, '#bank-payout-to'), /8880123456 at bank 014, SANDBOX 3456/);
    assert.ok(await page.$('input[name=bankReference]'), 'an admin key may also record a payout made by hand');
    await page.screenshot({ path: screenshotPath('settlement-pay-through-bank'), fullPage: true });
    await payThroughBank(page, s.settlementId);
    assert.match(
      await text(page, '.flash.ok'),
      /^Paid out through the bank: payout po_[0-9a-f]{32} is paid \(bank reference .+\)\.$/,
    );
    const [made] = await payoutsOf(s.merchantId);
    assert.ok(made);
    first = { ...s, payoutId: made.id };
    assert.match(await text(page, '#settlement-summary'), /paid out/);
    assert.match(await text(page, '#settlement-payout'), /paid through the bank/);
    assert.equal(await page.getAttribute('#settlement-payout a', 'href'), `/console/payouts/${made.id}`);
    assert.equal(await page.$('#bank-payout'), null, 'nothing more to pay');
    assert.equal(await page.$('input[name=bankReference]'), null);
    // A reload only looks.
    await page.reload();
    assert.equal(await page.$('.flash'), null, 'the outcome is said once');
    assert.equal((await payoutsOf(s.merchantId)).length, 1);
    assert.deepEqual(await auditStatuses('console: pay out settlement through the bank'), [202]);
    const settled1 = await settlement(s.settlementId);
    assert.equal(settled1.status, 'paid');
    assert.equal(settled1.payoutId, made.id);

    // The payout's page: every field, and the bank's exchange (interbank: 014 is not the sandbox bank's 999).
    await page.click('#settlement-payout a');
    await page.waitForURL(`${gw.url}/console/payouts/${made.id}`);
    assert.equal(await page.getAttribute('header nav a:text("Payouts")', 'aria-current'), 'page');
    assert.equal(await text(page, '#payout-state'), 'paid');
    assert.equal(await text(page, '#payout-amount'), 'Rp 19.860,00');
    assert.equal(
      await text(page, '#payout-beneficiary'),
      '8880123456 at bank 014SANDBOX 3456 (the name the bank answered)',
    );
    assert.equal(await text(page, '#payout-bank-reference'), settled1.bankReference);
    assert.equal(await text(page, '#payout-error'), '—');
    assert.match(await text(page, '#payout-requested-by'), /key_\w+ \(you\)$/);
    assert.match(await text(page, '#payout-for'), new RegExp(`settlement ${s.settlementId}`));
    const partnerRef = await text(page, '#payout-partner-reference');
    assert.equal(partnerRef, made.id.replace(/^po_/, 'PO').toUpperCase());
    const exchanges = await page.$$('#exchanges > li');
    assert.equal(exchanges.length, 1);
    assert.equal(await page.getAttribute('#exchange-1', 'data-service'), '18');
    assert.match(await text(page, '#exchange-1 h3'), /18 · interbank transfer/);
    assert.equal(await text(page, '#exchange-1 .exchange-status'), '200');
    const request = JSON.parse(await text(page, '#exchange-1 .exchange-request'));
    assert.equal(request.partnerReferenceNo, partnerRef);
    assert.equal(request.beneficiaryAccountNo, '8880123456');
    assert.equal(request.beneficiaryBankCode, '014');
    assert.deepEqual(request.amount, { value: '19860.00', currency: 'IDR' });
    const response = JSON.parse(await text(page, '#exchange-1 .exchange-response'));
    assert.equal(response.responseCode, '2001800');
    assert.equal(await page.$('#decide'), null, 'a paid payout has nothing to decide');
    await page.screenshot({ path: screenshotPath('payout'), fullPage: true });

    // The list, through the menu: the payout, its merchant, the filters.
    await page.click('header nav a:text("Payouts")');
    await page.waitForURL(/\/console\/payouts$/);
    const row = `#payouts tr[data-payout="${made.id}"]`;
    assert.match(await text(page, row), /Rp 19\.860,00/);
    assert.equal(await text(page, `${row} td[data-label="Merchant"]`), 'Toko Kopi Senja');
    assert.equal(await text(page, `${row} td[data-label="State"]`), 'paid');
    assert.equal(await page.$('#awaiting-count'), null, 'nothing awaits approval');
    await page.selectOption('select[name=state]', 'failed');
    await page.click('form.filters button:text("Filter")');
    await page.waitForURL(/state=failed/);
    assert.equal(await page.$(row), null);
    assert.match(await text(page, 'main'), /No payout here/);
    await page.goto(`${gw.url}/console/payouts?kind=settlement&state=paid&merchant=${s.merchantId}`);
    assert.ok(await page.$(row));
    assert.equal(await page.inputValue('select[name=merchant]'), s.merchantId);
    await page.goto(`${gw.url}/console/payouts?kind=disbursement`);
    assert.equal(await page.$(row), null);
    await page.click(`a:text("Clear")`);
    await page.waitForURL(/\/console\/payouts$/);
    assert.ok(await page.$(row));
    assert.deepEqual(alerts, []);
  });

  test('above the limit a payout awaits approval: the key that asked is refused, an approve key approves it', async () => {
    // 100.000,00 less 700,00: 99.300,00, above the limit.
    const s = await settled('Toko Empat Mata', '100000.00', '8880127777');
    const key = async (name: string, scope: string) =>
      (await gw.admin('POST', '/admin-keys', { name, scope })).body as { key: string };
    const operator = await key('payout-operator', 'operate');
    const asker = await key('payout-asker', 'admin');
    const approver = await key('payout-approver', 'approve');
    assert.ok(operator.key && asker.key && approver.key);
    await browser.context.clearCookies();

    // An operate key may pay through the bank, and may not record a payout by hand (403 when it posts anyway).
    await login(page, operator.key);
    await page.goto(`${gw.url}/console/books/settlements/${s.settlementId}`);
    assert.match(await text(page, '#bank-payout'), /above Rp 50\.000,00: it waits until another key/);
    assert.equal(await page.$('input[name=bankReference]'), null);
    assert.equal(await post(page, `/console/books/settlements/${s.settlementId}/payout`), 403);
    assert.equal((await settlement(s.settlementId)).status, 'open');
    await logout(page);

    // An admin key asks for the payout: it waits for another key.
    await login(page, asker.key);
    await payThroughBank(page, s.settlementId);
    assert.match(
      await text(page, '.flash.ok'),
      /^Payout po_\w+ awaits approval: another key of admin or approve scope/,
    );
    const [asked] = await payoutsOf(s.merchantId);
    assert.ok(asked);
    assert.equal(asked.state, 'awaiting_approval');
    big = { ...s, payoutId: asked.id };
    assert.match(await text(page, '#settlement-summary'), /being paid out/);
    assert.equal(await page.getAttribute('#paying a', 'href'), `/console/payouts/${asked.id}`);
    assert.equal(await page.$('#bank-payout'), null);

    // Marked on the list.
    await page.goto(`${gw.url}/console/payouts`);
    assert.match(await text(page, '#awaiting-count'), /^1 payout awaits approval\./);
    const row = `#payouts tr[data-payout="${asked.id}"]`;
    assert.equal(await page.getAttribute(row, 'class'), 'awaiting');
    await page.screenshot({ path: screenshotPath('payouts'), fullPage: true });
    assert.equal(await text(page, `${row} td[data-label="State"]`), 'awaiting approval');
    await page.click('#awaiting-count a');
    await page.waitForURL(/state=awaiting_approval$/);
    assert.equal((await page.$$('#payouts tbody tr')).length, 1);

    // The key that asked sees Approve and Reject, is told it may not, and is refused (403) on the page.
    await page.click(`${row} a`);
    await page.waitForURL(`${gw.url}/console/payouts/${asked.id}`);
    assert.equal(await text(page, '#payout-state'), 'awaiting approval');
    assert.match(await text(page, '#payout-requested-by'), /payout-asker .*\(you\)/);
    assert.match(await text(page, '#decide-own'), /Your key asked for this payout/);
    assert.equal((await page.$$('#exchanges > li')).length, 0, 'nothing was sent');
    await page.click('#approve');
    await page.waitForSelector('.flash.error');
    assert.equal(new URL(page.url()).pathname, `/console/payouts/${asked.id}`);
    assert.equal(await text(page, '.flash.error'), 'Not approved: the key that asked for a payout cannot approve it.');
    await page.click('#reject');
    await page.waitForSelector('.flash.error');
    assert.equal(await text(page, '.flash.error'), 'Not rejected: the key that asked for a payout cannot reject it.');
    await page.reload();
    assert.equal(await page.$('.flash'), null, 'a refusal is said once');
    assert.equal(await text(page, '#payout-state'), 'awaiting approval');
    assert.equal((await payoutsOf(s.merchantId))[0]?.state, 'awaiting_approval');
    assert.equal(
      await gw.store.findSandboxTransfer({ partnerReferenceNo: await text(page, '#payout-partner-reference') }),
      undefined,
    );
    assert.deepEqual(await auditStatuses('console: approve payout (refused)'), [403]);
    assert.deepEqual(await auditStatuses('console: reject payout (refused)'), [403]);
    await logout(page);

    // An operate key sees who may decide, no button, and is refused (403) when it posts anyway.
    await login(page, operator.key);
    await page.goto(`${gw.url}/console/payouts/${asked.id}`);
    assert.match(
      await text(page, '#decide-scope'),
      /A key of admin or approve scope decides it; this key \(operate\) cannot/,
    );
    assert.equal(await page.$('#approve'), null);
    assert.equal(await post(page, `/console/payouts/${asked.id}/approve`), 403);
    assert.equal(await post(page, `/console/payouts/${asked.id}/reject`), 403);
    assert.equal((await payoutsOf(s.merchantId))[0]?.state, 'awaiting_approval');
    await logout(page);

    // An approve key lands on the payouts, sees nothing else, and approves.
    await login(page, approver.key, /\/console\/payouts$/);
    assert.deepEqual(await page.$$eval('header nav a', (as) => as.map((a) => a.textContent)), ['Payouts']);
    const elsewhere = await page.goto(`${gw.url}/console/merchants`);
    assert.equal(elsewhere?.status(), 403);
    assert.match(
      await text(page, 'main'),
      /the key payout-approver has the approve scope: it sees and decides payouts, nothing else/,
    );
    assert.doesNotMatch(await text(page, 'main'), /Toko Empat Mata/);
    assert.equal((await page.goto(`${gw.url}/console/books/settlements/${s.settlementId}`))?.status(), 403);
    await page.goto(`${gw.url}/console/payouts/${asked.id}`);
    assert.equal(await page.$('#decide-own'), null);
    assert.match(await text(page, '#payout-for'), new RegExp(`settlement ${s.settlementId}`));
    assert.equal(await page.$('#payout-for a'), null, 'an approve key reads no settlement: no link');
    await page.click('#approve');
    await page.waitForSelector('.flash');
    assert.equal(
      await text(page, '.flash.ok'),
      `Approved: the bank paid Rp 99.300,00 (bank reference ${(await settlement(s.settlementId)).bankReference}).`,
    );
    assert.equal(await text(page, '#payout-state'), 'paid');
    assert.match(await text(page, '#payout-approved-by'), /^payout-approver key_\w+ \(you\)$/);
    assert.equal(await page.$('#decide'), null);
    assert.equal(await page.getAttribute('#exchange-1', 'data-service'), '18');
    await page.reload();
    assert.equal(await page.$('.flash'), null);
    const after = await settlement(s.settlementId);
    assert.equal(after.status, 'paid');
    assert.equal((await payoutsOf(s.merchantId)).length, 1);
    assert.deepEqual(await auditStatuses('console: approve payout'), [200]);
    // Approving again is refused for the payout's state (409), on its page.
    assert.equal(await post(page, `/console/payouts/${asked.id}/approve`), 303);
    await page.reload();
    assert.match(
      await text(page, '.flash.error'),
      /^Not approved: payout po_\w+ is paid: only one awaiting approval is approved\.$/,
    );
    await logout(page);
    assert.deepEqual(alerts, []);
  });

  test('a transfer the bank ends failed reopens the settlement with why; a 409 (no account, no payout bank) is said on the page', async () => {
    await login(page, ADMIN_TOKEN);
    // An account ending 222: the sandbox bank takes it pending, then says 06 at the status query.
    const s = await settled(EVIL, '10000.00', '8880120222');
    await payThroughBank(page, s.settlementId);
    assert.match(
      await text(page, '.flash.ok'),
      /^Sent to the bank: payout po_\w+ is pending; the bank has not confirmed it yet/,
    );
    assert.match(await text(page, '#settlement-summary'), /being paid out/);
    const [pending] = await payoutsOf(s.merchantId);
    assert.ok(pending);
    // Opening the payout asks the bank (36): it ended the transfer.
    await page.click('#paying a');
    await page.waitForURL(`${gw.url}/console/payouts/${pending.id}`);
    assert.equal(await text(page, '#payout-state'), 'failed');
    assert.equal(await text(page, '#payout-error'), 'the bank ended the transfer: status 06');
    assert.deepEqual(await page.$$eval('#exchanges > li', (lis) => lis.map((li) => li.getAttribute('data-service'))), [
      '18',
      '36',
    ]);
    assert.equal(await text(page, '#exchange-1 .exchange-status'), '202');
    assert.equal(JSON.parse(await text(page, '#exchange-2 .exchange-response')).latestTransactionStatus, '06');
    // The merchant's name is text, never run: on the payout's page and on the list.
    assert.equal(await text(page, '#payout-summary a[href^="/console/merchants/"]'), EVIL);
    assert.equal(await page.$('main img[src=x]'), null);
    assert.equal(await page.$('main script'), null);
    await page.goto(`${gw.url}/console/payouts?merchant=${s.merchantId}`);
    assert.equal(await text(page, `#payouts tr[data-payout="${pending.id}"] td[data-label="Merchant"]`), EVIL);
    assert.equal(await text(page, `#payouts tr[data-payout="${pending.id}"] td[data-label="State"]`), 'failed');
    assert.equal(await page.$('main img[src=x]'), null);
    assert.equal(await page.$('main script'), null);
    await waitFor('the settlement open again', async () => (await settlement(s.settlementId)).status === 'open');
    await page.goto(`${gw.url}/console/books/settlements/${s.settlementId}`);
    assert.match(await text(page, '#settlement-summary'), /open/);
    assert.equal(await text(page, '#settlement-payout-error'), 'the bank ended the transfer: status 06');
    assert.match(await text(page, '#settlement-payout'), /did not pay: the settlement may be paid out again/);
    assert.ok(await page.$('#bank-payout'), 'it may be paid out again');

    // No verified account: refused (409), said on the settlement's page, nothing sent.
    const none = await settled('Toko Tanpa Rekening', '10000.00');
    await page.goto(`${gw.url}/console/books/settlements/${none.settlementId}`);
    assert.match(await text(page, '#bank-payout-to'), /no verified bank account/);
    await payThroughBank(page, none.settlementId);
    assert.match(
      await text(page, '.flash.error'),
      new RegExp(`^Not paid out: merchant ${none.merchantId} has no verified payoutAccount: nothing was sent\\.$`),
    );
    await page.reload();
    assert.equal(await page.$('.flash'), null);
    assert.equal((await settlement(none.settlementId)).status, 'open');
    assert.deepEqual(await payoutsOf(none.merchantId), []);

    // No payout bank (a bank provider named the payout bank, disabled: the sandbox bank does not
    // stand in for it): refused (409), said on the page.
    const later = await settled('Toko Tanpa Bank', '10000.00', '8880125555');
    const bank = await gw.admin('POST', '/providers', {
      name: 'Bank Tutup',
      kind: 'bank',
      bankCode: '777',
      outbound: {
        baseUrl: gw.url,
        clientKey: 'snapgate',
        clientSecret: 'never-called-secret',
        partnerId: 'SNAPGATE01',
      },
      payouts: { sourceAccountNo: '7770000000001' },
    });
    assert.equal(bank.status, 201, JSON.stringify(bank.body));
    assert.equal((await gw.admin('PATCH', `/providers/${bank.body.id}`, { status: 'disabled' })).status, 200);
    try {
      await payThroughBank(page, later.settlementId);
      assert.match(await text(page, '.flash.error'), /^Not paid out: there is no active payout bank to pay through/);
      assert.equal((await settlement(later.settlementId)).status, 'open');
    } finally {
      const cleared = await gw.admin('PATCH', `/providers/${bank.body.id}`, { payouts: null, outbound: null });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    }
    assert.deepEqual(await auditStatuses('console: pay out settlement through the bank (refused)'), [409, 409]);

    // A read key sees the settlement and the payouts, and no button; posting anyway is refused.
    const reader = (await gw.admin('POST', '/admin-keys', { name: 'payout-reader', scope: 'read' })).body;
    await logout(page);
    await login(page, reader.key);
    await page.goto(`${gw.url}/console/books/settlements/${later.settlementId}`);
    assert.equal(await page.$('#bank-payout'), null);
    assert.equal(await post(page, `/console/books/settlements/${later.settlementId}/payout/bank`), 403);
    await page.goto(`${gw.url}/console/payouts/${big.payoutId}`);
    assert.equal(await text(page, '#payout-state'), 'paid');
    assert.equal(await post(page, `/console/payouts/${big.payoutId}/approve`), 403);
    assert.equal((await settlement(later.settlementId)).status, 'open');
    await logout(page);
    assert.deepEqual(alerts, []);
  });

  test('no payout page scrolls sideways at 390 px', async () => {
    await login(page, ADMIN_TOKEN);
    await page.setViewportSize(PHONE);
    try {
      const problems: string[] = [];
      for (const path of [
        '/console/payouts',
        `/console/payouts/${first.payoutId}`,
        `/console/payouts/${big.payoutId}`,
        '/console/books/settlements',
        `/console/books/settlements/${first.settlementId}`,
      ]) {
        await page.goto(`${gw.url}${path}`);
        for (const p of await sideways(page)) problems.push(`${path}: ${p}`);
      }
      assert.deepEqual(problems, []);
      // The list keeps the amount and the state on screen, each labelled by its column.
      await page.goto(`${gw.url}/console/payouts`);
      const label = await page.$eval(
        '#payouts tbody td[data-label="State"]',
        (td) => getComputedStyle(td, '::before').content,
      );
      assert.equal(label, '"State"');
    } finally {
      await page.setViewportSize(LAPTOP);
    }
    await logout(page);
  });

  test('the portal shows the merchant its bank account, its settlements’ payouts and its own payouts only', async () => {
    await browser.context.clearCookies();
    const link = await gw.admin('POST', `/merchants/${first.merchantId}/portal-link`);
    assert.equal(link.status, 201, JSON.stringify(link.body));
    const portal = watch(await browser.context.newPage());
    await portal.goto(link.body.url);
    await portal.click('button:text("Continue to the portal")');
    await portal.click('header nav a:text("Payouts")');
    await portal.waitForURL(/\/console\/portal\/payouts$/);
    assert.equal(await portal.getAttribute('header nav a:text("Payouts")', 'aria-current'), 'page');
    assert.equal(await text(portal, '#payout-account-bank'), '014');
    assert.equal(await text(portal, '#payout-account-no'), '8880123456');
    assert.equal(await text(portal, '#payout-account-name'), 'SANDBOX 3456');
    assert.match(
      await text(portal, '#payout-account-verified'),
      /^SANDBOX 3456 \(the payout bank’s answer, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d WIB\)$/,
    );
    assert.match(await text(portal, '#payout-schedule'), /^manual/);
    const rows = await portal.$$eval('#payouts tbody tr', (trs) => trs.map((tr) => tr.getAttribute('data-payout')));
    assert.deepEqual(rows, [first.payoutId], 'its own payout, and no other merchant’s');
    const row = `#payouts tr[data-payout="${first.payoutId}"]`;
    assert.match(await text(portal, row), /Rp 19\.860,00/);
    assert.equal(await text(portal, `${row} td[data-label="State"] .badge`), 'paid');
    assert.match(await text(portal, `${row} td[data-label="State"] .muted`), /^bank reference \d+$/);
    assert.equal(
      await portal.getAttribute(`${row} td[data-label="For"] a`, 'href'),
      `/console/portal/settlements/${first.settlementId}`,
    );
    await portal.screenshot({ path: screenshotPath('portal-payouts'), fullPage: true });
    await portal.setViewportSize(PHONE);
    assert.deepEqual(await sideways(portal), [], 'the portal’s payouts at 390 px');
    await portal.setViewportSize(LAPTOP);

    // The settlements say how each was paid out, and link the payout.
    await portal.click('header nav a:text("Settlements")');
    await portal.waitForURL(/\/console\/portal\/settlements$/);
    // Its long settlement and payout ids break inside their cells: every column on screen at 1366 px.
    assert.deepEqual(await sideways(portal), [], 'the portal’s settlements at 1366 px');
    assert.ok(await portal.isVisible(`#settlements td[data-label="Status"]`));
    assert.equal(
      await portal.getAttribute(`#settlements a:text("${first.payoutId}")`, 'href'),
      `/console/portal/payouts#${first.payoutId}`,
    );
    await portal.click(`a:text("${first.settlementId}")`);
    await portal.waitForURL(`${gw.url}/console/portal/settlements/${first.settlementId}`);
    assert.match(await text(portal, '#settlement-payout'), /paid through the bank/);
    await portal.click('#settlement-payout a');
    await portal.waitForURL(`${gw.url}/console/portal/payouts#${first.payoutId}`);
    assert.ok(await portal.$(`[id="${first.payoutId}"]`));

    // Another merchant's payout is nowhere in its portal; nor is an operator's payout page.
    assert.doesNotMatch(await text(portal, 'main'), new RegExp(big.payoutId));
    const operatorPage = await portal.goto(`${gw.url}/console/payouts/${big.payoutId}`);
    assert.match(new URL(portal.url()).pathname, /^\/console\/login$/);
    assert.ok(operatorPage);
    await portal.close();
    assert.deepEqual(alerts, []);
  });
});

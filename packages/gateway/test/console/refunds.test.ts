// Refund and cancel from a transaction's page, in Debian's Chromium (playwright-core) at 1366 px,
// against a real gateway and a real merchant receiver: offered only where the status machine allows,
// done through the payment services as the merchant's own calls (a QRIS cancel and a full refund
// notify the merchant), audited with the amounts, refused in plain words, and never done twice (a
// reload is a GET; the same form sent twice refunds once). With JavaScript off, the forms still work
// (Post/Redirect/Get). Without Chromium the tests skip with a message, except in CI.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium, type TestChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

interface AuditRow {
  action: string;
  target: string | null;
  httpStatus: number;
  before: unknown;
  after: unknown;
}

describe('refund and cancel from a transaction page', browserSuite, () => {
  let gw: ConsoleGateway;
  let receiver: Receiver;
  let browser: TestChromium;
  let context: BrowserContext;
  let page: Page;
  let merchant: TestMerchant;

  const signIn = async (c: BrowserContext, key = ADMIN_TOKEN) => {
    const p = await c.newPage();
    p.on('dialog', (d) => void d.accept());
    await p.goto(`${gw.url}/console/login`);
    await p.fill('#key', key);
    await Promise.all([p.waitForNavigation(), p.click('main button[type=submit]')]);
    assert.equal(new URL(p.url()).pathname, '/console/overview');
    return p;
  };

  before(async () => {
    receiver = await startReceiver();
    gw = await startConsoleGateway({ dispatch: true });
    merchant = await gw.createMerchant({ name: 'Toko Kembali', callbackBaseUrl: receiver.baseUrl });
    browser = await launchChromium();
    context = browser.context;
    page = await signIn(context);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const path = (p: Page) => new URL(p.url()).pathname;
  const txn = async (ref: string) => (await gw.admin('GET', `/transactions/${ref}`)).body;
  const auditRows = async (action: string): Promise<AuditRow[]> =>
    (await gw.admin('GET', '/audit?limit=500')).body.items.filter((a: AuditRow) => a.action === action);
  /** The page a form leads to (its final answer). */
  const submit = async (p: Page, selector: string) => {
    const [r] = await Promise.all([p.waitForNavigation(), p.click(selector)]);
    assert.ok(r, `${selector} leads somewhere`);
    return r;
  };
  /** A reload is a GET after which `counts` sees nothing more. */
  const reloadRepeatsNothing = async (p: Page, counts: () => Promise<unknown>) => {
    const was = await counts();
    const r = await p.reload();
    assert.equal(r?.request().method(), 'GET');
    assert.deepEqual(await counts(), was, `a reload of ${path(p)} changed something`);
  };
  const callbacksOf = (ref: string) =>
    receiver.received.filter((x) => x.body.includes(ref)).map((x) => JSON.parse(x.body).latestTransactionStatus);

  let seq = 0;
  const newQris = async (amount: string, paid: boolean) => {
    const r = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `KEMBALI-${++seq}`,
      amount: { value: amount, currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    const ref = r.body.referenceNo as string;
    if (paid) {
      assert.equal((await gw.admin('POST', `/sandbox/qris/${ref}/pay`, { status: '00' })).status, 200);
      await waitFor('the payment delivered', () => callbacksOf(ref).includes('00'));
    }
    return ref;
  };
  const newVa = async (amount: string) => {
    const v = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'Budi',
      trxId: `KEMBALI-VA-${++seq}`,
      totalAmount: { value: amount, currency: 'IDR' },
    });
    assert.equal(v.status, 200, v.text);
    const vaNo = v.body.virtualAccountData.virtualAccountNo as string;
    return { vaNo, ref: (await gw.store.findTransactionByVirtualAccountNo(vaNo))?.referenceNo as string };
  };

  test('QRIS cancel: offered while unpaid, 05 with the reason, the merchant notified; a reload cancels nothing', async () => {
    const ref = await newQris('12000.00', false);
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    assert.ok(await page.$('#cancel-form'), 'cancel is offered on an unpaid QRIS');
    assert.equal(await page.$('#refund-form'), null, 'nothing to refund on an unpaid QRIS');
    await page.fill('#cancel-form input[name=reason]', 'customer left the shop');
    await submit(page, '#cancel-form button[type=submit]');
    assert.equal(path(page), `/console/transactions/${ref}`);
    assert.equal(
      await text(page, '.flash.ok'),
      `QRIS ${ref} is cancelled (05 Canceled): it can no longer be paid, and its merchant is notified.`,
    );
    const t = await txn(ref);
    assert.equal(t.status, '05');
    assert.equal(t.statusHistory.at(-1).reason, 'customer left the shop');
    assert.match(await text(page, '#h-history + ol'), /customer left the shop/);
    assert.match(await text(page, '#actions-none'), /is cancelled: there is nothing to refund or cancel/);
    await waitFor('the cancel at the receiver', () => callbacksOf(ref).includes('05'));

    await reloadRepeatsNothing(page, async () => [
      (await txn(ref)).statusHistory.length,
      (await gw.store.notificationsOf(ref)).length,
      (await auditRows('console: cancel')).length,
    ]);
    assert.equal(await page.$('.flash'), null, 'the outcome is said once');
    const [row] = await auditRows('console: cancel');
    assert.equal(row?.target, ref);
    assert.equal(row?.httpStatus, 200);
    assert.deepEqual(row?.before, { status: '01', amount: '12000.00' });
    assert.deepEqual(row?.after, { status: '05', statusDesc: 'Canceled', amount: '12000.00' });
  });

  test('QRIS refund, partial then whole: 00 until all is back, then 04 and notified; in the summary and ledger; a reload refunds nothing', async () => {
    const ref = await newQris('18000.00', true);
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    assert.equal(await page.$('#cancel-form'), null, 'a paid QRIS is not cancelled');
    assert.equal(await page.inputValue('#refund-form input[name=refundAmount]'), '18000.00', 'the rest, by default');
    await page.fill('#refund-form input[name=refundAmount]', '5000.00');
    await page.fill('#refund-form input[name=reason]', 'one item out of stock');
    await submit(page, '#refund-form button[type=submit]');
    assert.equal(path(page), `/console/transactions/${ref}`);
    assert.match(
      await text(page, '.flash.ok'),
      new RegExp(
        `^Refunded Rp 5\\.000,00 of QRIS ${ref} \\(refund RF\\d+, partnerRefundNo CONSOLE-[0-9A-F]{16}\\)\\. Rp 13\\.000,00 remains refundable; its merchant is notified\\.$`,
      ),
    );
    let t = await txn(ref);
    assert.deepEqual([t.status, t.refundedAmount.value], ['00', '5000.00']);
    assert.equal(await text(page, '#txn-refunded'), 'Rp 5.000,00');
    assert.match(await text(page, 'section[aria-labelledby=h-ledger]'), /refund/i, 'the ledger lists the refund');
    const refunds = async () =>
      (await gw.admin('GET', `/ledger/entries?referenceNo=${ref}&kind=refund`)).body.items.length as number;
    assert.equal(await refunds(), 1);
    await reloadRepeatsNothing(page, async () => [
      (await txn(ref)).refundedAmount.value,
      await refunds(),
      (await auditRows('console: refund')).length,
    ]);
    assert.equal((await txn(ref)).refundedAmount.value, '5000.00');

    // The rest: the whole amount back, 04, notified.
    assert.equal(await page.inputValue('#refund-form input[name=refundAmount]'), '13000.00');
    await submit(page, '#refund-form button[type=submit]');
    assert.match(
      await text(page, '.flash.ok'),
      /^Refunded Rp 13\.000,00 of QRIS .*: the whole amount is back, the QRIS is 04 Refunded and its merchant is notified\.$/,
    );
    t = await txn(ref);
    assert.deepEqual([t.status, t.refundedAmount.value], ['04', '18000.00']);
    assert.match(await text(page, '#txn-status'), /^04 Refunded/);
    assert.match(await text(page, '#actions-none'), /refunded in full/);
    await waitFor('the refund at the receiver', () => callbacksOf(ref).includes('04'));
    assert.equal(await refunds(), 2);
    const rows = (await auditRows('console: refund')).filter((r) => r.target === ref);
    assert.equal(rows.length, 2);
    const amounts = rows.map((r) => {
      const [b, a] = [r.before, r.after] as Array<Record<string, string>>;
      return [b?.status, b?.amount, b?.refundedAmount, a?.refundAmount, a?.refundedAmount, a?.status];
    });
    assert.deepEqual(amounts.reverse(), [
      ['00', '18000.00', '0.00', '5000.00', '5000.00', '00'],
      ['00', '18000.00', '5000.00', '13000.00', '18000.00', '04'],
    ]);
    // The page follows the refund's delivery by itself (no reload).
    await page.waitForFunction(() => {
      const s = document.getElementById('notifications');
      const states = [...(s?.querySelectorAll('article h3 .badge') ?? [])];
      return s?.dataset.liveActive === 'false' && states.every((b) => b.classList.contains('delivered'));
    });
    await page.screenshot({ path: screenshotPath('transaction-refunded'), fullPage: true });
  });

  test('the same refund form sent twice refunds once', async () => {
    const ref = await newQris('9000.00', true);
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    const form = Object.fromEntries(
      await page.$$eval('#refund-form input', (inputs) =>
        inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value]),
      ),
    ) as Record<string, string>;
    form.refundAmount = '1000.00';
    const post = () =>
      page.request.post(`${gw.url}/console/transactions/${ref}/refund`, {
        form,
        headers: { origin: gw.url },
        maxRedirects: 0,
      });
    assert.equal((await post()).status(), 303);
    const again = await post();
    assert.equal(again.status(), 303);
    await page.goto(`${gw.url}${again.headers().location}`);
    assert.equal(
      await text(page, '.flash.error'),
      `This refund form was already sent: the refund CONSOLE-${form._once?.toUpperCase()} was made once and is not made again.`,
    );
    assert.equal((await txn(ref)).refundedAmount.value, '1000.00');
    assert.equal((await auditRows('console: refund (refused)')).filter((r) => r.target === ref).length, 1);
  });

  test('VA cancel deletes it (05 Deleted): it takes no payment; a VA is not notified until paid', async () => {
    const { ref, vaNo } = await newVa('25000.00');
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    assert.equal(await page.$('#refund-form'), null);
    assert.equal(await page.$('#cancel-form input[name=reason]'), null, 'delete-va takes no reason');
    // A refund sent anyway (a stale page, a hand-made form): refused in words, nothing changed.
    const fields = Object.fromEntries(
      await page.$$eval('#cancel-form input', (inputs) =>
        inputs.map((i) => [(i as HTMLInputElement).name, (i as HTMLInputElement).value]),
      ),
    ) as Record<string, string>;
    const refund = await page.request.post(`${gw.url}/console/transactions/${ref}/refund`, {
      form: { ...fields, refundAmount: '1000.00' },
      headers: { origin: gw.url },
      maxRedirects: 0,
    });
    assert.equal(refund.status(), 303);
    await page.goto(`${gw.url}${refund.headers().location}`);
    assert.equal(
      await text(page, '.flash.error'),
      `The VA ${vaNo.trim()} (${ref}) is a virtual account: only a QRIS or an e-wallet payment is refunded through snapgate.`,
    );
    assert.equal((await txn(ref)).refundedAmount.value, '0.00');
    await submit(page, 'button:text("Delete VA (05)")');
    assert.equal(
      await text(page, '.flash.ok'),
      `The VA ${vaNo.trim()} (${ref}) is deleted (05 Canceled): it takes no payment any more.`,
    );
    const t = await txn(ref);
    assert.deepEqual([t.status, t.statusDesc], ['05', 'Deleted']);
    // Its history says the operator deleted it, not the merchant (delete-va itself carries no reason).
    assert.equal(t.statusHistory.at(-1).reason, 'deleted by the gateway operator');
    await reloadRepeatsNothing(page, async () => [
      (await txn(ref)).statusHistory.length,
      (await auditRows('console: cancel')).length,
    ]);
    assert.equal((await gw.admin('POST', `/sandbox/va/${encodeURIComponent(vaNo)}/pay`, {})).status >= 400, true);
    assert.deepEqual(callbacksOf(ref), [], 'the gateway sends no notification of a VA deleted');
  });

  test('refused in plain words: each refund rule shown again as typed (400); a stale cancel and a refund of an unpaid one said on the page (409)', async () => {
    const ref = await newQris('18000.00', true);
    const at = `${gw.url}/console/transactions/${ref}`;
    const refundTyped = async (fields: Record<string, string>, problem: RegExp) => {
      await page.goto(at);
      for (const [name, value] of Object.entries(fields)) await page.fill(`#refund-form input[name=${name}]`, value);
      const r = await submit(page, '#refund-form button[type=submit]');
      assert.equal(r.status(), 400, JSON.stringify(fields));
      assert.equal(r.request().method(), 'POST', 'nothing changed: the form is shown again');
      assert.match(await text(page, '#form-problems'), /^Nothing was refunded:/);
      assert.match(await text(page, '#form-problems'), problem);
      for (const [name, value] of Object.entries(fields)) {
        assert.equal(await page.inputValue(`#refund-form input[name=${name}]`), value, `${name} as typed`);
      }
      assert.equal(await page.textContent('header nav a[aria-current=page]'), 'Transactions');
    };
    await refundTyped(
      { refundAmount: '99999.00' },
      /refundAmount: Rp 99\.999,00 is more than what remains to refund, Rp 18\.000,00 \(paid Rp 18\.000,00, refunded Rp 0,00\)/,
    );
    for (const amount of ['5.000', '5000', '', '0.00', '-1.00']) {
      await refundTyped({ refundAmount: amount }, /refundAmount: write the amount like 5000\.00/);
    }
    await refundTyped(
      { refundAmount: '100.00', partnerRefundNo: 'R'.repeat(65) },
      /partnerRefundNo: at most 64 characters/,
    );
    await refundTyped({ refundAmount: '100.00', reason: 'x'.repeat(257) }, /reason: at most 256 characters/);
    // A number another refund holds.
    await page.goto(at);
    await page.fill('#refund-form input[name=refundAmount]', '100.00');
    await page.fill('#refund-form input[name=partnerRefundNo]', 'REFUND-TAKEN');
    await submit(page, '#refund-form button[type=submit]');
    assert.equal((await txn(ref)).refundedAmount.value, '100.00');
    await refundTyped(
      { refundAmount: '200.00', partnerRefundNo: 'REFUND-TAKEN' },
      /partnerRefundNo: REFUND-TAKEN already numbers another refund of this merchant/,
    );
    assert.equal((await txn(ref)).refundedAmount.value, '100.00', 'no refused form refunded anything');
    const refused = (await auditRows('console: refund (refused)')).filter((r) => r.target === ref);
    assert.equal(refused.length, 9);
    assert.ok(refused.every((r) => r.httpStatus === 400));

    // A cancel reason too long: the cancel form again, as typed.
    const open = await newQris('7000.00', false);
    await page.goto(`${gw.url}/console/transactions/${open}`);
    await page.fill('#cancel-form input[name=reason]', 'y'.repeat(257));
    const r = await submit(page, '#cancel-form button[type=submit]');
    assert.equal(r.status(), 400);
    assert.match(await text(page, '#form-problems'), /^Nothing was cancelled:.*reason: at most 256 characters/s);
    assert.equal(await page.inputValue('#cancel-form input[name=reason]'), 'y'.repeat(257));
    assert.equal((await txn(open)).status, '01');

    // Cancel from a page left open while the QRIS was paid elsewhere.
    await page.goto(`${gw.url}/console/transactions/${open}`);
    assert.equal((await gw.admin('POST', `/sandbox/qris/${open}/pay`, { status: '00' })).status, 200);
    await submit(page, '#cancel-form button[type=submit]');
    assert.equal(path(page), `/console/transactions/${open}`);
    assert.equal(
      await text(page, '.flash.error'),
      `QRIS ${open} is already paid: it cannot be cancelled (refund it instead). Nothing was changed.`,
    );
    assert.equal((await txn(open)).status, '00');
    const cancels = (await auditRows('console: cancel (refused)')).filter((x) => x.target === open);
    assert.deepEqual(
      cancels.map((x) => x.httpStatus),
      [409, 400],
      'the stale cancel (409, newest first), the reason too long (400)',
    );

    // A refund of an unpaid QRIS (no page offers it: posted by hand).
    const unpaid = await newQris('6000.00', false);
    await page.goto(`${gw.url}/console/transactions/${unpaid}`);
    const csrf = await page.inputValue('#cancel-form input[name=_csrf]');
    const res = await page.request.post(`${gw.url}/console/transactions/${unpaid}/refund`, {
      form: { _csrf: csrf, refundAmount: '6000.00' },
      headers: { origin: gw.url },
      maxRedirects: 0,
    });
    assert.equal(res.status(), 303);
    await page.goto(`${gw.url}${res.headers().location}`);
    assert.equal(
      await text(page, '.flash.error'),
      `QRIS ${unpaid} is not paid (01 Initiated): there is nothing to refund.`,
    );
    assert.equal((await txn(unpaid)).refundedAmount.value, '0.00');
  });

  test('a read key sees no refund or cancel, and posting one anyway is refused (403)', async () => {
    const made = await gw.admin('POST', '/admin-keys', { name: 'pembaca', scope: 'read' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const readContext = await browser.newContext();
    const reader = await signIn(readContext, made.body.key);
    const ref = await newQris('4000.00', false);
    await reader.goto(`${gw.url}/console/transactions/${ref}`);
    assert.equal(await reader.$('#payment-actions'), null);
    const csrf = await reader.inputValue('header input[name=_csrf]');
    for (const verb of ['cancel', 'refund']) {
      const res = await reader.request.post(`${gw.url}/console/transactions/${ref}/${verb}`, {
        form: { _csrf: csrf, refundAmount: '1.00' },
        headers: { origin: gw.url },
        maxRedirects: 0,
      });
      assert.equal(res.status(), 403, verb);
    }
    assert.equal((await txn(ref)).status, '01');
    await readContext.close();
  });

  test('without JavaScript, cancel and refund work the same (Post/Redirect/Get)', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    const p = await signIn(plain);
    const open = await newQris('3000.00', false);
    await p.goto(`${gw.url}/console/transactions/${open}`);
    await submit(p, '#cancel-form button[type=submit]');
    assert.match(await text(p, '.flash.ok'), /is cancelled \(05 Canceled\)/);
    assert.equal((await txn(open)).status, '05');

    const paid = await newQris('3000.00', true);
    await p.goto(`${gw.url}/console/transactions/${paid}`);
    await p.fill('#refund-form input[name=refundAmount]', '3000.00');
    await submit(p, '#refund-form button[type=submit]');
    assert.match(await text(p, '.flash.ok'), /the whole amount is back/);
    await reloadRepeatsNothing(p, async () => (await txn(paid)).refundedAmount.value);
    assert.deepEqual([(await txn(paid)).status, (await txn(paid)).refundedAmount.value], ['04', '3000.00']);
    await waitFor('the refund at the receiver', () => callbacksOf(paid).includes('04'));
    await plain.close();
  });
});

// Every state-changing form of the console and the portal, in Debian's Chromium (playwright-core):
// submitted, then its result page reloaded (page.reload()): a reload is a GET that repeats nothing
// (Post/Redirect/Get), counted through the gateway's store and admin API; a secret or a sign-in link
// is shown once and never again; a refused form keeps what was typed and the menu; a refused
// sandbox action says why in plain words; a paid transaction offers no Pay, Pend or Fail; the
// favicon loads on every page. Without Chromium the tests skip with a message, except in CI.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page, Response } from 'playwright-core';
import { FAVICON_PATH } from '../../src/console/assets.ts';
import { ONCE_MAX_AGE_SEC } from '../../src/console/session.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import {
  type ConsoleGateway,
  cookieOf,
  csrfIn,
  screenshotPath,
  signInByHand,
  startConsoleGateway,
} from './console-gateway.ts';

describe('console and portal forms: Post/Redirect/Get, shown once', browserSuite, () => {
  let gw: ConsoleGateway;
  let receiver: Receiver;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let merchant: TestMerchant;
  /** A QRIS of `merchant`, paid from its page, with its notification delivered. */
  let paidRef: string;
  const alerts: string[] = [];
  /** Every answer of 404 any page got: none is expected (a missing favicon would be one). */
  const notFound: string[] = [];
  /** Every console or portal page the browser opened (for the favicon's check). */
  const opened = new Set<string>();

  const watch = (p: Page) => {
    p.on('dialog', (d) => {
      if (d.type() !== 'confirm') alerts.push(`${d.type()}: ${d.message()}`);
      void (d.type() === 'confirm' ? d.accept() : d.dismiss());
    });
    p.on('response', (r) => {
      if (r.status() === 404) notFound.push(`${r.request().method()} ${r.url()}`);
      if (r.request().isNavigationRequest() && r.request().method() === 'GET' && r.status() === 200) {
        opened.add(new URL(r.url()).pathname);
      }
    });
    return p;
  };

  before(async () => {
    receiver = await startReceiver();
    gw = await startConsoleGateway({ dispatch: true });
    browser = await launchChromium();
    page = watch(browser.context.pages()[0] ?? (await browser.context.newPage()));
    merchant = await gw.createMerchant({ name: 'Toko Roti Lestari', callbackBaseUrl: receiver.baseUrl });
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const path = (p: Page) => new URL(p.url()).pathname;
  const audits = async (action: string) =>
    (await gw.store.listAudit({ limit: 1000 })).items.filter((a) => a.action === action).length;
  const merchantCount = async () => (await gw.store.listMerchants({ limit: 1000 })).items.length;
  const historyOf = async (ref: string) => (await gw.admin('GET', `/transactions/${ref}`)).body;
  /** What a repeated sandbox action would add to: the status, its history, the notifications, the ledger. */
  const stateOf = async (ref: string) => {
    const t = await historyOf(ref);
    const ledger = (await gw.admin('GET', `/ledger/entries?referenceNo=${ref}`)).body.items.length;
    return { status: t.status, history: t.statusHistory.length, notifications: t.notifications.length, ledger };
  };
  const notificationsOf = async (ref: string) => (await gw.store.notificationsOf(ref)).length;
  const attemptsOf = async (ref: string) => {
    let n = 0;
    for (const x of await gw.store.notificationsOf(ref)) n += (await gw.store.attemptsOf(x.id)).length;
    return n;
  };
  /** The page a form leads to: the answer the browser ends on, and the POST it came from. */
  const submit = async (p: Page, selector: string) => {
    const [r] = await Promise.all([p.waitForNavigation(), p.click(selector)]);
    assert.ok(r, `${selector} leads somewhere`);
    return { final: r, posted: r.request().redirectedFrom() };
  };
  /** Reloads the page: a GET (Post/Redirect/Get) after which `counts` sees nothing more. */
  const reloadRepeatsNothing = async (p: Page, counts: () => Promise<unknown>) => {
    const before = await counts();
    const r = (await p.reload()) as Response;
    assert.equal(r.request().method(), 'GET', `a reload of ${path(p)} posts nothing`);
    assert.deepEqual(await counts(), before, `a reload of ${path(p)} changed something`);
    return r;
  };
  const menuOf = async (p: Page) => ({
    nav: await p.$$eval('header nav a', (as) => as.map((a) => a.textContent)),
    current: await p.$eval('header nav a[aria-current=page]', (a) => a.textContent).catch(() => null),
  });
  const consoleFailures = async () => {
    const metrics = await (
      await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    return /snapgate_auth_failures_total\{door="console"\} (\d+)/.exec(metrics)?.[1] ?? '0';
  };

  test('log in: a wrong key, then a right one, each redirects; a reload posts nothing', async () => {
    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', 'not-a-key-at-all');
    const wrong = await submit(page, 'main button[type=submit]');
    assert.equal(wrong.posted?.method(), 'POST');
    assert.equal(path(page), '/console/login');
    assert.match(await text(page, '.flash.error'), /not valid/);
    await reloadRepeatsNothing(page, consoleFailures);
    assert.equal(await consoleFailures(), '1', 'one failed log-in counted');
    assert.equal(await page.$('.flash'), null, 'the refusal is said once');

    await page.fill('#key', ADMIN_TOKEN);
    await submit(page, 'main button[type=submit]');
    assert.equal(path(page), '/console/overview');
    await reloadRepeatsNothing(page, () => audits('console: log in'));
    assert.equal(await audits('console: log in'), 1);
  });

  test('create a merchant: its secret is shown once; a reload creates nothing and shows no secret', async () => {
    await page.goto(`${gw.url}/console/merchants/new`);
    await page.fill('input[name=name]', 'Toko Kopi Senja');
    await page.fill('input[name=callbackBaseUrl]', receiver.baseUrl);
    const count = await merchantCount();
    const { final, posted } = await submit(page, 'main button[type=submit]');
    const id = (await text(page, '#merchant-id')) || '';
    assert.equal(path(page), `/console/merchants/${id}/created`);
    const secret = await page.inputValue('#client-secret');
    assert.equal((await gw.store.findMerchantById(id))?.clientSecret, secret);
    assert.equal(await merchantCount(), count + 1);
    // The secret came in a sealed, HttpOnly, SameSite=Strict cookie bound to this page, for 5 minutes.
    const postAnswer = await posted?.response();
    assert.equal(postAnswer?.status(), 303);
    const sealed = (await postAnswer?.headerValues('set-cookie'))?.find((c) => c.startsWith('snapgate_console_once='));
    assert.ok(sealed, 'the value travels in the one-time cookie');
    assert.match(sealed, new RegExp(`; Path=/console/merchants/${id}/created; Max-Age=300; HttpOnly; SameSite=Strict`));
    assert.ok(!sealed.includes(secret) && !sealed.includes(Buffer.from(secret).toString('base64url')));
    assert.ok(!page.url().includes(secret) && !(postAnswer?.headers().location ?? '').includes(secret));
    assert.equal(final.headers()['cache-control'], 'no-store');
    assert.match(await text(page, '#shown-once'), /shown this once/);

    const again = await reloadRepeatsNothing(page, async () => [
      await merchantCount(),
      await audits('console: create merchant'),
    ]);
    assert.equal(again.headers()['cache-control'], 'no-store');
    assert.equal(await audits('console: create merchant'), 1);
    assert.equal(await page.$('#client-secret'), null, 'the secret is not shown again');
    assert.ok(!(await page.content()).includes(secret));
    assert.match(await text(page, '#shown-once'), /was shown once.*rotate the secret/s);
    assert.equal(await text(page, '#merchant-id'), id);
    await page.screenshot({ path: screenshotPath('merchant-created-reloaded'), fullPage: true });
    // Not in the audit log, not in the gateway's log.
    const rows = (await gw.store.listAudit({ limit: 1000 })).items;
    assert.ok(!JSON.stringify(rows).includes(secret));
    assert.ok(!gw.logs.some((l) => l.includes(secret)));
    // Going back to the page later shows no secret either.
    await page.goto(`${gw.url}/console/merchants/${id}/created`);
    assert.equal(await page.$('#client-secret'), null);
  });

  test('a refused merchant form comes back as typed, with its problems and the menu; nothing is made, reload or not', async () => {
    await page.goto(`${gw.url}/console/merchants/new`);
    await page.fill('input[name=name]', 'Toko <b>Salah</b> Alamat');
    await page.fill('input[name=qrisCallbackUrl]', 'ftp://shop.example/qris');
    await page.selectOption('select[name=callbackSignature]', 'snap-b2b');
    const count = await merchantCount();
    const { final } = await submit(page, 'main button[type=submit]');
    assert.equal(final.status(), 400);
    assert.equal(final.request().method(), 'POST', 'nothing changed: the form is shown again');
    const problems = await text(page, '#form-problems');
    assert.match(problems, /The merchant was not created/);
    assert.match(problems, /qrisCallbackUrl: must be an http\(s\) URL/);
    assert.match(problems, /callbackTokenUrl: snap-b2b takes a token/);
    assert.equal(await page.inputValue('input[name=name]'), 'Toko <b>Salah</b> Alamat');
    assert.equal(await page.inputValue('input[name=qrisCallbackUrl]'), 'ftp://shop.example/qris');
    assert.equal(await page.inputValue('select[name=callbackSignature]'), 'snap-b2b');
    assert.deepEqual((await menuOf(page)).current, 'Merchants');
    assert.equal(await page.$('main b'), null, 'what was typed is text');
    await page.screenshot({ path: screenshotPath('merchant-form-refused'), fullPage: true });
    // A reload posts the same refused form: refused again, nothing made.
    const again = (await page.reload()) as Response;
    assert.equal(again.status(), 400);
    assert.equal(await merchantCount(), count);
    assert.equal(await audits('console: create merchant'), 1);
  });

  test("a merchant's forms: edit, disable, enable, rotate, portal link, recover; each redirects, a reload repeats nothing", async () => {
    const base = `/console/merchants/${merchant.id}`;
    const stored = async () =>
      (await gw.store.findMerchantById(merchant.id)) as NonNullable<
        Awaited<ReturnType<typeof gw.store.findMerchantById>>
      >;

    // A refused edit: the form as typed, its problems, the menu; nothing saved.
    await page.goto(`${gw.url}${base}`);
    await page.fill('#callbacks input[name=vaCallbackUrl]', 'ftp://shop.example/va');
    const refused = await submit(page, '#callbacks button[type=submit]');
    assert.equal(refused.final.status(), 400);
    assert.match(await text(page, '#form-problems'), /Nothing was saved.*vaCallbackUrl: must be an http\(s\) URL/s);
    assert.equal(await page.inputValue('#callbacks input[name=vaCallbackUrl]'), 'ftp://shop.example/va');
    assert.equal((await menuOf(page)).current, 'Merchants');
    assert.equal((await stored()).vaCallbackUrl, null);

    await page.fill('#callbacks input[name=vaCallbackUrl]', `${receiver.baseUrl}/va`);
    await submit(page, '#callbacks button[type=submit]');
    assert.match(page.url(), /\?ok=saved$/);
    await reloadRepeatsNothing(page, () => audits('console: edit merchant'));
    assert.equal(await audits('console: edit merchant'), 1);
    assert.equal((await stored()).vaCallbackUrl, `${receiver.baseUrl}/va`);

    await submit(page, 'button:text("Disable merchant")');
    assert.match(page.url(), /\?ok=disabled$/);
    await reloadRepeatsNothing(page, () => audits('console: disable merchant'));
    assert.equal((await stored()).status, 'disabled');
    await submit(page, 'button:text("Enable merchant")');
    assert.match(page.url(), /\?ok=enabled$/);
    await reloadRepeatsNothing(page, async () => [
      await audits('console: enable merchant'),
      await audits('console: disable merchant'),
    ]);
    assert.equal((await stored()).status, 'active');

    // Rotate: the new secret once, then never again.
    const version = (await stored()).secretVersion;
    await submit(page, 'button:text("Rotate secret")');
    assert.equal(path(page), `${base}/secret`);
    const rotated = await page.inputValue('#client-secret');
    assert.equal((await stored()).clientSecret, rotated);
    assert.equal((await stored()).secretVersion, version + 1);
    await reloadRepeatsNothing(page, async () => [
      (await stored()).secretVersion,
      await audits('console: rotate merchant secret'),
    ]);
    assert.equal(await page.$('#client-secret'), null);
    assert.ok(!(await page.content()).includes(rotated));
    assert.match(await text(page, '#shown-once'), /was shown once/);
    merchant.clientSecret = rotated;

    // A portal link: shown once; a reload makes none and shows none; the link works.
    await page.goto(`${gw.url}${base}`);
    await submit(page, 'button:text("Create portal link")');
    assert.equal(path(page), `${base}/portal-link`);
    const link = await page.inputValue('#portal-link');
    assert.match(link, /\/console\/portal\/enter\?token=/);
    await reloadRepeatsNothing(page, () => audits('console: create portal link'));
    assert.equal(await audits('console: create portal link'), 1);
    assert.equal(await page.$('#portal-link'), null);
    assert.ok(!(await page.content()).includes(link.split('token=')[1] as string));
    assert.match(await text(page, '#shown-once'), /sign-in link was shown once/);
    assert.ok(await page.$('button:text("Create portal link")'), 'a new one is a button away');
    const portal = watch(await browser.context.newPage());
    await portal.goto(link);
    assert.ok(await portal.$('button:text("Continue to the portal")'), 'the link shown works');
    await portal.close();

    // Recover, from the merchant's page and from the notifications page.
    await page.goto(`${gw.url}${base}`);
    await page.fill('form[action$="/recover"] input[name=since]', '2026-01-01T00:00');
    await submit(page, 'form[action$="/recover"] button[type=submit]');
    assert.match(page.url(), /\/console\/notifications\?state=all&merchant=[^&]+&since=2026-01-01T00%3A00$/);
    assert.match(await text(page, '.flash.ok'), /^Nothing to recover: /);
    await reloadRepeatsNothing(page, () => audits('console: recover dead notifications'));
    await page.goto(`${gw.url}/console/notifications?merchant=${merchant.id}`);
    await page.fill('form[action="/console/notifications/recover"] input[name=since]', '2026-01-01T00:00');
    await submit(page, 'form[action="/console/notifications/recover"] button[type=submit]');
    assert.match(page.url(), /state=all&merchant=.*&since=/);
    await reloadRepeatsNothing(page, () => audits('console: recover dead notifications'));
    assert.equal(await audits('console: recover dead notifications'), 2);
    assert.deepEqual(alerts, []);
  });

  test('QRIS: pend, pay and replay redirect, a reload repeats nothing; paid, it offers no Pay, Pend or Fail; a stale Fail says why with the menu', async () => {
    const r = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'ROTI-1',
      amount: { value: '18000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    paidRef = r.body.referenceNo as string;
    const at = `${gw.url}/console/transactions/${paidRef}`;
    const changes = () => stateOf(paidRef);

    await page.goto(at);
    for (const label of ['Pay (00)', 'Pend (01, notify again)', 'Fail (06)']) {
      assert.ok(await page.$(`#sandbox button:text("${label}")`), `${label} is offered on an open QRIS`);
    }
    const stale = watch(await browser.context.newPage());
    await stale.goto(at);

    await submit(page, 'button:text("Pend (01, notify again)")');
    assert.match(page.url(), /\?ok=pending$/);
    await reloadRepeatsNothing(page, changes);
    assert.equal(await notificationsOf(paidRef), 1);

    await submit(page, 'button:text("Pay (00)")');
    assert.match(page.url(), /\?ok=paid$/);
    await reloadRepeatsNothing(page, changes);
    assert.equal((await historyOf(paidRef)).status, '00');
    assert.equal(await audits('console: sandbox qris pay'), 1);
    for (const label of ['Pay (00)', 'Pend (01, notify again)', 'Fail (06)']) {
      assert.equal(await page.$(`button:text("${label}")`), null, `${label} is not offered on a paid QRIS`);
    }
    assert.match(await text(page, '#sandbox-none'), new RegExp(`QRIS ${paidRef} is already paid\\.`));

    // The stale page still offers Fail: refused, said in words on the page it came from, with the menu.
    await submit(stale, 'button:text("Fail (06)")');
    assert.equal(new URL(stale.url()).pathname, `/console/transactions/${paidRef}`);
    assert.equal(await text(stale, '.flash.error'), `QRIS ${paidRef} is already paid: nothing was changed.`);
    assert.equal((await menuOf(stale)).current, 'Transactions');
    assert.match(await stale.title(), /^Transaction /);
    assert.equal(await text(stale, 'main h1'), `Transaction ${paidRef}`);
    await reloadRepeatsNothing(stale, changes);
    assert.equal(await stale.$('.flash.error'), null, 'said once');
    assert.equal((await historyOf(paidRef)).status, '00');
    assert.equal(await audits('console: sandbox qris fail'), 0, 'no row says it failed');
    assert.deepEqual(
      (await gw.store.listAudit({ limit: 1000 })).items
        .filter((a) => a.action === 'console: sandbox qris fail (refused)')
        .map((a) => [a.target, a.httpStatus]),
      [[paidRef, 409]],
      'the refusal is in the audit log, as refused (409)',
    );
    await stale.close();

    // Replay once its first delivery is done: a reload replays nothing.
    await waitFor('the payment delivered', async () =>
      (await gw.store.notificationsOf(paidRef)).every((n) => n.state === 'delivered'),
    );
    await page.goto(at);
    await submit(page, 'button:has-text("Replay notification")');
    assert.match(page.url(), /\?ok=replayed/);
    await waitFor('the replay delivered', async () =>
      (await gw.store.notificationsOf(paidRef)).every((n) => n.state === 'delivered'),
    );
    await reloadRepeatsNothing(page, async () => [
      await attemptsOf(paidRef),
      await audits('console: replay notification'),
    ]);
    assert.equal(await audits('console: replay notification'), 1);
    assert.deepEqual(alerts, []);
  });

  test('e-wallet: Approve redirects, a reload repeats nothing; paid, no Approve or Decline; a declined one says why', async () => {
    const caller = await authenticate(gw.url, merchant);
    const order = async (partnerReferenceNo: string) => {
      const r = await snapCall(gw.url, caller, '/api/snap/v1.0/debit/payment-host-to-host', {
        partnerReferenceNo,
        amount: { value: '21000.00', currency: 'IDR' },
        payOptionDetails: [
          { payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: { value: '21000.00', currency: 'IDR' } },
        ],
      });
      assert.equal(r.status, 200, r.text);
      return r.body.referenceNo as string;
    };
    const approved = await order('KOPI-EW-1');
    await page.goto(`${gw.url}/console/transactions/${approved}`);
    assert.ok(await page.$('#sandbox button:text("Decline (06)")'), 'Decline is offered on an open payment');
    await submit(page, 'button:text("Approve (00)")');
    assert.match(page.url(), /\?ok=paid$/);
    await reloadRepeatsNothing(page, () => stateOf(approved));
    assert.equal((await historyOf(approved)).status, '00');
    assert.equal(await audits('console: sandbox ewallet pay'), 1);
    for (const label of ['Approve (00)', 'Decline (06)']) {
      assert.equal(await page.$(`button:text("${label}")`), null, `${label} is not offered on a paid payment`);
    }
    // The summary names the wallet and the wallet's own reference of the payment.
    const summary = await text(page, '#h-summary + dl');
    assert.match(summary, /Wallet\s*SANDBOXPAY/);
    assert.match(summary, new RegExp(`Wallet reference\\s*SBW${approved}`));
    const declined = await order('KOPI-EW-2');
    await page.goto(`${gw.url}/console/transactions/${declined}`);
    await submit(page, 'button:text("Decline (06)")');
    assert.match(page.url(), /\?ok=failed$/);
    assert.deepEqual(
      [(await historyOf(declined)).status, (await gw.store.findTransaction(declined))?.statusDesc],
      ['06', 'Declined'],
    );
    assert.match(
      await text(page, '#sandbox-none'),
      new RegExp(`payment ${declined} .*can no longer be paid or failed`),
    );
  });

  test('VA: a wrong amount and a stale Pay VA say why in words; paying redirects, a reload pays nothing; paid, no Pay VA', async () => {
    const v = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'Budi',
      trxId: 'ROTI-VA-1',
      totalAmount: { value: '25000.00', currency: 'IDR' },
    });
    assert.equal(v.status, 200, v.text);
    const vaNo = v.body.virtualAccountData.virtualAccountNo as string;
    const ref = (await gw.store.findTransactionByVirtualAccountNo(vaNo))?.referenceNo as string;
    const at = `${gw.url}/console/transactions/${ref}`;
    const changes = async () => [await stateOf(ref), await audits('console: sandbox va pay')];
    await page.goto(at);
    const stale = watch(await browser.context.newPage());
    await stale.goto(at);

    await page.fill('#sandbox input[name=amount]', '5000.00');
    await submit(page, 'button:text("Pay VA")');
    assert.equal(path(page), `/console/transactions/${ref}`);
    assert.equal(
      await text(page, '.flash.error'),
      'The amount Rp 5.000,00 differs from the bill (Rp 25.000,00): nothing was paid. Leave the amount empty to pay the bill.',
    );
    assert.equal((await menuOf(page)).current, 'Transactions');
    await page.screenshot({ path: screenshotPath('sandbox-refused'), fullPage: true });
    await reloadRepeatsNothing(page, changes);
    assert.equal((await historyOf(ref)).status, '01');

    await submit(page, 'button:text("Pay VA")');
    assert.match(page.url(), /\?ok=paid$/);
    await reloadRepeatsNothing(page, changes);
    assert.equal((await historyOf(ref)).status, '00');
    assert.equal(await page.$('button:text("Pay VA")'), null, 'a paid VA is not offered for payment');

    await submit(stale, 'button:text("Pay VA")');
    assert.equal(new URL(stale.url()).pathname, `/console/transactions/${ref}`);
    assert.equal(
      await text(stale, '.flash.error'),
      `The VA ${vaNo.trim()} (${ref}) is already paid: nothing was changed.`,
    );
    assert.equal((await menuOf(stale)).current, 'Transactions');
    await stale.close();
    assert.equal((await gw.admin('GET', `/ledger/entries?referenceNo=${ref}&kind=payment`)).body.items.length, 1);
  });

  test('an open-amount VA: Pay VA asks for an amount (no bill to default to); 0.00 says why; an amount pays', async () => {
    const v = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'Sari',
      trxId: 'ROTI-VA-OPEN',
      virtualAccountTrxType: 'O',
    });
    assert.equal(v.status, 200, v.text);
    const vaNo = v.body.virtualAccountData.virtualAccountNo as string;
    const ref = (await gw.store.findTransactionByVirtualAccountNo(vaNo))?.referenceNo as string;
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    const amount = '#sandbox input[name=amount]';
    assert.equal(await page.getAttribute(amount, 'required'), '', 'the amount is required');
    assert.equal(await page.getAttribute(amount, 'placeholder'), null, 'no bill to suggest');
    const label = await text(page, '#sandbox label');
    assert.doesNotMatch(label, /empty: the bill/);
    assert.match(label, /any, above 0\.00/);
    // Left empty, the browser does not send it.
    assert.equal(await page.$eval(amount, (el) => (el as HTMLInputElement).validity.valueMissing), true);

    await page.fill(amount, '0.00');
    await submit(page, 'button:text("Pay VA")');
    assert.equal(path(page), `/console/transactions/${ref}`);
    assert.equal(await text(page, '.flash.error'), 'Nothing was paid: this VA takes any amount: type one above 0.00.');
    assert.equal((await historyOf(ref)).status, '01');
    await page.fill(amount, '7500.00');
    await submit(page, 'button:text("Pay VA")');
    assert.match(page.url(), /\?ok=paid$/);
    const paid = await historyOf(ref);
    assert.deepEqual([paid.status, paid.paidAmount?.value], ['00', '7500.00']);
  });

  test('portal: sign in, replay, settings, test callback, sign out; each redirects, a reload repeats nothing', async () => {
    const made = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const portal = watch(await browser.context.newPage());
    await portal.goto(made.body.url);
    await submit(portal, 'button:text("Continue to the portal")');
    assert.equal(path(portal), '/console/portal');
    await reloadRepeatsNothing(portal, () => audits('portal: sign in'));
    assert.equal(await audits('portal: sign in'), 1);

    await portal.goto(`${gw.url}/console/portal/transactions/${paidRef}`);
    await submit(portal, 'button:has-text("Replay notification")');
    assert.match(portal.url(), /\?ok=replayed/);
    await waitFor('the replay delivered', async () =>
      (await gw.store.notificationsOf(paidRef)).every((n) => n.state === 'delivered'),
    );
    await reloadRepeatsNothing(portal, async () => [
      await attemptsOf(paidRef),
      await audits('portal: replay notification'),
    ]);
    assert.equal(await audits('portal: replay notification'), 1);

    // A refused save: as typed, its problems, the portal's menu; a reload posts it again, refused again.
    await portal.goto(`${gw.url}/console/portal/settings`);
    await portal.fill('input[name=qrisCallbackUrl]', 'ftp://shop.example/qris');
    const refused = await submit(portal, 'main button:text("Save")');
    assert.equal(refused.final.status(), 400);
    assert.match(await text(portal, '#form-problems'), /Nothing was saved.*qrisCallbackUrl: must be an http\(s\) URL/s);
    assert.equal(await portal.inputValue('input[name=qrisCallbackUrl]'), 'ftp://shop.example/qris');
    assert.equal((await menuOf(portal)).current, 'Callback settings');
    assert.equal(((await portal.reload()) as Response).status(), 400);
    assert.equal((await gw.store.findMerchantById(merchant.id))?.qrisCallbackUrl, null);
    assert.equal(await audits('portal: edit callback URLs'), 0);

    await portal.fill('input[name=qrisCallbackUrl]', `${receiver.baseUrl}/qris`);
    await submit(portal, 'main button:text("Save")');
    assert.match(portal.url(), /\/console\/portal\/settings\?ok=saved$/);
    await reloadRepeatsNothing(portal, () => audits('portal: edit callback URLs'));
    assert.equal(await audits('portal: edit callback URLs'), 1);

    const received = receiver.received.length;
    await submit(portal, 'button:text("Send a test callback")');
    assert.match(portal.url(), /\/console\/portal\/deliveries\?ok=test-sent$/);
    await waitFor('the test callback', () => receiver.received.length > received);
    await waitFor('the test callback delivered', async () =>
      (await gw.store.notificationsOf(paidRef)).every((n) => n.state === 'delivered'),
    );
    await reloadRepeatsNothing(portal, async () => [await attemptsOf(paidRef), await audits('portal: test callback')]);
    assert.equal(await audits('portal: test callback'), 1);

    await submit(portal, 'header button:text("Log out")');
    assert.equal(path(portal), '/console/portal/signed-out');
    await reloadRepeatsNothing(portal, () => audits('portal: sign out'));
    assert.equal(await audits('portal: sign out'), 1);
    assert.match(await text(portal, 'main h1'), /Signed out/);
    await portal.close();
  });

  test('the favicon: linked from every page, served for a year, loads under the CSP; no page asked for a missing file', async () => {
    for (const p of [
      '/console/overview',
      '/console/merchants',
      '/console/books',
      '/console/sandbox',
      '/console/providers',
      '/console/no-such-page',
    ]) {
      await page.goto(`${gw.url}${p}`);
      opened.add(p);
    }
    // An error page keeps the menu while signed in: a page that does not exist, a record that does not.
    const missingPage = await page.goto(`${gw.url}/console/no-such-page`);
    assert.equal(missingPage?.status(), 404);
    assert.ok((await menuOf(page)).nav.includes('Merchants'), 'the menu stays');
    assert.match(await text(page, 'main h1'), /Not found/);
    assert.match(await text(page, 'main'), /there is no page \/console\/no-such-page/);
    const signedOut = await fetch(`${gw.url}/console/no-such-page`);
    assert.equal(signedOut.status, 404);
    assert.doesNotMatch(await signedOut.text(), /<nav aria-label="Main">/, 'signed out, no menu');
    const missingMerchant = await page.goto(`${gw.url}/console/merchants/no-such-merchant`);
    assert.equal(missingMerchant?.status(), 404);
    assert.equal((await menuOf(page)).current, 'Merchants');
    assert.match(await text(page, 'main h1'), /Not found/);
    const checked: string[] = [];
    const probe = watch(await browser.context.newPage());
    for (const p of opened) {
      if (p.startsWith('/console/portal/enter')) continue;
      await probe.goto(`${gw.url}${p}`);
      if (!new URL(probe.url()).pathname.startsWith('/console')) continue;
      assert.equal(await probe.getAttribute('link[rel=icon]', 'href'), FAVICON_PATH, p);
      // Loaded by the page itself, under its Content-Security-Policy.
      const width = await probe.evaluate(async (href) => {
        const img = new Image();
        img.src = href;
        await img.decode();
        return img.naturalWidth;
      }, FAVICON_PATH);
      assert.ok(width > 0, `the favicon loads on ${p}`);
      checked.push(p);
    }
    await probe.close();
    assert.ok(checked.length >= 15, checked.join(' '));
    const icon = await browser.context.request.get(`${gw.url}${FAVICON_PATH}`);
    assert.equal(icon.status(), 200);
    assert.equal(icon.headers()['content-type'], 'image/svg+xml');
    assert.equal(icon.headers()['cache-control'], 'public, max-age=31536000, immutable');
    assert.deepEqual(
      notFound.filter((u) => !/\/console\/(no-such-page|merchants\/no-such-merchant)$/.test(u)),
      [],
      'no page asked for something missing',
    );
  });

  test('log out redirects; a reload posts nothing', async () => {
    await page.goto(`${gw.url}/console/overview`);
    await submit(page, 'header button:text("Log out")');
    assert.equal(path(page), '/console/login');
    await reloadRepeatsNothing(page, () => audits('console: log out'));
    assert.equal(await audits('console: log out'), 1);
  });

  describe('a value shown once, across instances on one database', () => {
    let second: TestGateway;
    /** The second instance's clock: real time, moved on past the sealed value's five minutes when told. */
    let offsetMs = 0;
    before(async () => {
      second = await startGateway({
        store: new SqliteStore({ file: join(gw.dir, 'snapgate.db') }),
        clock: { now: () => Date.now() + offsetMs },
      });
    });
    after(async () => {
      await second?.close();
    });

    test('made on one instance, opened on another; never by another session, on another page, or after five minutes', async () => {
      const session = await signInByHand(gw.url);
      const newForm = await (await fetch(`${gw.url}/console/merchants/new`, { headers: { cookie: session } })).text();
      const made = await fetch(`${gw.url}/console/merchants`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session, origin: gw.url },
        body: new URLSearchParams({ _csrf: csrfIn(newForm), name: 'Toko Dua Pintu' }).toString(),
      });
      assert.equal(made.status, 303);
      const location = made.headers.get('location') as string;
      const id = /^\/console\/merchants\/([^/]+)\/created$/.exec(location)?.[1] as string;
      const secret = (await gw.store.findMerchantById(id))?.clientSecret as string;
      const once = cookieOf(made, 'snapgate_console_once') as string;
      assert.ok(once && !once.includes(secret));
      const open = async (cookie: string, at = location) =>
        (await (await fetch(`${second.url}${at}`, { headers: { cookie } })).text()).includes(secret);

      // Another session (the same key, logged in again) cannot open it; nor can another page.
      const other = await signInByHand(second.url);
      assert.equal(await open(`${other}; ${once}`), false, 'another session opens nothing');
      assert.equal(await open(`${session}; ${once}`, `/console/merchants/${id}/secret`), false, 'nor another page');

      const shown = await fetch(`${second.url}${location}`, { headers: { cookie: `${session}; ${once}` } });
      assert.equal(shown.status, 200);
      assert.ok((await shown.text()).includes(secret), 'the other instance opens it');
      assert.equal(shown.headers.get('cache-control'), 'no-store');
      const cleared = shown.headers.getSetCookie().find((c) => c.startsWith('snapgate_console_once='));
      assert.match(cleared ?? '', new RegExp(`^snapgate_console_once=; Path=${location}; Max-Age=0;`));
      // The browser that follows that answer holds no cookie any more: a reload shows nothing.
      assert.equal(await open(session), false, 'a reload in that browser shows nothing');

      // What "once" does not cover, as docs/console.md says: opening it writes nothing, so a copy of
      // the cookie sent again with the same session, within its five minutes, opens it again.
      assert.equal(await open(`${session}; ${once}`), true, 'a copy plus the session replays within 5 minutes');
      // Past those five minutes, the copy opens nothing, even with the session.
      offsetMs = ONCE_MAX_AGE_SEC * 1000 + 1000;
      assert.equal(await open(`${session}; ${once}`), false, 'expired after 5 minutes');
      assert.ok(await second.admin('GET', `/merchants/${id}`).then((r) => r.status === 200), 'the session still works');
      const page = await (
        await fetch(`${second.url}${location}`, { headers: { cookie: `${session}; ${once}` } })
      ).text();
      assert.match(page, /was shown once/);
    });
  });
});

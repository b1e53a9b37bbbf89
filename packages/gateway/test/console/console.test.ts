// The web console and the merchant portal, driven in Debian's Chromium (playwright-core). Without
// Chromium the tests skip with a message, except in CI (CI set), where they fail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { ACK, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

describe('web console in Chromium', browserSuite, () => {
  let gw: ConsoleGateway;
  let receiver: Receiver;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  const alerts: string[] = [];

  before(async () => {
    receiver = await startReceiver();
    gw = await startConsoleGateway({ dispatch: true });
    browser = await launchChromium();
    context = browser.context;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('dialog', (d) => {
      alerts.push(`${d.type()}: ${d.message()}`);
      void (d.type() === 'confirm' ? d.accept() : d.dismiss());
    });
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  const shot = (name: string) => page.screenshot({ path: screenshotPath(name), fullPage: true });
  const login = async (key = ADMIN_TOKEN) => {
    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', key);
    await page.click('main button[type=submit]');
  };
  let merchant: { id: string; clientKey: string; clientSecret: string; partnerId: string };
  let referenceNo: string;

  test('log in with an admin key; strict headers and an HttpOnly SameSite=Strict cookie', async () => {
    const r = await page.goto(`${gw.url}/console/login`);
    const csp = r?.headers()['content-security-policy'] ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    await shot('login');
    await page.fill('#key', 'not-a-key');
    await page.click('button[type=submit]');
    assert.match((await page.textContent('.flash')) ?? '', /not valid/);
    await login();
    assert.equal(new URL(page.url()).pathname, '/console/overview');
    const cookie = (await context.cookies(`${gw.url}/console/`)).find((c) => c.name === 'snapgate_console');
    assert.ok(cookie);
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.match((await page.textContent('h1')) ?? '', /Overview/);
  });

  test('create a merchant and copy its secret (shown once)', async () => {
    await page.goto(`${gw.url}/console/merchants/new`);
    await page.fill('input[name=name]', 'Toko Kopi Kenangan');
    await page.fill('input[name=callbackBaseUrl]', receiver.baseUrl);
    await page.click('main button[type=submit]');
    await page.waitForSelector('#client-secret');
    await shot('merchant-created');
    const secret = await page.inputValue('#client-secret');
    await page.click('button[data-copy=client-secret]');
    await page.waitForFunction(() => document.getElementById('client-secret-status')?.textContent === 'Copied');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, secret);
    const id = (await page.textContent('#merchant-id'))?.trim() ?? '';
    const m = await gw.store.findMerchantById(id);
    assert.ok(m);
    assert.equal(m.clientSecret, secret);
    merchant = { id, clientKey: m.clientKey, clientSecret: copied, partnerId: m.partnerId };
    const audit = await gw.store.listAudit({ limit: 10 });
    assert.ok(
      audit.items.some((a) => a.action === 'console: create merchant' && a.keyName && !a.request?.includes(secret)),
    );
    // Post/Redirect/Get: a reload creates no second merchant and does not show the secret again.
    const merchants = (await gw.store.listMerchants({ limit: 100 })).items.length;
    assert.equal((await page.reload())?.request().method(), 'GET');
    assert.equal((await gw.store.listMerchants({ limit: 100 })).items.length, merchants);
    assert.equal(await page.$('#client-secret'), null);
    assert.match((await page.textContent('#shown-once')) ?? '', /was shown once/);
    await page.goto(`${gw.url}/console/merchants?q=kenangan`);
    assert.match((await page.textContent('main')) ?? '', /Toko Kopi Kenangan/);
    await shot('merchants');
  });

  test('a QRIS made through the SNAP API appears; pay it from its page; its callback is delivered', async () => {
    const caller = await authenticate(gw.url, merchant);
    const r = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'ORDER-1001',
      amount: { value: '15000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    referenceNo = r.body.referenceNo;
    await page.goto(`${gw.url}/console/transactions`);
    assert.match((await page.textContent('main')) ?? '', /ORDER-1001/);
    assert.match((await page.textContent('main')) ?? '', /Rp 15\.000,00/);
    await shot('transactions');
    await page.click(`a:text("${referenceNo}")`);
    const qr = await page.$eval('.qr img', (img) => (img as HTMLImageElement).naturalWidth);
    assert.ok(qr > 0, 'the QR image loads');
    await page.click('button:text("Pay (00)")');
    await page.waitForSelector('.flash.ok');
    await waitFor('the callback at the receiver', () => receiver.received.some((x) => x.body.includes(referenceNo)));
    await waitFor('delivered on the page', async () => {
      await page.reload();
      return (await page.textContent('#h-notifications + article'))?.includes('delivered');
    });
    // Paid: the status machine takes no payment, pending or failure any more, so none is offered.
    for (const label of ['Pay (00)', 'Pend (01, notify again)', 'Fail (06)']) {
      assert.equal(await page.$(`button:text("${label}")`), null, label);
    }
    await page.click('details.attempt summary');
    assert.match((await page.textContent('details.attempt')) ?? '', /2002600/);
    await shot('transaction');
  });

  test('a failing merchant endpoint: the notification dies; replay from the page delivers it', async () => {
    receiver.set((_req, res) => {
      res
        .writeHead(500, { 'content-type': 'text/html' })
        .end('<img src=x onerror="alert(1)"><script>alert(2)</script>');
    });
    const caller = await authenticate(gw.url, merchant);
    const r = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'ORDER-1002',
      amount: { value: '25000.00', currency: 'IDR' },
    });
    const ref = r.body.referenceNo as string;
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    await page.click('button:text("Pay (00)")');
    await waitFor(
      'the notification dead',
      async () => (await gw.store.notificationsOf(ref)).some((n) => n.state === 'dead'),
      15_000,
    );
    await page.goto(`${gw.url}/console/notifications?state=dead`);
    assert.match((await page.textContent('main')) ?? '', new RegExp(ref));
    await shot('notifications');
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    for (const s of await page.$$('details.attempt summary')) await s.click();
    // The merchant's response body is shown as text, never run.
    assert.match((await page.textContent('pre.response-body')) ?? '', /<script>alert\(2\)<\/script>/);
    assert.equal(await page.$('main img[src=x]'), null);
    receiver.set((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
    });
    await page.click('button:has-text("Replay notification")');
    await page.waitForSelector('.flash.ok');
    await waitFor('delivered after replay', async () =>
      (await gw.store.notificationsOf(ref)).some((n) => n.state === 'delivered'),
    );
    const audit = await gw.store.listAudit({ limit: 20 });
    assert.ok(
      audit.items.some(
        (a) =>
          (a.action === 'console: replay notification' && a.keyName === 'bootstrap') ||
          a.action === 'console: replay notification',
      ),
    );
    assert.deepEqual(alerts, []);
  });

  test('stored XSS through a merchant name: shown as text, nothing runs', async () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(3)</script>';
    await gw.createMerchant({ name: evil });
    await page.goto(`${gw.url}/console/merchants`);
    assert.match((await page.textContent('main')) ?? '', /<script>alert\(3\)<\/script>/);
    assert.equal(await page.$('main img[src=x]'), null);
    assert.equal(await page.$('main script'), null);
    assert.deepEqual(alerts, []);
  });

  test('overview shows today, callbacks and the chart', async () => {
    await page.goto(`${gw.url}/console/overview`);
    assert.ok(Number(await page.textContent('#count-delivered')) >= 2);
    assert.ok(await page.$('svg.chart rect.ok'));
    await shot('overview');
  });

  test('a state-changing request without the CSRF token is refused', async () => {
    const cookie = (await context.cookies(`${gw.url}/console/`)).find((c) => c.name === 'snapgate_console');
    assert.ok(cookie);
    const n = (await gw.store.notificationsOf(referenceNo))[0];
    assert.ok(n);
    const forged = await fetch(`${gw.url}/console/notifications/${n.id}/replay`, {
      method: 'POST',
      headers: { cookie: `snapgate_console=${cookie.value}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    assert.equal(forged.status, 403);
    // From another site, token or not.
    const page2 = await context.newPage();
    await page2.goto(`${gw.url}/console/transactions/${referenceNo}`);
    const status = await page2.evaluate(async (id) => {
      const r = await fetch(`/console/notifications/${id}/replay`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '_csrf=forged',
      });
      return r.status;
    }, n.id);
    assert.equal(status, 403);
    await page2.close();
  });

  test('a read key can look but not change anything; revoking it ends its session at once', async () => {
    const made = await gw.admin('POST', '/admin-keys', { name: 'auditor', scope: 'read' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const p = await context.newPage();
    await context.clearCookies();
    await p.goto(`${gw.url}/console/login`);
    await p.fill('#key', made.body.key);
    await p.click('main button[type=submit]');
    await p.goto(`${gw.url}/console/transactions/${referenceNo}`);
    assert.equal(await p.$('button:has-text("Replay notification")'), null);
    assert.equal(await p.$('button:text("Pay (00)")'), null);
    const csrf = await p.inputValue('header input[name=_csrf]');
    const n = (await gw.store.notificationsOf(referenceNo))[0];
    const status = await p.evaluate(
      async ([id, token]) =>
        (
          await fetch(`/console/notifications/${id}/replay`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `_csrf=${encodeURIComponent(token as string)}`,
          })
        ).status,
      [n?.id, csrf],
    );
    assert.equal(status, 403);
    assert.equal((await gw.admin('POST', `/admin-keys/${made.body.id}/revoke`)).status < 300, true);
    await p.goto(`${gw.url}/console/overview`);
    assert.equal(new URL(p.url()).pathname, '/console/login');
    await p.close();
    await context.clearCookies();
    await login();
  });

  test('merchant portal: own transactions only, by URL and by forged request', async () => {
    const other = await gw.createMerchant({ name: 'Other Merchant', callbackBaseUrl: receiver.baseUrl });
    const oc = await authenticate(gw.url, other);
    const r = await snapCall(gw.url, oc, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'OTHER-1',
      amount: { value: '5000.00', currency: 'IDR' },
    });
    const otherRef = r.body.referenceNo as string;
    await gw.admin('POST', `/sandbox/qris/${otherRef}/pay`, {});
    await waitFor('other notified', async () => (await gw.store.notificationsOf(otherRef)).length > 0);
    const otherNotification = (await gw.store.notificationsOf(otherRef))[0];
    assert.ok(otherNotification);

    const link = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
    assert.equal(link.status, 201, JSON.stringify(link.body));
    assert.ok(link.body.expiresAt);
    const portal = await context.newPage();
    await portal.goto(link.body.url);
    await portal.click('button:text("Continue to the portal")');
    assert.equal(new URL(portal.url()).pathname, '/console/portal');
    const text = (await portal.textContent('main')) ?? '';
    assert.match(text, /ORDER-1001/);
    assert.doesNotMatch(text, /OTHER-1/);
    await portal.screenshot({ path: screenshotPath('portal'), fullPage: true });

    const byUrl = await portal.goto(`${gw.url}/console/portal/transactions/${otherRef}`);
    assert.equal(byUrl?.status(), 404);
    assert.doesNotMatch((await portal.textContent('main')) ?? '', /OTHER-1/);
    await portal.goto(`${gw.url}/console/portal`);
    const csrf = await portal.inputValue('header input[name=_csrf]');
    const forged = await portal.evaluate(
      async ([id, token]) =>
        Promise.all([
          fetch(`/console/portal/notifications/${id}/replay`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `_csrf=${encodeURIComponent(token as string)}`,
          }).then((x) => x.status),
          fetch('/console/portal/settings', {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `_csrf=${encodeURIComponent(token as string)}&merchantId=${id}&id=${id}`,
          }).then((x) => x.status),
        ]),
      [otherNotification.id, csrf],
    );
    assert.equal(forged[0], 404);
    const otherAfter = await gw.store.findNotification(otherNotification.id);
    assert.notEqual(otherAfter?.state, 'pending', "the other merchant's notification was not replayed");
    const otherMerchant = await gw.store.findMerchantById(other.id);
    assert.equal(otherMerchant?.callbackBaseUrl, receiver.baseUrl);

    // Replay its own, and a test callback.
    await portal.goto(`${gw.url}/console/portal/transactions/${referenceNo}`);
    const before = receiver.received.length;
    await portal.click('button:has-text("Replay notification")');
    await portal.waitForSelector('.flash.ok');
    await portal.goto(`${gw.url}/console/portal/settings`);
    await portal.screenshot({ path: screenshotPath('portal-settings'), fullPage: true });
    await portal.click('button:text("Send a test callback")');
    await portal.waitForSelector('.flash.ok');
    await waitFor('two more callbacks', () => receiver.received.length >= before + 2);

    // Disabling the merchant ends its portal session at once.
    await gw.admin('PATCH', `/merchants/${merchant.id}`, { status: 'disabled' });
    const ended = await portal.goto(`${gw.url}/console/portal`);
    assert.equal(ended?.status(), 401);
    await gw.admin('PATCH', `/merchants/${merchant.id}`, { status: 'active' });
    await portal.close();
  });

  test('logout ends the session, on the server too: a copied cookie is refused', async () => {
    await page.goto(`${gw.url}/console/overview`);
    const copied = (await context.cookies(`${gw.url}/console/`)).find((c) => c.name === 'snapgate_console');
    assert.ok(copied);
    await page.click('header button:text("Log out")');
    assert.equal(new URL(page.url()).pathname, '/console/login');
    await page.goto(`${gw.url}/console/overview`);
    assert.equal(new URL(page.url()).pathname, '/console/login');
    const replayed = await fetch(`${gw.url}/console/overview`, {
      headers: { cookie: `snapgate_console=${copied.value}` },
      redirect: 'manual',
    });
    assert.equal(replayed.status, 303);
    assert.equal(replayed.headers.get('location'), '/console/login');
    // The cookie holds no hash of the admin key, only a MAC of it.
    const payload = JSON.parse(Buffer.from(copied.value.split('.')[0] ?? '', 'base64url').toString('utf8'));
    assert.doesNotMatch(JSON.stringify(payload), /[0-9a-f]{64}/);
  });
});

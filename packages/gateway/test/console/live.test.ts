// Live feedback on a transaction's page, in Debian's Chromium (playwright-core) at 1366 px, against a
// real gateway and a real merchant receiver: a replay says what its attempt got (delivered, or failed
// with the HTTP status) without a reload; while a delivery is pending the notification cards update
// by themselves (console and portal), then the polling stops; Recover says how many it queued again
// and lands on a list that shows them; status history names providers, never their ids; without
// JavaScript the page is right after a reload. Without Chromium the tests skip, except in CI.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium, type TestChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN, type TestMerchant } from '../helpers/gateway.ts';
import { ACK, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

const acknowledge = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);

describe('live feedback on a transaction page', browserSuite, () => {
  let gw: ConsoleGateway;
  let receiver: Receiver;
  let browser: TestChromium;
  let context: BrowserContext;
  let page: Page;
  let merchant: TestMerchant;
  /** Every request for a page's live parts, by the page that made it. */
  const liveCalls = new Map<Page, number>();
  /** Main-frame navigations, by page: a page that updates by itself makes none. */
  const navigations = new Map<Page, number>();

  const watch = (p: Page) => {
    p.on('dialog', (d) => void d.accept());
    p.on('request', (r) => {
      if (/\/transactions\/[^/]+\/live(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search)) {
        liveCalls.set(p, (liveCalls.get(p) ?? 0) + 1);
      }
    });
    p.on('framenavigated', (f) => {
      if (f === p.mainFrame()) navigations.set(p, (navigations.get(p) ?? 0) + 1);
    });
    return p;
  };
  const signIn = async (c: BrowserContext) => {
    const p = watch(await c.newPage());
    await p.goto(`${gw.url}/console/login`);
    await p.fill('#key', ADMIN_TOKEN);
    await Promise.all([p.waitForNavigation(), p.click('main button[type=submit]')]);
    return p;
  };
  /** The receiver holds every callback until `release()`, then acknowledges them. */
  const hold = () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.set(async (_req, res) => {
      await held;
      acknowledge(res);
    });
    return release;
  };

  before(async () => {
    receiver = await startReceiver();
    gw = await startConsoleGateway({ dispatch: true });
    merchant = await gw.createMerchant({ name: 'Toko Langsung', callbackBaseUrl: receiver.baseUrl });
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
  const callbacksOf = (ref: string) => receiver.received.filter((x) => x.body.includes(ref)).length;
  const statesOf = async (ref: string) => (await gw.store.notificationsOf(ref)).map((n) => n.state);
  const submit = async (p: Page, selector: string) => {
    const [r] = await Promise.all([p.waitForNavigation(), p.click(selector)]);
    assert.ok(r, `${selector} leads somewhere`);
    return r;
  };
  /** Waits until the page's own script has put `pattern` into `selector` (no reload). */
  const waitForText = (p: Page, selector: string, pattern: RegExp) =>
    p.waitForFunction(
      ([sel, source]) => new RegExp(source as string).test(document.querySelector(sel as string)?.textContent ?? ''),
      [selector, pattern.source],
      { timeout: 15_000 },
    );

  let seq = 0;
  /** A QRIS of `m`, paid by the sandbox acquirer (its notification is then on its way). */
  const paidQris = async (m: TestMerchant = merchant) => {
    const r = await snapCall(gw.url, await authenticate(gw.url, m), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: `LANGSUNG-${++seq}`,
      amount: { value: '15000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    const ref = r.body.referenceNo as string;
    assert.equal((await gw.admin('POST', `/sandbox/qris/${ref}/pay`, { status: '00' })).status, 200);
    return ref;
  };

  test('replay says how its attempt went without a reload: delivered, then failed with the HTTP status', async () => {
    const ref = await paidQris();
    await waitFor('the payment delivered', async () => (await statesOf(ref)).every((s) => s === 'delivered'));
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    const id = (await gw.store.notificationsOf(ref))[0]?.id as string;

    const release = hold();
    await submit(page, `#replay-${id}`);
    const landed = navigations.get(page);
    assert.equal(new URL(page.url()).search, `?ok=replayed&watch=${id}&after=1`);
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'the page stays at its top, where the outcome is');
    assert.match(await text(page, '.flash.ok'), /queued for delivery again/);
    assert.equal(
      await text(page, '#live-outcome'),
      `Notification ${id} is queued again: waiting for its delivery attempt…`,
    );
    await page.evaluate(() => {
      (window as unknown as { outcome: Element | null }).outcome = document.getElementById('live-outcome');
    });
    release();
    await waitForText(
      page,
      '#live-outcome',
      new RegExp(
        `^Notification ${id} was delivered: attempt 2 answered HTTP 200 \\(acknowledged\\) at .* WIB, in \\d+ ms\\.$`,
      ),
    );
    assert.equal(navigations.get(page), landed, 'no reload');
    assert.equal(await page.getAttribute('#live-outcome', 'class'), 'flash ok');
    assert.ok(
      await page.evaluate(
        () => (window as unknown as { outcome: Element | null }).outcome === document.getElementById('live-outcome'),
      ),
      'the live region stays the same element (read out by screen readers)',
    );
    await page.waitForSelector(`#n-${id}-a2`);
    await page.waitForSelector('#notifications[data-live-active=false]');
    await page.screenshot({ path: screenshotPath('transaction-live'), fullPage: false });

    // Now the merchant's endpoint fails.
    receiver.set((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('maintenance <b>tonight</b>');
    });
    await submit(page, `#replay-${id}`);
    const again = navigations.get(page);
    await waitForText(
      page,
      '#live-outcome',
      new RegExp(
        `^Notification ${id} failed: attempt 3 answered HTTP 500, not acknowledged; it began “maintenance <b>tonight</b>”, at .* WIB, in \\d+ ms\\.`,
      ),
    );
    assert.equal(navigations.get(page), again, 'no reload');
    assert.equal(await page.getAttribute('#live-outcome', 'class'), 'flash error');
    assert.equal(await page.$('#live-outcome b'), null, 'the answer is shown as text');
    await page.waitForSelector(`#n-${id}-a3`);
    receiver.set((_req, res) => acknowledge(res));
  });

  test('a delivery pending when the page opens: the cards update by themselves, opened details stay open, then polling stops', async () => {
    const release = hold();
    const ref = await paidQris();
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    const opened = navigations.get(page);
    assert.equal(await page.getAttribute('#notifications', 'data-live-active'), 'true');
    assert.match(await text(page, '#live-note'), /updates by itself/);
    assert.equal(await page.$$eval('details.attempt', (d) => d.length), 0);
    const id = (await gw.store.notificationsOf(ref))[0]?.id as string;
    await page.click(`#n-${id}-body summary`);
    await waitFor('the callback at the receiver', () => callbacksOf(ref) > 0);
    release();
    await page.waitForSelector(`#n-${id} .badge.delivered`, { timeout: 15_000 });
    await page.waitForSelector('#notifications[data-live-active=false]');
    assert.equal(navigations.get(page), opened, 'no reload');
    assert.equal(await page.$$eval('details.attempt', (d) => d.length), 1);
    assert.equal(await page.getAttribute(`#n-${id}-body`, 'open'), '', 'what the reader opened stays open');
    assert.equal(await page.$('#live-note'), null);
    const calls = liveCalls.get(page) ?? 0;
    assert.ok(calls >= 1, 'it polled while the delivery was pending');

    // Nothing pending: the page asks for nothing more (at most the one tick already on its way).
    const other = await paidQris();
    await waitFor('delivered', async () => (await statesOf(other)).every((s) => s === 'delivered'));
    await page.goto(`${gw.url}/console/transactions/${other}`);
    assert.equal(await page.getAttribute('#notifications', 'data-live-active'), 'false');
    const quiet = liveCalls.get(page) ?? 0;
    assert.ok(quiet <= calls + 1);
    // Counted again at the end of this file, once other tests have taken their time.
    quietPage = { page, calls: quiet };
  });
  let quietPage: { page: Page; calls: number } | undefined;

  test('recover says how many it queued again ("Nothing to recover" for none) and lands on the list that shows them', async () => {
    const failing = await startReceiver((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
    });
    try {
      const m = await gw.createMerchant({ name: 'Toko Mati Suri', callbackBaseUrl: failing.baseUrl });
      const sinceMs = Date.now() - 3600_000;
      const since = new Date(sinceMs + 7 * 3600_000).toISOString().slice(0, 16);
      const recover = async (merchantId: string) => {
        await page.goto(`${gw.url}/console/notifications`);
        await page.selectOption('form[action="/console/notifications/recover"] select[name=merchantId]', merchantId);
        await page.fill('form[action="/console/notifications/recover"] input[name=since]', since);
        return submit(page, 'form[action="/console/notifications/recover"] button[type=submit]');
      };
      const landing = (id: string) =>
        `/console/notifications?${new URLSearchParams({ state: 'all', merchant: id, since })}`;

      await recover(m.id);
      assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, landing(m.id));
      assert.match(
        await text(page, '.flash.ok'),
        /^Nothing to recover: Toko Mati Suri has no dead notification created since .* WIB\.$/,
      );

      const refs = [await paidQris(m), await paidQris(m)];
      await waitFor(
        'both dead',
        async () => (await Promise.all(refs.map(statesOf))).flat().every((s) => s === 'dead'),
        15_000,
      );
      failing.set((_req, res) => acknowledge(res));
      await recover(m.id);
      assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, landing(m.id));
      assert.match(
        await text(page, '.flash.ok'),
        /^2 queued again: the dead notifications of Toko Mati Suri created since .* WIB are being delivered again\.$/,
      );
      assert.equal(await text(page, 'nav.tabs a[aria-current=page]'), 'all');
      const listed = await text(page, 'main table');
      for (const ref of refs) assert.match(listed, new RegExp(ref), 'the list shows what was recovered');
      await waitFor(
        'both delivered',
        async () => (await Promise.all(refs.map(statesOf))).flat().every((s) => s === 'delivered'),
        15_000,
      );
      const recovered = async () => [
        failing.received.length,
        (await gw.store.listAudit({ limit: 1000 })).items.filter(
          (a) => a.action === 'console: recover dead notifications',
        ).length,
      ];
      const was = await recovered();
      await page.reload();
      assert.deepEqual(await recovered(), was, 'a reload recovers nothing');
      assert.equal(await page.$('.flash'), null, 'and says nothing again');

      // From the merchant's page: nothing dead any more.
      await page.goto(`${gw.url}/console/merchants/${m.id}`);
      await page.fill('form[action$="/recover"] input[name=since]', since);
      await submit(page, 'form[action$="/recover"] button[type=submit]');
      assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, landing(m.id));
      assert.match(await text(page, '.flash.ok'), /^Nothing to recover: Toko Mati Suri/);
    } finally {
      await failing.close();
    }
  });

  test('status history: the operator reads the acquirer’s name, the merchant “the acquirer”; never an id, never “Success Success”', async () => {
    const ref = await paidQris();
    await waitFor('delivered', async () => (await statesOf(ref)).every((s) => s === 'delivered'));
    const acquirer = (await gw.admin('GET', '/providers')).body.items.find(
      (p: { kind: string; isSandbox?: boolean }) => p.kind === 'acquirer',
    );
    await page.goto(`${gw.url}/console/transactions/${ref}`);
    const history = await text(page, '#h-history + ol');
    assert.match(history, new RegExp(`notified by acquirer ${acquirer.name}`));
    assert.doesNotMatch(history, UUID);
    assert.equal(await text(page, '#txn-status'), '00 Success');
    assert.doesNotMatch(await text(page, 'main'), /Success Success/);
  });

  test('the portal: its transaction page updates its attempts by itself, says how a replay went, and names no provider', async () => {
    const made = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const portal = watch(await context.newPage());
    await portal.goto(made.body.url);
    await submit(portal, 'button:text("Continue to the portal")');

    const release = hold();
    const ref = await paidQris();
    await portal.goto(`${gw.url}/console/portal/transactions/${ref}`);
    const opened = navigations.get(portal);
    assert.equal(await portal.getAttribute('#notifications', 'data-live-active'), 'true');
    await waitFor('the callback at the receiver', () => callbacksOf(ref) > 0);
    release();
    const id = (await gw.store.notificationsOf(ref))[0]?.id as string;
    await portal.waitForSelector(`#n-${id} .badge.delivered`, { timeout: 15_000 });
    await portal.waitForSelector(`#n-${id}-a1`);
    assert.equal(navigations.get(portal), opened, 'no reload');
    const history = await text(portal, '#h-history + ol');
    assert.match(history, /notified by the acquirer/);
    assert.doesNotMatch(history, UUID, 'no provider id (the headers of attempts carry the merchant’s own ids)');
    assert.doesNotMatch(await text(portal, 'main'), /Success Success/);

    await submit(portal, `#replay-${id}`);
    const replayed = navigations.get(portal);
    assert.match(new URL(portal.url()).pathname, new RegExp(`/console/portal/transactions/${ref}$`));
    await waitForText(
      portal,
      '#live-outcome',
      new RegExp(`^Notification ${id} was delivered: attempt 2 answered HTTP 200`),
    );
    assert.equal(navigations.get(portal), replayed, 'no reload');
    await portal.close();
  });

  test('without JavaScript: a replay says it waits, and a reload shows how it went', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false });
    const p = await signIn(plain);
    const ref = await paidQris();
    await waitFor('delivered', async () => (await statesOf(ref)).every((s) => s === 'delivered'));
    const id = (await gw.store.notificationsOf(ref))[0]?.id as string;
    await p.goto(`${gw.url}/console/transactions/${ref}`);
    const release = hold();
    await submit(p, `#replay-${id}`);
    assert.equal(
      await text(p, '#live-outcome'),
      `Notification ${id} is queued again: waiting for its delivery attempt…`,
    );
    assert.match(await text(p, '#live-note'), /without, reload the page/);
    release();
    await waitFor('the replay delivered', async () => (await statesOf(ref)).every((s) => s === 'delivered'));
    await waitFor('its attempt recorded', async () => (await gw.store.attemptsOf(id)).length === 2);
    const attempts = async () => (await gw.store.attemptsOf(id)).length;
    const before = await attempts();
    await p.reload();
    assert.match(await text(p, '#live-outcome'), new RegExp(`^Notification ${id} was delivered: attempt 2`));
    assert.equal(await attempts(), before, 'the reload replays nothing');
    assert.equal(liveCalls.get(p) ?? 0, 0, 'no script, no polling');
    await plain.close();

    // The page left with nothing pending asked for nothing since (at most one tick was on its way).
    assert.ok(quietPage);
    assert.ok((liveCalls.get(quietPage.page) ?? 0) <= quietPage.calls + 1);
  });
});

// Signing in and out of the console and the portal, in Debian's Chromium (playwright-core): a
// sign-in lands on the page asked for while signed out (path and query), and nowhere else (every
// unsafe target falls back to the home page); log-out says what it ends, and ends it in every
// browser signed in with the same key or to the same portal; the log-in page shows the limit on
// failed log-ins and, once limited, when to try again. Without Chromium the browser tests skip with
// a message, except in CI (CI set), where they fail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { safeTarget } from '../../src/console/return-to.ts';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import type { TestMerchant } from '../helpers/gateway.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

/** Targets no sign-in may follow, whichever area: off this origin, disguised, or no page to land on. */
const UNSAFE_ANYWHERE = [
  'https://evil.example/console/overview',
  'http:/console/overview',
  '//evil.example/console/overview',
  '///evil.example/console',
  '/\\evil.example/console',
  '\\\\evil.example\\console',
  '/console/\\\\evil.example',
  '/console/%5c%5cevil.example',
  '/console/%2F%2Fevil.example',
  '/%2F%2Fevil.example/console/overview',
  '/console//evil.example',
  '/console/../admin/v1/merchants',
  '/console/./overview',
  '/console/%2e%2e/admin/v1/merchants',
  '/console/.%2e/admin/v1/merchants',
  '/console/portal/%2e%2e/overview',
  '/console/%252e%252e/admin',
  '/console/%zz',
  'javascript:alert(1)',
  '/admin/v1/merchants',
  '/healthz',
  '/consolex/overview',
  '/console-evil',
  '/console/overview#top',
  'console/overview',
  '',
];
/** Only in the unit test: a browser's form refuses control characters before they get this far. */
const UNSAFE_CHARACTERS = [
  ' /console/overview',
  '/console/overview\r\nSet-Cookie: x=1',
  '/console/over view',
  '/console/overview\u0000',
  '/console/é',
  `/console/transactions?q=${'x'.repeat(1000)}`,
];
const UNSAFE_FOR_OPERATOR = [
  ...UNSAFE_ANYWHERE,
  '/console/login',
  '/console/login?next=/console/merchants',
  '/console/logout',
  '/console/assets/console.js',
  '/console/portal',
  '/console/portal/settings',
];
const UNSAFE_FOR_PORTAL = [
  ...UNSAFE_ANYWHERE,
  '/console/overview',
  '/console/transactions?status=00',
  '/console/portalx',
  '/console/portal/enter?token=x',
  '/console/portal/logout',
  '/console/portal/signed-out',
];

describe('sign-in targets: only a page of the area signed in to', () => {
  test('safe targets are kept as they are', () => {
    for (const t of [
      '/console/transactions?status=00',
      '/console/merchants/m_1',
      '/console/transactions?q=inv%2077',
      '/console/transactions/VA%20123',
    ]) {
      assert.equal(safeTarget(t, 'operator'), t);
    }
    for (const t of ['/console/portal', '/console/portal/settlements?status=paid', '/console/portal/transactions/R1']) {
      assert.equal(safeTarget(t, 'portal'), t);
    }
  });
  test('every unsafe target is refused', () => {
    for (const t of [...UNSAFE_FOR_OPERATOR, ...UNSAFE_CHARACTERS]) {
      assert.equal(safeTarget(t, 'operator'), undefined, JSON.stringify(t));
    }
    for (const t of [...UNSAFE_FOR_PORTAL, ...UNSAFE_CHARACTERS.map((t) => t.replace('/console', '/console/portal'))]) {
      assert.equal(safeTarget(t, 'portal'), undefined, JSON.stringify(t));
    }
    for (const t of [undefined, null, 42, ['/console/overview']]) assert.equal(safeTarget(t, 'operator'), undefined);
  });
});

describe('signing in and out in Chromium', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  /** A second browser, with its own cookies. */
  let other: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let merchant: TestMerchant;
  /** A named operate key, as an operator would have. */
  let key: string;

  before(async () => {
    gw = await startConsoleGateway();
    [browser, other] = await Promise.all([launchChromium(), launchChromium()]);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    merchant = await gw.createMerchant({ name: 'Toko Batik Sekar' });
    const made = await gw.admin('POST', '/admin-keys', { name: 'night-shift', scope: 'operate' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    key = made.body.key;
  });
  after(async () => {
    await browser?.close();
    await other?.close();
    await gw?.close();
  });

  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const where = (p: Page) => {
    const u = new URL(p.url());
    return `${u.pathname}${u.search}`;
  };
  /** Submits the form of `selector`'s button and waits for the page it leads to. */
  const submit = async (p: Page, selector: string) => {
    const [r] = await Promise.all([p.waitForNavigation(), p.click(selector)]);
    return r;
  };
  const logIn = async (p: Page, k = key) => {
    await p.fill('#key', k);
    return submit(p, 'main button[type=submit]');
  };
  const portalLink = async () => {
    const link = await gw.admin('POST', `/merchants/${merchant.id}/portal-link`);
    assert.equal(link.status, 201, JSON.stringify(link.body));
    return link.body.url as string;
  };

  test('a signed-out visit to a deep page with a query logs in and lands there, even after a wrong key', async () => {
    await page.goto(`${gw.url}/console/transactions?status=00&kind=qris`);
    assert.equal(where(page), `/console/login?next=${encodeURIComponent('/console/transactions?status=00&kind=qris')}`);
    assert.equal(await page.inputValue('input[name=next]'), '/console/transactions?status=00&kind=qris');
    assert.match(await text(page, '#login-next'), /go back to \/console\/transactions\?status=00&kind=qris/);
    await logIn(page, 'not-a-key');
    assert.match(await text(page, '.flash'), /not valid/);
    assert.equal(await page.inputValue('input[name=next]'), '/console/transactions?status=00&kind=qris');
    await logIn(page);
    assert.equal(where(page), '/console/transactions?status=00&kind=qris');
    assert.equal(await page.inputValue('select[name=status]'), '00');
    // Signed out again, the plain log-in still lands on the overview.
    await browser.context.clearCookies();
    await page.goto(`${gw.url}/console/login`);
    await logIn(page);
    assert.equal(where(page), '/console/overview');
  });

  test('every unsafe operator target falls back to the overview, whether in the URL or forged in the form', async () => {
    for (const target of UNSAFE_FOR_OPERATOR) {
      await browser.context.clearCookies();
      await page.goto(`${gw.url}/console/login?next=${encodeURIComponent(target)}`);
      assert.equal(await page.inputValue('input[name=next]'), '', `${target} is not carried`);
      assert.equal(await page.$('#login-next'), null);
      // A forged form: the server checks the field again.
      await page.$eval('input[name=next]', (el, t) => el.setAttribute('value', t), target);
      await logIn(page);
      assert.equal(where(page), '/console/overview', `${JSON.stringify(target)} falls back`);
    }
  });

  test('the portal: a signed-out visit to a portal page, then the sign-in link, lands on that page', async () => {
    const p = await other.context.newPage();
    const asked = '/console/portal/settlements?status=paid';
    const r = await p.goto(`${gw.url}${asked}`);
    assert.equal(r?.status(), 401);
    assert.match(await text(p, 'main'), /brings you back to this page/);
    await p.goto(await portalLink());
    assert.match(await text(p, '#enter-next'), /go back to \/console\/portal\/settlements\?status=paid/);
    await submit(p, 'button:text("Continue to the portal")');
    assert.equal(where(p), asked);
    // Used once: the next sign-in goes to the portal's home.
    await other.context.clearCookies();
    await p.goto(await portalLink());
    assert.equal(await p.$('#enter-next'), null);
    await submit(p, 'button:text("Continue to the portal")');
    assert.equal(where(p), '/console/portal');
    // A link may name the page itself.
    await other.context.clearCookies();
    await p.goto(`${await portalLink()}&next=${encodeURIComponent('/console/portal/settings')}`);
    await submit(p, 'button:text("Continue to the portal")');
    assert.equal(where(p), '/console/portal/settings');
    await p.close();
  });

  test('every unsafe portal target falls back to the portal home', async () => {
    const p = await other.context.newPage();
    for (const target of UNSAFE_FOR_PORTAL) {
      await other.context.clearCookies();
      // A link signs in once: a new one for each sign-in.
      await p.goto(`${await portalLink()}&next=${encodeURIComponent(target)}`);
      assert.equal(await p.inputValue('input[name=next]'), '', `${target} is not carried`);
      await p.$eval('input[name=next]', (el, t) => el.setAttribute('value', t), target);
      await submit(p, 'button:text("Continue to the portal")');
      assert.equal(where(p), '/console/portal', `${JSON.stringify(target)} falls back`);
    }
    // A remembered target is signed: a cookie made up in the browser is ignored.
    await other.context.clearCookies();
    await other.context.addCookies([
      {
        name: 'snapgate_portal_next',
        value: `${Buffer.from('/console/portal/settings').toString('base64url')}.forged`,
        url: `${gw.url}/console`,
      },
    ]);
    await p.goto(await portalLink());
    assert.equal(await p.$('#enter-next'), null);
    await submit(p, 'button:text("Continue to the portal")');
    assert.equal(where(p), '/console/portal');
    await p.close();
  });

  test('log out says it ends every session of the key, and a second browser with the same key is signed out', async () => {
    const p = await other.context.newPage();
    await other.context.clearCookies();
    await browser.context.clearCookies();
    for (const b of [page, p]) {
      await b.goto(`${gw.url}/console/login`);
      await logIn(b);
      assert.equal(where(b), '/console/overview');
    }
    const note = await text(page, '#sign-out-note');
    assert.match(note, /every browser using the key night-shift/);
    assert.equal(await page.getAttribute('header button:text("Log out")', 'aria-describedby'), 'sign-out-note');
    await submit(page, 'header button:text("Log out")');
    assert.equal(where(page), '/console/login');
    assert.match(
      await text(page, '.flash'),
      /Logged out of the key night-shift: every browser that was signed in with it is signed out now/,
    );
    await page.screenshot({ path: screenshotPath('logged-out'), fullPage: true });
    // The other browser's session ended with it: its next page is the log-in page.
    await p.reload();
    await p.waitForURL((u) => u.pathname === '/console/login');
    assert.equal(where(p), '/console/login');
    await p.close();
  });

  test('portal sign-out says whose portal it ends, and the other browser in it is signed out too', async () => {
    await browser.context.clearCookies();
    await other.context.clearCookies();
    const a = await browser.context.newPage();
    const b = await other.context.newPage();
    for (const x of [a, b]) {
      await x.goto(await portalLink());
      await submit(x, 'button:text("Continue to the portal")');
      assert.equal(where(x), '/console/portal');
    }
    assert.match(await text(a, '#sign-out-note'), /every browser in the portal of Toko Batik Sekar/);
    await submit(a, 'header button:text("Log out")');
    assert.equal(where(a), '/console/portal/signed-out');
    assert.match(
      await text(a, '.flash'),
      /Signed out of the portal of Toko Batik Sekar: every browser that was signed in to it is signed out now/,
    );
    const r = await b.reload();
    assert.equal(r?.status(), 401);
    assert.match(await text(b, 'main h1'), /Please log in/);
    await a.close();
    await b.close();
  });
});

describe('the log-in limit in Chromium', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;

  before(async () => {
    gw = await startConsoleGateway({ env: { SNAPGATE_AUTH_FAILURE_LIMIT: '3' } });
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  test('the log-in page shows the limit; past it, the page says when to try again, as Retry-After does', async () => {
    await page.goto(`${gw.url}/console/merchants?q=kopi`);
    assert.match(
      await page.textContent('#login-limit').then((t) => t ?? ''),
      /At most 3 failed log-ins per minute from one address/,
    );
    for (let i = 0; i < 3; i++) {
      await page.fill('#key', `wrong-guess-${i}`);
      const [r] = await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
      assert.equal(r?.status(), 200);
      assert.match((await page.textContent('.flash')) ?? '', /not valid/);
    }
    await page.fill('#key', 'wrong-guess-3');
    const [posted] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/console/login'),
      page.click('main button[type=submit]'),
    ]);
    assert.equal(posted.status(), 429);
    const wait = Number(posted.headers()['retry-after']);
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    await page.waitForSelector('.flash.error');
    const said = (await page.textContent('.flash')) ?? '';
    assert.match(said, new RegExp(`try again in ${wait} seconds \\(at \\d\\d:\\d\\d:\\d\\d WIB\\)`));
    assert.equal(await page.inputValue('input[name=next]'), '/console/merchants?q=kopi', 'the target is kept');
    await page.screenshot({ path: screenshotPath('login-limited'), fullPage: true });
  });
});

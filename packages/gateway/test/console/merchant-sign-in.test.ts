// A merchant user in Debian's Chromium, on a phone (390 × 844): the operator's invitation link, a
// password (refused when common), two-factor sign-in turned on with a code computed here from the
// key the page shows, the dashboard, signing out, and signing in again with the password and the
// next code; a viewer's refused change. Over HTTP: test/merchants/merchant-users-suite.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { totpAt } from '../../src/secrets/totp.ts';
import { browserSuite, launchChromium, type TestChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import { inviteUser, PASSWORD } from '../helpers/merchant-user.ts';
import { type ConsoleGateway, startConsoleGateway } from './console-gateway.ts';

const PHONE = { width: 390, height: 844 };

/** Whether the page scrolls sideways. */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

describe('a merchant user signs in themselves (Chromium, phone)', browserSuite, () => {
  let gw: ConsoleGateway;
  let chromium: TestChromium;
  let merchantId: string;
  before(async () => {
    gw = await startConsoleGateway();
    merchantId = (await gw.createMerchant({ name: 'Warung Bu Siti', callbackBaseUrl: 'https://warung.example' })).id;
    chromium = await launchChromium({ viewport: PHONE });
  });
  after(async () => {
    await chromium?.close();
    await gw?.close();
  });

  test('takes the invitation, turns on two-factor sign-in, signs out and back in with a code', async () => {
    const invited = await inviteUser(gw, merchantId, 'siti@warung.example', 'owner');
    const page = await chromium.context.newPage();
    await page.goto(invited.invitationUrl);
    assert.match((await page.textContent('h1')) ?? '', /Welcome to Warung Bu Siti/);
    assert.equal(await page.textContent('#invited-email'), 'siti@warung.example');
    assert.equal(await scrollsSideways(page), false);

    // A common password is refused, the form shown again.
    await page.fill('#password', 'password1234');
    await page.fill('#again', 'password1234');
    await Promise.all([page.waitForURL(/\/merchant\/invitation\//), page.click('button[type=submit]')]);
    assert.match((await page.textContent('#password-problem')) ?? '', /too common/);

    await page.fill('#password', PASSWORD);
    await page.fill('#again', PASSWORD);
    await Promise.all([page.waitForURL(/\/merchant\/two-factor$/), page.click('button[type=submit]')]);
    await Promise.all([page.waitForURL(/\/merchant\/two-factor$/), page.click('#two-factor-start')]);
    assert.equal(await page.isVisible('#two-factor-qr svg'), true, 'a QR code for the app');
    const key = ((await page.textContent('#two-factor-key')) ?? '').replaceAll(' ', '');
    assert.match(key, /^[A-Z2-7]{32}$/);
    assert.equal(await scrollsSideways(page), false);
    await page.fill('#code', totpAt(key, Date.now()));
    await Promise.all([
      page.waitForURL(/\/merchant\/transactions$/),
      page.click('form[action="/merchant/two-factor"] button'),
    ]);
    assert.match((await page.textContent('.flash')) ?? '', /Two-factor sign-in is on/);
    assert.match((await page.textContent('header')) ?? '', /siti@warung\.example · Warung Bu Siti/);
    assert.equal(await scrollsSideways(page), false);

    // Signing out, then in: the password, then the app's next code (the one used is taken).
    await Promise.all([page.waitForURL(/\/merchant\/signed-out$/), page.click('header form button')]);
    await page.goto(`${gw.url}/merchant`);
    await page.fill('#email', 'siti@warung.example');
    await page.fill('#password', PASSWORD);
    await Promise.all([page.waitForURL(/\/merchant\/sign-in$/), page.click('button[type=submit]')]);
    await page.fill('#code', totpAt(key, Date.now() + 30_000));
    await Promise.all([page.waitForURL(/\/merchant\/transactions$/), page.click('button[type=submit]')]);
    assert.match((await page.textContent('h1')) ?? '', /Transactions/);
    await page.close();
  });

  test('lets an operator invite, give another role and disable a user in the console', async () => {
    const context = await chromium.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', ADMIN_TOKEN);
    await Promise.all([page.waitForURL(/\/console\/overview$/), page.click('main button[type=submit]')]);
    await page.goto(`${gw.url}/console/merchants/${merchantId}`);
    await Promise.all([page.waitForURL(/\/users$/), page.click('#merchant-users')]);
    await page.fill('input[name=email]', 'budi@warung.example');
    await page.selectOption('select[name=role]', 'developer');
    await Promise.all([page.waitForURL(/\/users\/invited$/), page.click('form[action$="/users"] button[type=submit]')]);
    const link = await page.inputValue('#invitation-link');
    assert.match(link, /\/merchant\/invitation\/[\w-]{43}$/);
    // Shown once: a reload shows it no more.
    await page.reload();
    assert.equal(await page.$('#invitation-link'), null);
    assert.match((await page.textContent('#shown-once')) ?? '', /was shown once/);
    // The link works for the person it was made for.
    assert.equal((await fetch(link)).status, 200);

    await page.goto(`${gw.url}/console/merchants/${merchantId}/users`);
    const row = (
      await page.$$eval('#users tbody tr', (rows) => rows.map((r) => ({ id: r.id, text: r.textContent ?? '' })))
    ).find((r) => r.text.includes('budi@warung.example'));
    assert.ok(row, 'listed');
    assert.match(row.text, /invited/);
    await page.selectOption(`#${row.id} select[name=role]`, 'viewer');
    await Promise.all([page.waitForURL(/\/users$/), page.click(`#${row.id} form[action$="/role"] button`)]);
    assert.match((await page.textContent('.flash')) ?? '', /budi@warung\.example is now viewer/);
    await Promise.all([page.waitForURL(/\/users$/), page.click(`#${row.id} form[action$="/disable"] button`)]);
    assert.match((await page.textContent(`#${row.id}`)) ?? '', /disabled/);
    assert.equal((await fetch(link)).status, 404, 'a disabled user’s link works no more');
    // A taken email is refused on the page, nothing made.
    await page.fill('input[name=email]', 'siti@warung.example');
    await Promise.all([page.waitForURL(/\/users$/), page.click('form[action$="/users"] button[type=submit]')]);
    assert.match((await page.textContent('.flash')) ?? '', /is a user already/);
    await context.close();
  });

  test('shows a viewer the settings, read-only, and refuses a change sent anyway', async () => {
    const invited = await inviteUser(gw, merchantId, 'lihat@warung.example', 'viewer');
    const page = await chromium.context.newPage();
    await page.goto(invited.invitationUrl);
    await page.fill('#password', PASSWORD);
    await page.fill('#again', PASSWORD);
    await Promise.all([page.waitForURL(/\/two-factor$/), page.click('button[type=submit]')]);
    await page.goto(`${gw.url}/merchant/settings`);
    assert.equal(await page.isDisabled('input[name=callbackBaseUrl]'), true, 'read-only');
    assert.equal(await page.$('form[action="/merchant/settings"] button'), null, 'no Save');
    assert.equal(await page.$('form[action="/merchant/test-callback"]'), null, 'no test callback');
    assert.match((await page.textContent('#settings-not-yours')) ?? '', /A developer or an owner/);
    // Sent anyway (the form submitted by a script): refused.
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/merchant/settings')),
      page.$eval('form[action="/merchant/settings"]', (f) => (f as HTMLFormElement).submit()),
    ]);
    assert.equal(answer.status(), 403);
    assert.match((await page.textContent('main')) ?? '', /your role \(viewer\) may not do this/);
    await page.close();
  });
});

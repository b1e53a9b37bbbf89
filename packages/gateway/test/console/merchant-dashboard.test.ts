// The merchant dashboard in Debian's Chromium, on a phone (390 × 844), issue 43's whole walk: the
// operator invites an owner, who sets a password and turns on two-factor sign-in with a code
// computed here, makes a payment link, pays it in the sandbox from the phone (the link's page, then
// the ordinary checkout page), sees the payment's fee and net, refunds part of it (the amount typed,
// then confirmed), and sees the refund's callback delivered to the merchant's real receiver, naming
// the link. Every page of the dashboard's menu, a transaction's, a link's and a settlement's fits
// the phone's width. Over HTTP on both stores: test/merchants/merchant-dashboard-suite.ts and
// test/payments/payment-links-suite.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { totpAt } from '../../src/secrets/totp.ts';
import { browserSuite, launchChromium, sidewaysScroll, type TestChromium } from '../helpers/chromium.ts';
import { inviteUser, PASSWORD } from '../helpers/merchant-user.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { type ConsoleGateway, screenshotPath, startConsoleGateway } from './console-gateway.ts';

const PHONE = { width: 390, height: 844 };

describe('the merchant dashboard on a phone (Chromium)', browserSuite, () => {
  let gw: ConsoleGateway;
  let receiver: Receiver;
  let chromium: TestChromium;
  let page: Page;
  let merchantId: string;
  let paidRef: string;

  /** The callbacks the receiver got for a payment, as {status, refunded}. */
  const callbacksOf = (ref: string) =>
    receiver.received
      .map((r) => JSON.parse(r.body) as Record<string, unknown>)
      .filter((b) => b.originalReferenceNo === ref);

  before(async () => {
    receiver = await startReceiver();
    gw = await startConsoleGateway({ dispatch: true });
    const merchant = await gw.createMerchant({
      name: 'Kedai Kopi Nusantara Sejahtera Bersama Selamanya',
      callbackBaseUrl: receiver.baseUrl,
      fees: { qris: { percent: '0.70' } },
    });
    merchantId = merchant.id;
    const q = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'ORDER-DASHBOARD-000000000001',
      amount: { value: '40000.00', currency: 'IDR' },
    });
    assert.equal(q.status, 200, q.text);
    paidRef = q.body.referenceNo as string;
    assert.equal((await gw.admin('POST', `/sandbox/qris/${paidRef}/pay`, { status: '00' })).status, 200);
    await waitFor('the payment delivered', () => callbacksOf(paidRef).length > 0);
    assert.ok((await gw.admin('POST', '/settlements', { merchantId })).status < 300);
    chromium = await launchChromium({ viewport: PHONE });
    page = await chromium.context.newPage();
    page.on('dialog', (d) => void d.accept());
  });
  after(async () => {
    await chromium?.close();
    await gw?.close();
    await receiver?.close();
  });

  test('an owner signs in with a password and a code, and sees each payment’s fee and net', async () => {
    const invited = await inviteUser(gw, merchantId, 'pemilik@kedai.example', 'owner');
    await page.goto(invited.invitationUrl);
    await page.fill('#password', PASSWORD);
    await page.fill('#again', PASSWORD);
    await Promise.all([page.waitForURL(/\/merchant\/two-factor$/), page.click('button[type=submit]')]);
    await Promise.all([page.waitForURL(/\/merchant\/two-factor$/), page.click('#two-factor-start')]);
    const key = ((await page.textContent('#two-factor-key')) ?? '').replaceAll(' ', '');
    await page.fill('#code', totpAt(key, Date.now()));
    await Promise.all([
      page.waitForURL(/\/merchant\/transactions$/),
      page.click('form[action="/merchant/two-factor"] button'),
    ]);
    const row = `tr[data-reference="${paidRef}"]`;
    assert.equal(await page.textContent(`${row} td[data-label="Fee"]`), 'Rp 280,00');
    assert.equal(await page.textContent(`${row} td[data-label="Net"]`), 'Rp 39.720,00');
    await page.screenshot({ path: screenshotPath('dashboard-phone'), fullPage: true });
  });

  let linkRef = '';
  let linkId = '';

  test('makes a payment link, and a payer pays it in the sandbox from a phone', async () => {
    await page.goto(`${gw.url}/merchant/links`);
    await page.fill('#link-form input[name=description]', 'Kopi susu gula aren, 2 liter');
    await page.fill('#link-form input[name=amount]', '40000');
    await Promise.all([page.waitForURL(/\/merchant\/links\/pl_[\w-]+$/), page.click('#link-form button[type=submit]')]);
    assert.match((await page.textContent('.flash')) ?? '', /The link is made/);
    const url = await page.inputValue('#link-url');
    linkId = url.split('/l/')[1] ?? '';
    assert.equal(url, `${gw.url}/l/${linkId}`);
    assert.deepEqual(await sidewaysScroll(page), []);

    // The payer, on another phone: the link's page, a method, the checkout page, the sandbox's Pay.
    const payer = await chromium.context.browser()?.newContext({ viewport: PHONE });
    assert.ok(payer);
    const p = await payer.newPage();
    await p.goto(url);
    assert.equal(await p.textContent('#link-description'), 'Kopi susu gula aren, 2 liter');
    assert.equal(await p.textContent('#link-amount'), 'Rp 40.000');
    assert.deepEqual(await sidewaysScroll(p), []);
    await p.check('input[name=method][value=qris]');
    await Promise.all([p.waitForURL(/\/pay\/[^/]+\?lang=(id|en)$/), p.click('#link-pay')]);
    await Promise.all([p.waitForURL(/\/pay\//), p.click('#sandbox-pay')]);
    await payer.close();

    // The merchant sees the payment under the link, with its fee and net.
    const paid = await waitFor('the link’s payment paid', async () => {
      const l = (await gw.admin('GET', `/merchants/${merchantId}/links/${linkId}`)).body;
      return l.payments.find((x: { status: string }) => x.status === '00')?.referenceNo as string | undefined;
    });
    linkRef = paid;
    await page.reload();
    assert.match((await page.textContent('#link-payments')) ?? '', new RegExp(linkRef));
    await page.goto(`${gw.url}/merchant/transactions?ref=${linkRef}`);
    const row = `tr[data-reference="${linkRef}"]`;
    assert.equal(await page.textContent(`${row} td[data-label="Fee"]`), 'Rp 280,00');
    assert.equal(await page.textContent(`${row} td[data-label="Net"]`), 'Rp 39.720,00');
  });

  test('refunds part of the payment after a confirmation, and its callback is delivered', async () => {
    await page.goto(`${gw.url}/merchant/transactions/${linkRef}`);
    assert.equal(await page.inputValue('#refund-form input[name=refundAmount]'), '', 'not filled in');
    await page.fill('#refund-form input[name=refundAmount]', '15000.00');
    await page.fill('#refund-form input[name=reason]', 'salah pesan');
    await Promise.all([page.waitForURL(/\/refund$/), page.click('#refund-form button[type=submit]')]);
    assert.equal(await page.textContent('#confirm-amount'), 'Rp 15.000,00');
    assert.equal(await page.textContent('#confirm-after'), 'Rp 25.000,00');
    assert.deepEqual(await sidewaysScroll(page), []);
    await Promise.all([
      page.waitForURL(new RegExp(`/merchant/transactions/${linkRef}$`)),
      page.click('#confirm-refund'),
    ]);
    assert.match(
      (await page.textContent('.flash')) ?? '',
      /Refunded Rp 15\.000,00 .* Rp 25\.000,00 remains refundable/,
    );
    assert.equal(await page.textContent('#txn-refunded'), 'Rp 15.000,00');
    // The refund's callback: SNAP's refund status of the payment, naming the link, delivered.
    const refund = await waitFor('the refund’s callback', () =>
      callbacksOf(linkRef).find((b) => JSON.stringify(b).includes('15000.00')),
    );
    assert.equal((refund.additionalInfo as { paymentLinkId?: string }).paymentLinkId, linkId);
    await waitFor('its delivery recorded', async () =>
      (await gw.store.notificationsOf(linkRef)).every((n) => n.state === 'delivered'),
    );
    await page.goto(`${gw.url}/merchant/deliveries`);
    assert.equal((await page.locator(`main a[href*="${linkRef}"]`).count()) >= 2, true, 'both deliveries listed');
  });

  test('rotates the client secret (shown once) and invites a user, on the phone', async () => {
    await page.goto(`${gw.url}/merchant/client-secret`);
    await page.selectOption('#rotate-form select[name=overlapSec]', '3600');
    await Promise.all([page.waitForURL(/\/merchant\/client-secret\/new$/), page.click('#rotate')]);
    const secret = await page.inputValue('#client-secret');
    assert.ok(secret.length >= 32, 'the new secret is shown');
    assert.deepEqual(await sidewaysScroll(page), []);
    await page.reload();
    assert.match((await page.textContent('#shown-once')) ?? '', /was shown once/);
    await page.goto(`${gw.url}/merchant/users`);
    await page.fill('form[action="/merchant/users"] input[name=email]', 'kasir@kedai.example');
    await page.selectOption('form[action="/merchant/users"] select[name=role]', 'finance');
    await Promise.all([
      page.waitForURL(/\/merchant\/users\/invited$/),
      page.click('form[action="/merchant/users"] button'),
    ]);
    assert.match(await page.inputValue('#invitation-link'), /\/merchant\/invitation\/[\w-]{43}$/);
    await page.goto(`${gw.url}/merchant/users`);
    assert.match((await page.textContent('#users')) ?? '', /kasir@kedai\.example[\s\S]*invited/);
    assert.deepEqual(await sidewaysScroll(page), []);
  });

  test('refuses a form whose CSRF token is not the session’s', async () => {
    await page.goto(`${gw.url}/merchant/settings`);
    await page.$eval('form[action="/merchant/settings"] input[name=_csrf]', (i) => {
      (i as HTMLInputElement).value = 'forged';
    });
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/merchant/settings')),
      page.click('form[action="/merchant/settings"] button[type=submit]'),
    ]);
    assert.equal(answer.status(), 403);
    const after = (await gw.admin('GET', `/merchants/${merchantId}`)).body;
    assert.equal(after.callbackBaseUrl, receiver.baseUrl, 'nothing changed');
  });

  test('no page of the dashboard scrolls sideways at 390 px', async () => {
    await page.goto(`${gw.url}/merchant/transactions`);
    const paths = await page.$$eval('header nav a', (as) =>
      as.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
    );
    assert.deepEqual(paths, [
      '/merchant/transactions',
      '/merchant/links',
      '/merchant/settlements',
      '/merchant/payouts',
      '/merchant/deliveries',
      '/merchant/settings',
      '/merchant/client-secret',
      '/merchant/users',
      '/merchant/two-factor',
    ]);
    const [settlement] = (await gw.admin('GET', `/settlements?merchantId=${merchantId}&limit=1`)).body.items as Array<{
      id: string;
    }>;
    assert.ok(settlement);
    paths.push(
      `/merchant/transactions/${paidRef}`,
      `/merchant/settlements/${settlement.id}`,
      `/merchant/links/${linkId}`,
    );
    const problems: string[] = [];
    for (const path of paths) {
      const r = await page.goto(`${gw.url}${path}`);
      assert.equal(r?.status(), 200, path);
      for (const p of await sidewaysScroll(page)) problems.push(`${path}: ${p}`);
    }
    assert.deepEqual(problems, []);
  });
});

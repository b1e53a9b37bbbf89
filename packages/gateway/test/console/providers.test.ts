// Providers in the console, in Debian's Chromium (playwright-core) at 1366 px: a new provider made
// through the form, its client secret shown once and gone on reload, then taking a B2B token with
// it; every rule of the new and the edit form refused at 400 (409 for what clashes) with what was
// typed (never a secret); outbound settings edited with their secrets kept; disable and enable,
// each confirmed; a secret rotated, the old one refused by the token endpoint; a reload of every
// result page repeats nothing, counted through the admin API; a read key sees no form and is
// refused (403) when it posts anyway. Without Chromium the tests skip with a message, except in CI.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Page, Response } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';
import { postToken } from '../helpers/snap.ts';
import { type ConsoleGateway, postForm, screenshotPath, signInByHand, startConsoleGateway } from './console-gateway.ts';

const rsa = (modulusLength: number) =>
  generateKeyPairSync('rsa', {
    modulusLength,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
const keys = rsa(2048);
const OUT_SECRET = 'outbound-secret-at-the-acquirer-7f3a';
/** An acquirer's outbound settings as the admin API takes them (an IP literal: nothing is resolved). */
const OUTBOUND = {
  baseUrl: 'http://127.0.0.1:9',
  clientKey: 'snapgate-at-acquirer',
  clientSecret: OUT_SECRET,
  privateKeyPem: keys.privateKey,
  partnerId: 'SNAPGATE01',
};
/** A line of the private key's body: found in a page, the key leaked. */
const PRIVATE_LINE = keys.privateKey.split('\n')[3] as string;

interface Provider {
  id: string;
  name: string;
  kind: string;
  bankCode: string;
  clientKey: string;
  status: string;
  secretVersion: number;
  updatedAt: string;
  publicKeyPem: string | null;
  acquiresGatewayQris: boolean;
  outbound: null | Record<string, unknown>;
}

describe('console: providers', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  /** The answer to the next confirmation (data-confirm): accepted unless a test says otherwise. */
  let confirmAnswer = true;
  const confirms: string[] = [];
  const alerts: string[] = [];
  /** The bank made through the form, and its credentials. */
  const bank = { id: '', clientKey: '', clientSecret: '' };

  before(async () => {
    gw = await startConsoleGateway();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize({ width: 1366, height: 900 });
    page.on('dialog', (d) => {
      if (d.type() !== 'confirm') {
        alerts.push(`${d.type()}: ${d.message()}`);
        return void d.dismiss();
      }
      confirms.push(d.message());
      return void (confirmAnswer ? d.accept() : d.dismiss());
    });
    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', ADMIN_TOKEN);
    await Promise.all([page.waitForNavigation(), page.click('main button[type=submit]')]);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  /** Polls until `ok` holds (never a fixed sleep). */
  const until = async (what: string, ok: () => Promise<boolean>, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await ok())) {
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
      await new Promise((r) => setImmediate(r));
    }
  };
  const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();
  const path = () => new URL(page.url()).pathname;
  const provider = async (id: string): Promise<Provider> => {
    const r = await gw.admin('GET', `/providers/${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as Provider;
  };
  const providerCount = async () => (await gw.admin('GET', '/providers?limit=500')).body.items.length as number;
  const auditRows = async (action: string) =>
    ((await gw.admin('GET', '/audit?limit=500')).body.items as Array<Record<string, any>>).filter(
      (a) => a.action === action,
    );
  const audits = async (action: string) => (await auditRows(action)).length;
  const adminCreate = async (body: Record<string, unknown>) => {
    const r = await gw.admin('POST', '/providers', body);
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body as Provider & { clientSecret: string };
  };
  const token = (clientKey: string, clientSecret: string) => postToken(gw.url, { clientKey, clientSecret });
  /** Clicks what submits a form; the page the browser ends on, and the POST it came from. */
  const submit = async (selector: string) => {
    const [r] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
    assert.ok(r, `${selector} leads somewhere`);
    return { final: r, posted: r.request().redirectedFrom() };
  };
  /** Reloads the page: a GET (Post/Redirect/Get) after which `counts` sees nothing more. */
  const reloadRepeatsNothing = async (counts: () => Promise<unknown>) => {
    const was = await counts();
    const r = (await page.reload()) as Response;
    assert.equal(r.request().method(), 'GET', `a reload of ${path()} posts nothing`);
    assert.equal(r.status(), 200);
    assert.deepEqual(await counts(), was, `a reload of ${path()} changed something`);
    return r;
  };
  /**
   * Fills a form as typed, past the browser's own checks (required, pattern, maxlength: the server
   * must refuse what they would have stopped), a select given a value it does not offer if need be.
   */
  const fill = async (form: string, fields: Record<string, string>) => {
    await page.$eval(
      form,
      (f, values) => {
        (f as HTMLFormElement).noValidate = true;
        for (const el of f.querySelectorAll('[maxlength]')) el.removeAttribute('maxlength');
        for (const [name, value] of Object.entries(values)) {
          const select = f.querySelector(`select[name="${name}"]`) as HTMLSelectElement | null;
          if (select && ![...select.options].some((o) => o.value === value)) select.add(new Option(value, value));
        }
      },
      fields,
    );
    for (const [name, value] of Object.entries(fields)) {
      const field = page.locator(`${form} [name="${name}"]`);
      if ((await field.evaluate((e) => e.tagName)) === 'SELECT') await field.selectOption(value);
      else if ((await field.getAttribute('type')) === 'checkbox') await field.setChecked(value === 'yes');
      else await field.fill(value);
    }
  };
  const SECRET_FIELDS = ['outbound.clientSecret', 'outbound.privateKeyPem'];
  /** A refused form: its status, its problems, what was typed kept (its secrets not), nothing changed. */
  const refusedAsTyped = async (
    form: string,
    fields: Record<string, string>,
    status: number,
    problem: RegExp,
    unchanged: () => Promise<unknown>,
  ) => {
    const was = await unchanged();
    const { final } = await submit(`${form} button[type=submit]`);
    const label = `${JSON.stringify(fields).slice(0, 200)}`;
    assert.equal(final.status(), status, label);
    assert.equal(final.request().method(), 'POST', 'nothing changed: the form is shown again');
    assert.match(await text('#form-problems'), problem, label);
    for (const [name, value] of Object.entries(fields)) {
      const field = page.locator(`${form} [name="${name}"]`);
      const tag = await field.evaluate((e) => e.tagName);
      if (SECRET_FIELDS.includes(name)) {
        assert.equal(await field.inputValue(), '', `${name} is not written back`);
        if (value.length > 8) assert.ok(!(await page.content()).includes(value), `${name} is not in the page`);
      } else if (tag !== 'SELECT' && (await field.getAttribute('type')) !== 'checkbox') {
        assert.equal(await field.inputValue(), value, `${name} as typed: ${label}`);
      }
    }
    assert.equal(await page.getAttribute('header nav a[aria-current=page]', 'href'), '/console/providers');
    assert.deepEqual(await unchanged(), was, `nothing changed: ${label}`);
  };

  test('a new bank through the form: its secret is shown once, gone on reload; it then takes a B2B token with it', async () => {
    await page.goto(`${gw.url}/console/providers`);
    const count = await providerCount();
    await submit('a:text("New provider")');
    assert.equal(path(), '/console/providers/new');
    await page.fill('#provider-form input[name=name]', 'Bank Satu');
    await page.selectOption('#provider-form select[name=kind]', 'bank');
    await page.fill('#provider-form input[name=bankCode]', '014');
    const { posted } = await submit('#provider-form button[type=submit]');
    assert.equal(posted?.method(), 'POST');
    bank.id = await text('#provider-id');
    assert.equal(path(), `/console/providers/${bank.id}/created`);
    bank.clientKey = await text('#client-key');
    bank.clientSecret = await page.inputValue('#client-secret');
    assert.match(await text('#shown-once'), /shown this once/);
    assert.equal(await providerCount(), count + 1);
    assert.ok(!page.url().includes(bank.clientSecret));
    await page.screenshot({ path: screenshotPath('providers-created'), fullPage: true });

    await reloadRepeatsNothing(async () => [await providerCount(), await audits('console: create provider')]);
    assert.equal(await audits('console: create provider'), 1);
    assert.equal(await page.$('#client-secret'), null, 'the secret is not shown again');
    assert.ok(!(await page.content()).includes(bank.clientSecret));
    assert.match(await text('#shown-once'), /was shown once.*rotate the secret/s);
    await page.goto(`${gw.url}/console/providers/${bank.id}/created`);
    assert.equal(await page.$('#client-secret'), null, 'nor later');

    const shown = await provider(bank.id);
    assert.deepEqual(
      [shown.name, shown.kind, shown.bankCode, shown.clientKey, shown.status, shown.outbound],
      ['Bank Satu', 'bank', '014', bank.clientKey, 'active', null],
    );
    const t = await token(bank.clientKey, bank.clientSecret);
    assert.equal(t.status, 200, t.text);
    assert.ok(t.body.accessToken, 'the secret shown works');
    // Never in the audit log or the gateway's log.
    const rows = await gw.admin('GET', '/audit?limit=500');
    assert.ok(!JSON.stringify(rows.body).includes(bank.clientSecret));
    assert.ok(!gw.logs.some((l) => l.includes(bank.clientSecret)));
  });

  test('a new acquirer with outbound settings and keys: shown without a secret, its outbound secret kept sealed', async () => {
    await page.goto(`${gw.url}/console/providers/new`);
    await fill('#provider-form', {
      name: 'Acquirer Nusantara',
      kind: 'acquirer',
      bankCode: '936',
      publicKeyPem: keys.publicKey,
      'outbound.baseUrl': OUTBOUND.baseUrl,
      'outbound.clientKey': OUTBOUND.clientKey,
      'outbound.clientSecret': OUT_SECRET,
      'outbound.partnerId': OUTBOUND.partnerId,
      'outbound.privateKeyPem': keys.privateKey,
    });
    await submit('#provider-form button[type=submit]');
    const id = await text('#provider-id');
    assert.match(await text('#shown-once'), /shown this once/);
    const shown = await provider(id);
    assert.equal(shown.publicKeyPem, keys.publicKey);
    assert.deepEqual(shown.outbound, {
      baseUrl: OUTBOUND.baseUrl,
      clientKey: OUTBOUND.clientKey,
      partnerId: OUTBOUND.partnerId,
      channelId: '95221',
      tokenPath: '/api/snap/v1.0/access-token/b2b',
      pathPrefix: '/api/snap/v1.0',
      hasPrivateKey: true,
    });
    const stored = await gw.store.findProviderById(id);
    assert.equal(stored?.outbound?.clientSecret, OUT_SECRET);
    assert.equal(stored?.outbound?.privateKeyPem, keys.privateKey);

    await page.goto(`${gw.url}/console/providers/${id}`);
    assert.equal(await text('#outbound-base-url'), OUTBOUND.baseUrl);
    assert.match(await text('#outbound-signature'), /SHA256withRSA/);
    assert.match(await text('#token-signature'), /SHA256withRSA/);
    const content = await page.content();
    for (const secret of [OUT_SECRET, PRIVATE_LINE]) assert.ok(!content.includes(secret), 'no secret in the page');
    const row = (await auditRows('console: create provider')).find((a) => a.target === id);
    assert.equal(row?.request['outbound.clientSecret'], '<redacted>');
    assert.equal(row?.request['outbound.privateKeyPem'], '<redacted>');
    assert.ok(!JSON.stringify(row).includes(OUT_SECRET) && !JSON.stringify(row).includes(PRIVATE_LINE));
  });

  test('a new e-wallet through the form: its wallet instead of a bank code, and the outbound settings it is called with', async () => {
    await page.goto(`${gw.url}/console/providers/new`);
    await fill('#provider-form', {
      name: 'DANA',
      kind: 'ewallet',
      payOption: 'DANA',
      'outbound.baseUrl': OUTBOUND.baseUrl,
      'outbound.clientKey': OUTBOUND.clientKey,
      'outbound.clientSecret': OUT_SECRET,
      'outbound.partnerId': OUTBOUND.partnerId,
    });
    await submit('#provider-form button[type=submit]');
    const id = await text('#provider-id');
    assert.match(await text('#shown-once'), /shown this once/);
    const shown = (await provider(id)) as Provider & { payOption: string | null };
    assert.deepEqual([shown.kind, shown.payOption, shown.bankCode], ['ewallet', 'DANA', null]);
    assert.equal(shown.outbound?.baseUrl, OUTBOUND.baseUrl);
    await page.goto(`${gw.url}/console/providers/${id}`);
    assert.equal(await text('#pay-option'), 'DANA');
    assert.equal(await page.$('#bank-code'), null, 'an e-wallet has no bank code');
    assert.equal(await text('#outbound-base-url'), OUTBOUND.baseUrl);
    // Its edit form keeps the outbound settings (no way to remove them) and asks no bank code.
    assert.equal(await page.$('#edit-form input[name=bankCode]'), null);
    assert.equal(await page.$('#edit-form input[name=clearOutbound]'), null);
    assert.ok(await page.$('#edit-form input[name="outbound.baseUrl"]'));
    assert.ok(!(await page.content()).includes(OUT_SECRET), 'no secret in the page');
  });

  test('every rule of the new provider form: shown again as typed, with the problem; nothing is made', async () => {
    await adminCreate({ name: 'Acquirer Utama', kind: 'acquirer', bankCode: '937', acquiresGatewayQris: true });
    const base = { name: 'Bank Uji', kind: 'bank', bankCode: '123' };
    const acquirer = { ...base, name: 'Acquirer Uji', kind: 'acquirer' };
    const outbound = {
      'outbound.baseUrl': 'http://127.0.0.1:9',
      'outbound.clientKey': 'sg-key',
      'outbound.clientSecret': 'sg-outbound-secret-typed',
      'outbound.partnerId': 'SG01',
    };
    const cases: Array<[Record<string, string>, RegExp, number?]> = [
      [{ ...base, name: '' }, /Name: is required/],
      [{ ...base, name: 'x'.repeat(101) }, /Name: must be at most 100 characters/],
      [{ ...base, kind: 'wallet' }, /Kind: must be one of: bank, acquirer/],
      [{ ...base, bankCode: '14' }, /Bank code: must be 3 digits/],
      [{ ...base, bankCode: 'abc' }, /Bank code: must be 3 digits/],
      [{ ...base, bankCode: '' }, /Bank code: required for a bank/],
      [{ ...base, payOption: 'DANA' }, /Wallet \(payOption\): only an e-wallet serves a payOption/],
      [{ ...base, kind: 'ewallet', payOption: 'DANA', ...outbound }, /Bank code: an e-wallet has no bank code/],
      [{ ...base, kind: 'ewallet', bankCode: '', ...outbound }, /Wallet \(payOption\): required for an e-wallet/],
      [{ ...base, kind: 'ewallet', bankCode: '', payOption: 'DANA' }, /Outbound settings: required for an e-wallet/],
      [
        { ...base, kind: 'ewallet', bankCode: '', payOption: 'dana', ...outbound },
        /Wallet \(payOption\): must be A-Z, 0-9 and _, at most 32/,
      ],
      [{ ...base, publicKeyPem: 'not a key' }, /Public key: must be a PEM-encoded RSA public key of at least 2048/],
      [
        { ...base, publicKeyPem: rsa(1024).publicKey },
        /Public key: must be a PEM-encoded RSA public key of at least 2048/,
      ],
      [{ ...base, publicKeyPem: 'k'.repeat(16_385) }, /Public key: must be at most 16384 characters/],
      [{ ...base, acquiresGatewayQris: 'true' }, /Acquires snapgate’s own QRIS: only an acquirer acquires QRIS/],
      [{ ...acquirer, acquiresGatewayQris: 'maybe' }, /Acquires snapgate’s own QRIS: must be yes or no/],
      [{ ...base, ...outbound }, /Outbound settings: only an acquirer is called by snapgate/],
      [
        { ...acquirer, 'outbound.baseUrl': 'http://127.0.0.1:9' },
        /Outbound client key: is required.*Outbound client secret: is required.*Outbound partner id: is required/s,
      ],
      [{ ...acquirer, ...outbound, 'outbound.baseUrl': '' }, /Outbound base URL: is required/],
      [
        { ...acquirer, ...outbound, 'outbound.baseUrl': 'acquirer' },
        /Outbound base URL: must be an absolute http\(s\) URL/,
      ],
      [{ ...acquirer, ...outbound, 'outbound.baseUrl': 'ftp://127.0.0.1' }, /Outbound base URL: must be https or http/],
      [
        { ...acquirer, ...outbound, 'outbound.baseUrl': 'http://127.0.0.1:9/snap' },
        /Outbound base URL: must be an origin only/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.baseUrl': 'http://169.254.169.254' },
        /Outbound base URL: must not point at a link-local or cloud metadata address/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.baseUrl': `http://a${'a'.repeat(2048)}.example` },
        /Outbound base URL: must be at most 2048 characters/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.clientKey': 'k'.repeat(129) },
        /Outbound client key: must be at most 128 characters/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.clientSecret': 's'.repeat(513) },
        /Outbound client secret: must be at most 512 characters/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.partnerId': 'p'.repeat(65) },
        /Outbound partner id: must be at most 64 characters/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.channelId': '123456' },
        /Outbound channel id: must be at most 5 characters/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.tokenPath': 'token' },
        /Outbound token path: must be a path starting with \//,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.pathPrefix': 'api/snap' },
        /Outbound path prefix: must be a path starting with \//,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.privateKeyPem': 'not a private key' },
        /Outbound private key: must be a PEM-encoded RSA private key/,
      ],
      [
        { ...acquirer, ...outbound, 'outbound.privateKeyPem': 'k'.repeat(16_385) },
        /Outbound private key: must be at most 16384 characters/,
      ],
      [
        { ...base, bankCode: '014' },
        /Bank code: 014 already belongs to the active bank “Bank Satu” \([0-9a-f-]{36}\): one active bank per code/,
        409,
      ],
      [
        { ...acquirer, acquiresGatewayQris: 'true' },
        /Acquires snapgate’s own QRIS: the acquirer “Acquirer Utama” \([0-9a-f-]{36}\) already does, and only one acquirer can/,
        409,
      ],
    ];
    const counts = async () => [await providerCount(), await audits('console: create provider')];
    for (const [fields, problem, status = 400] of cases) {
      await page.goto(`${gw.url}/console/providers/new`);
      await fill('#provider-form', fields);
      await refusedAsTyped('#provider-form', fields, status, problem, counts);
    }
    await page.screenshot({ path: screenshotPath('providers-new-refused'), fullPage: true });
    // A refused form is in the audit log as refused, with why; its typed secrets redacted.
    const refused = await auditRows('console: create provider (refused)');
    assert.equal(refused.length, cases.length);
    assert.ok(refused.some((a) => a.httpStatus === 409 && /Bank Satu/.test(JSON.stringify(a.after))));
    assert.ok(!JSON.stringify(refused).includes('sg-outbound-secret-typed'));
  });

  test("edit an acquirer's outbound settings: saved with its secrets kept, a reload repeats nothing; then its secret, key and settings removed", async () => {
    const acq = await adminCreate({ name: 'Acquirer Edit', kind: 'acquirer', bankCode: '938', outbound: OUTBOUND });
    const at = `/console/providers/${acq.id}`;
    await page.goto(`${gw.url}${at}`);
    assert.equal(await page.inputValue('#edit-form input[name="outbound.baseUrl"]'), OUTBOUND.baseUrl);
    assert.equal(await page.inputValue('#edit-form input[name="outbound.clientSecret"]'), '');
    assert.equal(await page.inputValue('#edit-form textarea[name="outbound.privateKeyPem"]'), '');
    for (const secret of [OUT_SECRET, PRIVATE_LINE]) assert.ok(!(await page.content()).includes(secret));

    await fill('#edit-form', {
      name: 'Acquirer Edit Baru',
      publicKeyPem: keys.publicKey,
      'outbound.baseUrl': 'https://127.0.0.2:8443',
      'outbound.partnerId': 'SNAPGATE02',
      'outbound.channelId': '95222',
      'outbound.pathPrefix': '/snap/v1.0',
    });
    const { posted } = await submit('#edit-form button[type=submit]');
    assert.equal(posted?.method(), 'POST');
    assert.equal(path(), at);
    assert.match(await text('.flash.ok'), /Saved: the settings of Acquirer Edit Baru are changed/);
    assert.equal(await text('#outbound-base-url'), 'https://127.0.0.2:8443');
    await page.screenshot({ path: screenshotPath('providers-edit'), fullPage: true });
    const edited = await provider(acq.id);
    assert.equal(edited.name, 'Acquirer Edit Baru');
    assert.equal(edited.publicKeyPem, keys.publicKey);
    assert.deepEqual(edited.outbound, {
      baseUrl: 'https://127.0.0.2:8443',
      clientKey: OUTBOUND.clientKey,
      partnerId: 'SNAPGATE02',
      channelId: '95222',
      tokenPath: '/api/snap/v1.0/access-token/b2b',
      pathPrefix: '/snap/v1.0',
      hasPrivateKey: true,
    });
    const stored = async () => (await gw.store.findProviderById(acq.id))?.outbound;
    assert.equal((await stored())?.clientSecret, OUT_SECRET, 'an empty secret field keeps the secret');
    assert.equal((await stored())?.privateKeyPem, keys.privateKey, 'an empty key field keeps the key');
    await reloadRepeatsNothing(async () => [
      (await provider(acq.id)).updatedAt,
      await audits('console: edit provider'),
    ]);
    assert.equal(await page.$('.flash'), null, 'the outcome is said once');
    const row = (await auditRows('console: edit provider'))[0];
    assert.equal(row?.target, acq.id);
    assert.equal(row?.after?.outbound?.baseUrl, 'https://127.0.0.2:8443');

    // A new outbound secret typed, the private key removed.
    await fill('#edit-form', { 'outbound.clientSecret': 'a-new-outbound-secret', clearPrivateKey: 'yes' });
    await submit('#edit-form button[type=submit]');
    assert.equal((await stored())?.clientSecret, 'a-new-outbound-secret');
    assert.equal((await stored())?.privateKeyPem, null);
    assert.equal((await provider(acq.id)).outbound?.hasPrivateKey, false);
    assert.match(await text('#outbound-signature'), /HMAC-SHA256/);
    const rows = await auditRows('console: edit provider');
    assert.equal(rows[0]?.request['outbound.clientSecret'], '<redacted>');
    assert.ok(!JSON.stringify(rows).includes('a-new-outbound-secret') && !JSON.stringify(rows).includes(PRIVATE_LINE));

    // The public key emptied, the outbound settings removed.
    await fill('#edit-form', { publicKeyPem: '', clearOutbound: 'yes' });
    await submit('#edit-form button[type=submit]');
    const cleared = await provider(acq.id);
    assert.deepEqual([cleared.publicKeyPem, cleared.outbound], [null, null]);
    assert.match(await text('#outbound-none'), /snapgate does not call this acquirer/);
    assert.match(await text('#token-signature'), /HMAC-SHA256/);
    await reloadRepeatsNothing(async () => [
      (await provider(acq.id)).updatedAt,
      await audits('console: edit provider'),
    ]);
    assert.equal(await audits('console: edit provider'), 3);
  });

  test('every rule of the edit form: shown again as typed, with the problem; nothing is saved', async () => {
    const acq = await adminCreate({ name: 'Acquirer Aturan', kind: 'acquirer', bankCode: '939', outbound: OUTBOUND });
    const other = await adminCreate({ name: 'Bank Tiga', kind: 'bank', bankCode: '015' });
    const unchanged = (id: string) => async () => [
      (await provider(id)).updatedAt,
      await audits('console: edit provider'),
    ];
    const cases: Array<[string, Record<string, string>, RegExp, number?]> = [
      [acq.id, { name: '' }, /Name: is required/],
      [acq.id, { name: 'n'.repeat(101) }, /Name: must be at most 100 characters/],
      [acq.id, { bankCode: '93x' }, /Bank code: must be 3 digits/],
      [acq.id, { publicKeyPem: 'not a key' }, /Public key: must be a PEM-encoded RSA public key/],
      [acq.id, { publicKeyPem: 'k'.repeat(16_385) }, /Public key: must be at most 16384 characters/],
      [acq.id, { acquiresGatewayQris: 'maybe' }, /Acquires snapgate’s own QRIS: must be yes or no/],
      [acq.id, { 'outbound.baseUrl': '' }, /Outbound base URL: is required/],
      [acq.id, { 'outbound.baseUrl': 'acquirer' }, /Outbound base URL: must be an absolute http\(s\) URL/],
      [acq.id, { 'outbound.baseUrl': 'ftp://127.0.0.1' }, /Outbound base URL: must be https or http/],
      [acq.id, { 'outbound.baseUrl': 'http://127.0.0.1:9/snap?x=1' }, /Outbound base URL: must be an origin only/],
      [acq.id, { 'outbound.baseUrl': 'http://169.254.169.254' }, /Outbound base URL: must not point at a link-local/],
      [acq.id, { 'outbound.clientKey': '' }, /Outbound client key: is required/],
      [acq.id, { 'outbound.clientKey': 'k'.repeat(129) }, /Outbound client key: must be at most 128 characters/],
      [acq.id, { 'outbound.clientSecret': 's'.repeat(513) }, /Outbound client secret: must be at most 512 characters/],
      [acq.id, { 'outbound.partnerId': '' }, /Outbound partner id: is required/],
      [acq.id, { 'outbound.partnerId': 'p'.repeat(65) }, /Outbound partner id: must be at most 64 characters/],
      [acq.id, { 'outbound.channelId': '123456' }, /Outbound channel id: must be at most 5 characters/],
      [acq.id, { 'outbound.tokenPath': 'token' }, /Outbound token path: must be a path starting with \//],
      [acq.id, { 'outbound.pathPrefix': 'snap' }, /Outbound path prefix: must be a path starting with \//],
      [
        acq.id,
        { 'outbound.privateKeyPem': 'not a private key' },
        /Outbound private key: must be a PEM-encoded RSA private key/,
      ],
      [
        acq.id,
        { 'outbound.privateKeyPem': 'k'.repeat(16_385) },
        /Outbound private key: must be at most 16384 characters/,
      ],
      [
        acq.id,
        { acquiresGatewayQris: 'true' },
        /Acquires snapgate’s own QRIS: the acquirer “Acquirer Utama” \([0-9a-f-]{36}\) already does/,
        409,
      ],
      [
        other.id,
        { bankCode: '014' },
        /Bank code: 014 already belongs to the active bank “Bank Satu” \([0-9a-f-]{36}\)/,
        409,
      ],
    ];
    for (const [id, fields, problem, status = 400] of cases) {
      await page.goto(`${gw.url}/console/providers/${id}`);
      await fill('#edit-form', fields);
      await refusedAsTyped('#edit-form', fields, status, problem, unchanged(id));
    }
    assert.equal((await gw.store.findProviderById(acq.id))?.outbound?.clientSecret, OUT_SECRET);
    const refused = await auditRows('console: edit provider (refused)');
    assert.equal(refused.length, cases.length);
    assert.ok(refused.every((a) => a.httpStatus === 400 || a.httpStatus === 409));
  });

  test('disable, then enable, each confirmed: the token endpoint refuses it, then takes it again; reloads repeat nothing', async () => {
    const at = `/console/providers/${bank.id}`;
    const counts = async () => [
      (await provider(bank.id)).status,
      await audits('console: disable provider'),
      await audits('console: enable provider'),
    ];
    await page.goto(`${gw.url}${at}`);
    // Answered no, the confirmation stops the form.
    confirmAnswer = false;
    const asked = confirms.length;
    await page.click('#status-form button[type=submit]');
    await until('the confirmation is answered', async () => confirms.length > asked);
    confirmAnswer = true;
    assert.equal(path(), at, 'no form was sent');
    assert.equal(await page.$('#status-form[aria-busy]'), null);
    assert.equal((await provider(bank.id)).status, 'active');
    assert.match(confirms.at(-1) ?? '', /^Disable this provider\? Its tokens stop working at once/);

    await submit('button:text("Disable provider")');
    assert.equal(path(), at);
    assert.match(await text('.flash.ok'), /Bank Satu is disabled: its tokens stopped working at once/);
    assert.equal((await provider(bank.id)).status, 'disabled');
    assert.notEqual((await token(bank.clientKey, bank.clientSecret)).status, 200, 'a disabled provider gets no token');
    await reloadRepeatsNothing(counts);

    await submit('button:text("Enable provider")');
    assert.match(confirms.at(-1) ?? '', /^Enable this provider\?/);
    assert.match(await text('.flash.ok'), /Bank Satu is active again/);
    assert.equal((await provider(bank.id)).status, 'active');
    const t = await token(bank.clientKey, bank.clientSecret);
    assert.equal(t.status, 200, t.text);
    await reloadRepeatsNothing(counts);
    assert.deepEqual(await counts(), ['active', 1, 1]);

    // Enabling a bank whose code another active bank took meanwhile: refused, saying which bank.
    const old = await adminCreate({ name: 'Bank Lama', kind: 'bank', bankCode: '016' });
    assert.equal((await gw.admin('PATCH', `/providers/${old.id}`, { status: 'disabled' })).status, 200);
    await adminCreate({ name: 'Bank Baru', kind: 'bank', bankCode: '016' });
    await page.goto(`${gw.url}/console/providers/${old.id}`);
    await submit('button:text("Enable provider")');
    assert.equal(path(), `/console/providers/${old.id}`);
    assert.match(
      await text('.flash.error'),
      /^The provider was not enabled\. Bank code: 016 already belongs to the active bank “Bank Baru”/,
    );
    assert.equal((await provider(old.id)).status, 'disabled');
    const [row] = await auditRows('console: enable provider (refused)');
    assert.equal(row?.httpStatus, 409);
    await reloadRepeatsNothing(async () => [(await provider(old.id)).status, await audits('console: enable provider')]);
    assert.equal(await page.$('.flash'), null, 'said once');

    // A status that is neither: refused (a form of the console sends one or the other).
    const session = await signInByHand(gw.url);
    const res = await postForm(gw.url, session, `/console/providers/${bank.id}/status`, { status: 'paused' });
    assert.equal(res.status, 303);
    const [bad] = await auditRows('console: change provider status (refused)');
    assert.equal(bad?.httpStatus, 400);
    assert.match(bad?.after?.refused ?? '', /Status: must be one of: active, disabled/);
    assert.equal((await provider(bank.id)).status, 'active');
  });

  test('rotate the secret: the new one shown once; with no overlap the old one stops at once; a reload rotates nothing', async () => {
    const at = `/console/providers/${bank.id}`;
    const version = async () => (await provider(bank.id)).secretVersion;
    const v0 = await version();
    await page.goto(`${gw.url}${at}`);
    // Every refused overlap: the page again at 400, the overlap as typed, nothing rotated.
    for (const typed of ['-1', '2592001', '1.5', 'soon']) {
      await fill('#rotate-form', { overlapSec: typed });
      const { final } = await submit('#rotate-form button[type=submit]');
      assert.equal(final.status(), 400, typed);
      assert.match(
        await text('#form-problems'),
        /The secret was not rotated: the overlap is a whole number of seconds/,
      );
      assert.equal(await page.inputValue('#rotate-form input[name=overlapSec]'), typed);
      assert.equal(await version(), v0);
    }
    assert.equal(await audits('console: rotate provider secret (refused)'), 4);

    await fill('#rotate-form', { overlapSec: '0' });
    await submit('#rotate-form button[type=submit]');
    assert.match(confirms.at(-1) ?? '', /^Rotate the client secret\?/);
    assert.equal(path(), `${at}/secret`);
    const rotated = await page.inputValue('#client-secret');
    assert.match(await text('#shown-once'), /Shown this once.*The previous secret stopped working/s);
    assert.equal(await version(), v0 + 1);
    assert.notEqual((await token(bank.clientKey, bank.clientSecret)).status, 200, 'the old secret stopped');
    const t = await token(bank.clientKey, rotated);
    assert.equal(t.status, 200, t.text);
    await reloadRepeatsNothing(async () => [await version(), await audits('console: rotate provider secret')]);
    assert.equal(await page.$('#client-secret'), null);
    assert.ok(!(await page.content()).includes(rotated));
    assert.match(await text('#shown-once'), /was shown once/);
    const rows = await gw.admin('GET', '/audit?limit=500');
    assert.ok(!JSON.stringify(rows.body).includes(rotated));
    assert.ok(!gw.logs.some((l) => l.includes(rotated)));

    // The default overlap: the previous secret keeps working a day.
    await page.goto(`${gw.url}${at}`);
    assert.equal(await page.inputValue('#rotate-form input[name=overlapSec]'), '86400');
    await submit('#rotate-form button[type=submit]');
    const next = await page.inputValue('#client-secret');
    assert.match(await text('#shown-once'), /keeps working until/);
    assert.equal((await token(bank.clientKey, rotated)).status, 200, 'the previous one works during the overlap');
    assert.equal((await token(bank.clientKey, next)).status, 200);
    assert.equal(await version(), v0 + 2);
    bank.clientSecret = next;
  });

  test('a read key sees the providers and their settings, but no form; posting anyway is refused (403)', async () => {
    const made = await gw.admin('POST', '/admin-keys', { name: 'provider-reader', scope: 'read' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const context = browser.context;
    await context.clearCookies();
    const p = await context.newPage();
    try {
      await p.goto(`${gw.url}/console/login`);
      await p.fill('#key', made.body.key);
      await Promise.all([p.waitForNavigation(), p.click('main button[type=submit]')]);
      await p.goto(`${gw.url}/console/providers`);
      assert.ok(await p.$(`#providers a[href="/console/providers/${bank.id}"]`));
      assert.equal(await p.$('a:text("New provider")'), null);
      await p.goto(`${gw.url}/console/providers/${bank.id}`);
      assert.equal(((await p.textContent('#bank-code')) ?? '').trim(), '014');
      for (const form of ['#edit-form', '#status-form', '#rotate-form', 'main form[method=post]']) {
        assert.equal(await p.$(form), null, `${form} is not shown`);
      }
      const newForm = await p.goto(`${gw.url}/console/providers/new`);
      assert.equal(newForm?.status(), 403);

      await p.goto(`${gw.url}/console/providers/${bank.id}`);
      const csrf = await p.inputValue('header input[name=_csrf]');
      const before = [await providerCount(), await provider(bank.id)];
      const posts: Array<[string, Record<string, string>]> = [
        ['/console/providers', { name: 'Bank Baca', kind: 'bank', bankCode: '017' }],
        [`/console/providers/${bank.id}`, { name: 'Renamed' }],
        [`/console/providers/${bank.id}/status`, { status: 'disabled' }],
        [`/console/providers/${bank.id}/rotate-secret`, { overlapSec: '0' }],
      ];
      for (const [action, fields] of posts) {
        const status = await p.evaluate(
          async ([url, body]) =>
            (
              await fetch(url as string, {
                method: 'POST',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: body as string,
              })
            ).status,
          [action, new URLSearchParams({ _csrf: csrf, ...fields }).toString()],
        );
        assert.equal(status, 403, action);
      }
      assert.deepEqual([await providerCount(), await provider(bank.id)], before, 'nothing changed');
    } finally {
      await p.close();
      await context.clearCookies();
    }
    assert.deepEqual(alerts, []);
  });

  test('production mode: an outbound base URL must be https', async () => {
    const prod = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    try {
      const session = await signInByHand(prod.url);
      const count = (await prod.admin('GET', '/providers?limit=500')).body.items.length;
      const res = await postForm(prod.url, session, '/console/providers', {
        name: 'Acquirer Produksi',
        kind: 'acquirer',
        bankCode: '940',
        'outbound.baseUrl': 'http://203.0.113.7',
        'outbound.clientKey': 'sg-key',
        'outbound.clientSecret': 'sg-secret-production',
        'outbound.partnerId': 'SG01',
      });
      assert.equal(res.status, 400);
      const body = await res.text();
      assert.match(body, /Outbound base URL: must be https in production mode/);
      assert.match(body, /value="http:\/\/203\.0\.113\.7"/);
      assert.ok(!body.includes('sg-secret-production'));
      assert.equal((await prod.admin('GET', '/providers?limit=500')).body.items.length, count);
    } finally {
      await prod.close();
    }
  });
});

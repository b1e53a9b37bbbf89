// Every merchant setting in the console, in Debian's Chromium (playwright-core) at 1366 px: each
// group of the edit form set and read back through GET /admin/v1/merchants/:id, exactly; a field
// emptied clears its setting; each rule of the schema and of the merchant service a form can break,
// shown again at 400 with what was typed; the new-merchant form with every setting; a reload that
// repeats nothing (audit rows counted through GET /admin/v1/audit); the portal's callback token
// URL; a read key that sees no form and is refused when it posts anyway.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Page, Response } from 'playwright-core';
import { FEE_FIELDS, LIMIT_FIELDS, PAYOUT_ACCOUNT_FIELDS } from '../../src/console/merchant-form.ts';
import { merchantCreateSchema } from '../../src/merchants/merchant-fields.ts';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN } from '../helpers/gateway.ts';
import {
  type ConsoleGateway,
  getPage,
  postForm,
  screenshotPath,
  signInByHand,
  startConsoleGateway,
} from './console-gateway.ts';

const rsaPem = (bits: number) =>
  generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
const PEM = rsaPem(2048);
const SHORT_PEM = rsaPem(1024);
const PRIVATE_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;

/** Every field the admin API's create body takes, as the forms name them (fees, the bank account and the limits by their parts). */
const PARTS: Record<string, readonly string[]> = {
  fees: FEE_FIELDS,
  payoutAccount: PAYOUT_ACCOUNT_FIELDS,
  limits: LIMIT_FIELDS,
};
const SCHEMA_FIELDS = Object.keys(merchantCreateSchema.shape).flatMap((k) => [...(PARTS[k] ?? [k])]);

type Merchant = Record<string, unknown> & { id: string; partnerId: string; updatedAt: string };

describe('every merchant setting in the console', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let acquirerId: string;

  before(async () => {
    gw = await startConsoleGateway();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize({ width: 1366, height: 900 });
    const providers = (await gw.admin('GET', '/providers')).body.items as Array<{ id: string; kind: string }>;
    acquirerId = providers.find((p) => p.kind === 'acquirer')?.id as string;
    assert.ok(acquirerId, 'the sandbox acquirer');
    await signIn(page, gw.url);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
  });

  const signIn = async (p: Page, url: string) => {
    await p.goto(`${url}/console/login`);
    await p.fill('#key', ADMIN_TOKEN);
    await Promise.all([p.waitForURL(/\/console\/overview/), p.click('main button[type=submit]')]);
  };
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const stored = async (id: string, at = gw) => {
    const r = await at.admin('GET', `/merchants/${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as Merchant;
  };
  const auditCount = async (action: string, target: string) => {
    const r = await gw.admin('GET', `/audit?limit=500&target=${encodeURIComponent(target)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body.items as Array<{ action: string }>).filter((a) => a.action === action).length;
  };
  const merchantCount = async () => (await gw.admin('GET', '/merchants?limit=200')).body.items.length as number;
  /** The page a form leads to: the answer the browser ends on. */
  const submit = async (p: Page, selector: string) => {
    const [r] = await Promise.all([p.waitForNavigation(), p.click(selector)]);
    assert.ok(r, `${selector} leads somewhere`);
    return r;
  };
  /** Sets one field of the form in `scope`: a choice for a select, else the text. */
  const set = async (p: Page, scope: string, name: string, value: string) => {
    const selector = `${scope} [name="${name}"]`;
    const tag = await p.$eval(selector, (el) => el.tagName);
    if (tag === 'SELECT') await p.selectOption(selector, value);
    else await p.fill(selector, value);
  };
  const setAll = async (p: Page, scope: string, values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) await set(p, scope, name, value);
  };
  /** What the form in `scope` holds now: a PEM's line ends and its last one aside, as typed. */
  const valueIn = async (p: Page, scope: string, name: string) => {
    const v = await p.inputValue(`${scope} [name="${name}"]`);
    return name === 'publicKeyPem' ? v.replace(/\r\n/g, '\n').trim() : v;
  };
  const asTyped = (name: string, v: string) => (name === 'publicKeyPem' ? v.trim() : v);
  const formNames = (p: Page, form: string) =>
    p.$$eval(`${form} [name]`, (els) => els.map((e) => e.getAttribute('name')).filter((n) => n !== '_csrf'));

  const EDIT = '#callbacks';
  const SAVE = '#callbacks button[type=submit]';

  /** Every group, set through the form; what GET /admin/v1/merchants/:id then answers. */
  const everyGroup = () => ({
    form: {
      // Identity
      name: 'Toko Setelan Lengkap',
      partnerId: 'TOKO.SETELAN-01',
      // Token & signatures
      tokenSignature: 'rsa-sha256',
      callbackSignature: 'snap-b2b',
      callbackTokenUrl: 'https://198.51.100.20/api/snap/v1.0/access-token/b2b',
      publicKeyPem: PEM,
      // Callbacks
      callbackBaseUrl: 'https://198.51.100.20/shop',
      qrisCallbackUrl: 'https://198.51.100.21/qris',
      vaCallbackUrl: 'https://198.51.100.22/va',
      transferCallbackUrl: 'https://198.51.100.23/transfer',
      callbackJson: 'php-laravel',
      callbackVaBody: 'snap-payment',
      // QRIS
      merchantName: 'TOKO SETELAN',
      merchantCity: 'BANDUNG',
      nmid: 'ID1234567890123',
      mcc: '5812',
      qrisCriteria: 'UKE',
      qrisProvider: acquirerId,
      // Fees
      'fees.qris.percent': '0.70',
      'fees.qris.fixed': '500.00',
      'fees.va.fixed': '2500.00',
      'fees.va.percent': '0.10',
      'fees.disbursement.fixed': '2500.00',
      // Delivery
      retrySchedule: '0s,10s,1m,1h',
      callbackAck: 'any-200',
      // Payouts (the account is verified at the sandbox bank: SANDBOX 3456)
      payoutSchedule: 'auto',
      'payoutAccount.bankCode': '014',
      'payoutAccount.accountNo': '8880123456',
      'payoutAccount.accountName': 'Toko Setelan',
      'limits.disbursementDaily': '50000000.00',
    },
    api: {
      name: 'Toko Setelan Lengkap',
      partnerId: 'TOKO.SETELAN-01',
      tokenSignature: 'rsa-sha256',
      callbackSignature: 'snap-b2b',
      callbackTokenUrl: 'https://198.51.100.20/api/snap/v1.0/access-token/b2b',
      publicKeyPem: PEM,
      callbackBaseUrl: 'https://198.51.100.20/shop',
      qrisCallbackUrl: 'https://198.51.100.21/qris',
      vaCallbackUrl: 'https://198.51.100.22/va',
      transferCallbackUrl: 'https://198.51.100.23/transfer',
      callbackJson: 'php-laravel',
      callbackVaBody: 'snap-payment',
      merchantName: 'TOKO SETELAN',
      merchantCity: 'BANDUNG',
      nmid: 'ID1234567890123',
      mcc: '5812',
      qrisCriteria: 'UKE',
      qrisProvider: acquirerId,
      fees: {
        qris: { percent: '0.70', fixed: '500.00' },
        va: { fixed: '2500.00', percent: '0.10' },
        disbursement: { fixed: '2500.00' },
      },
      retrySchedule: '0s,10s,1m,1h',
      callbackAck: 'any-200',
      payoutSchedule: 'auto',
      limits: { disbursementDaily: '50000000.00' },
    } as Record<string, unknown>,
  });
  const pick = (m: Merchant, keys: string[]) => Object.fromEntries(keys.map((k) => [k, m[k]]));
  /** The bank account everyGroup sets, as the sandbox bank verified it (verifiedAt aside). */
  const VERIFIED_ACCOUNT = {
    bankCode: '014',
    accountNo: '8880123456',
    accountName: 'Toko Setelan',
    verifiedName: 'SANDBOX 3456',
    verifiedAt: undefined,
  };

  test('the new-merchant and edit forms hold every field the admin API takes, by its name', async () => {
    await page.goto(`${gw.url}/console/merchants/new`);
    assert.deepEqual((await formNames(page, 'main form')).sort(), [...SCHEMA_FIELDS].sort());
    assert.deepEqual(await page.$$eval('main form fieldset legend', (ls) => ls.map((l) => l.textContent)), [
      'Identity',
      'Token & signatures',
      'Callbacks',
      'QRIS',
      'Checkout',
      'Fees',
      'Delivery',
      'Payouts',
    ]);
    assert.equal(await page.$eval('main form [name=publicKeyPem]', (e) => e.tagName), 'TEXTAREA');
    for (const name of ['tokenSignature', 'callbackSignature', 'callbackJson', 'callbackVaBody', 'callbackAck']) {
      assert.equal(await page.$eval(`main form [name=${name}]`, (e) => e.tagName), 'SELECT', name);
    }
    assert.equal(await page.$eval('main form [name=qrisCriteria]', (e) => e.tagName), 'SELECT');
    assert.match(await text(page, '#hint-retrySchedule'), /comma-separated, like 0s,5s,30s,2m,1h/);
    assert.match(await text(page, '#hint-callbackTokenUrl'), /SNAP B2B token only/);

    const m = await gw.createMerchant({ name: 'Toko Formulir' });
    await page.goto(`${gw.url}/console/merchants/${m.id}`);
    // The status is its own form (Disable/Enable), not a field of the settings.
    assert.deepEqual((await formNames(page, `${EDIT} form`)).sort(), [...SCHEMA_FIELDS].sort());
    assert.equal(await page.getAttribute('#certifications', 'href'), `/console/merchants/${m.id}/certifications`);

    // The merchants list: a stacking table, every cell named by its column.
    await page.goto(`${gw.url}/console/merchants`);
    assert.equal(await page.$eval('main table', (t) => t.className), 'stack');
    const cells = await page.$$eval('main table', (tables) =>
      tables.flatMap((t) => {
        const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent);
        return [...t.querySelectorAll('tbody tr')].flatMap((tr) =>
          [...tr.querySelectorAll('td')].map((td, i) => [td.getAttribute('data-label'), heads[i]]),
        );
      }),
    );
    assert.ok(cells.length >= 5);
    for (const [label, head] of cells) assert.equal(label, head);
  });

  test('every group set through the edit form reads back exactly; a reload repeats nothing', async () => {
    const m = await gw.createMerchant({ name: 'Toko Setelan' });
    const { form, api } = everyGroup();
    await page.goto(`${gw.url}/console/merchants/${m.id}`);
    await setAll(page, EDIT, form);
    const saved = await submit(page, SAVE);
    assert.equal(saved.status(), 200);
    assert.match(page.url(), /\?ok=saved$/);
    const after = await stored(m.id);
    assert.deepEqual(pick(after, Object.keys(api)), api);
    assert.deepEqual({ ...(after.payoutAccount as object), verifiedAt: undefined }, VERIFIED_ACCOUNT);
    assert.equal(await auditCount('console: edit merchant', m.id), 1);

    // Post/Redirect/Get: the reload is a GET; no second edit, nothing changed.
    const again = (await page.reload()) as Response;
    assert.equal(again.request().method(), 'GET');
    assert.equal(await auditCount('console: edit merchant', m.id), 1);
    assert.equal((await stored(m.id)).updatedAt, after.updatedAt);

    // The page shows what is set now, the public key by its size (the PEM under it).
    assert.equal(await text(page, '#fee-qris'), '0.70% + Rp 500,00');
    assert.equal(await text(page, '#fee-va'), 'Rp 2.500,00 + 0.10%');
    assert.equal(await text(page, '[data-setting=nmid]'), 'ID1234567890123');
    assert.equal(await text(page, '[data-setting=retrySchedule]'), '0s,10s,1m,1h');
    assert.equal(await text(page, '[data-setting=qrisProvider]'), 'Sandbox Acquirer');
    assert.equal(await text(page, '[data-setting=publicKeyPem] summary'), 'RSA, 2048 bits');
    assert.equal(await text(page, '[data-setting=callbackSignature]'), 'SNAP B2B token');
    assert.equal(await text(page, '[data-setting=payoutSchedule]'), 'auto: as soon as a settlement is made');
    assert.equal(await text(page, '#payout-account'), '8880123456 at bank 014, Toko Setelan');
    assert.match(await text(page, '#payout-account-verified'), /^SANDBOX 3456 \(the payout bank’s answer, /);
    // The form shows them too, ready for the next change.
    for (const [name, value] of Object.entries(form)) {
      assert.equal(await valueIn(page, EDIT, name), asTyped(name, value), name);
    }
    await page.screenshot({ path: screenshotPath('merchant-settings'), fullPage: true });
  });

  test('an emptied field clears its setting (null); the form saved untouched changes nothing', async () => {
    const { api } = everyGroup();
    const m = await gw.createMerchant({ ...api, name: 'Toko Kosongkan', partnerId: 'TOKO-KOSONG' });
    await page.goto(`${gw.url}/console/merchants/${m.id}`);
    await setAll(page, EDIT, {
      tokenSignature: 'any',
      publicKeyPem: '',
      callbackTokenUrl: '',
      qrisCallbackUrl: '',
      qrisProvider: '',
      'fees.qris.percent': '',
      'fees.qris.fixed': '',
      'fees.va.fixed': '',
      'fees.va.percent': '',
      'fees.disbursement.fixed': '',
      transferCallbackUrl: '',
      'limits.disbursementDaily': '',
      retrySchedule: '',
    });
    await submit(page, SAVE);
    assert.match(page.url(), /\?ok=saved$/);
    const after = await stored(m.id);
    assert.deepEqual(pick(after, ['transferCallbackUrl', 'limits']), { transferCallbackUrl: null, limits: null });
    assert.deepEqual(
      pick(after, ['publicKeyPem', 'callbackTokenUrl', 'qrisCallbackUrl', 'qrisProvider', 'fees', 'retrySchedule']),
      {
        publicKeyPem: null,
        callbackTokenUrl: null,
        qrisCallbackUrl: null,
        qrisProvider: null,
        fees: null,
        retrySchedule: null,
      },
    );
    assert.equal(after.tokenSignature, 'any');
    assert.equal(after.vaCallbackUrl, api.vaCallbackUrl, 'what was not emptied stays');
    assert.equal(await text(page, '#fee-qris'), 'Bank Indonesia’s MDR for UKE (default)');
    assert.equal(await text(page, '#fee-va'), 'free (default)');

    // Only the QRIS part of the fees emptied: the VA and disbursement parts stay.
    const v = await gw.createMerchant({ name: 'Toko Separuh', fees: api.fees });
    await page.goto(`${gw.url}/console/merchants/${v.id}`);
    await setAll(page, EDIT, { 'fees.qris.percent': '', 'fees.qris.fixed': '' });
    await submit(page, SAVE);
    assert.deepEqual((await stored(v.id)).fees, {
      va: { fixed: '2500.00', percent: '0.10' },
      disbursement: { fixed: '2500.00' },
    });

    // Saved as it is: nothing is sent, so a generated NMID stays generated (a typed one would not).
    const g = await gw.createMerchant({ name: 'Toko Tak Berubah' });
    const before = await stored(g.id);
    await page.goto(`${gw.url}/console/merchants/${g.id}`);
    await submit(page, SAVE);
    assert.equal(new URL(page.url()).pathname, `/console/merchants/${g.id}`);
    assert.match(await text(page, '.flash.ok'), /Nothing to save/);
    assert.deepEqual(await stored(g.id), before);
    assert.equal((await gw.store.findMerchantById(g.id))?.nmidGenerated, true);
    assert.equal(await auditCount('console: edit merchant', g.id), 0);
    assert.equal(await auditCount('console: edit merchant (nothing changed)', g.id), 1);
    await page.reload();
    assert.equal(await auditCount('console: edit merchant (nothing changed)', g.id), 1);
  });

  /** Each rule the edit form can break: [field, what is typed, the problem, the status]. */
  const RULES: Array<[string, string, RegExp, number?]> = [
    ['name', '   ', /name: Too small/],
    ['partnerId', 'has space', /partnerId: must be 1 to 64 letters, digits, dot, dash or underscore/],
    ['callbackBaseUrl', 'ftp://198.51.100.20/shop', /callbackBaseUrl: must be an http\(s\) URL/],
    ['qrisCallbackUrl', 'https://198.51.100.20/qris#top', /qrisCallbackUrl: must not have a fragment/],
    ['vaCallbackUrl', 'http://169.254.169.254/latest', /vaCallbackUrl: must not point at a link-local or cloud/],
    ['callbackTokenUrl', 'https://user:pw@198.51.100.20/token', /callbackTokenUrl: must not carry credentials/],
    ['retrySchedule', 'every 5 minutes', /retrySchedule: must be a comma-separated list of durations/],
    ['publicKeyPem', 'not a key', /publicKeyPem: must be a PEM-encoded RSA public key of at least 2048 bits/],
    ['publicKeyPem', SHORT_PEM, /publicKeyPem: must be a PEM-encoded RSA public key of at least 2048 bits/],
    ['publicKeyPem', PRIVATE_PEM, /publicKeyPem: must be a PEM-encoded RSA public key of at least 2048 bits/],
    ['tokenSignature', 'rsa-sha256', /tokenSignature: rsa-sha256 needs a publicKeyPem/],
    ['merchantName', 'Kopi Café', /merchantName: must be printable ASCII/],
    ['merchantCity', 'KOTA JAKARTA PUSAT', /merchantCity: Too big/],
    ['nmid', 'ID123', /nmid: must be ID followed by 10 to 13 digits/],
    ['nmid', '', /nmid: must be ID followed by 10 to 13 digits/],
    ['mcc', '59', /mcc: must be 4 digits/],
    ['fees.qris.percent', '0.7', /fees\.qris\.percent: must be a percent from 0\.00 to 100\.00/],
    ['fees.qris.fixed', '500.00', /fees\.qris\.percent: required/],
    ['fees.va.fixed', '2500', /fees\.va\.fixed: must be an amount like 2500\.00/],
    ['fees.va.percent', '1.00', /fees\.va\.fixed: required/],
    ['payoutAccount.bankCode', '14', /payoutAccount\.bankCode: must be 3 digits/],
    ['payoutAccount.accountNo', '12-34', /payoutAccount\.accountNo: must be 1 to 34 digits/],
  ];

  test('each rule the edit form can break: shown again at 400 with its problem and what was typed; nothing saved', async () => {
    const m = await gw.createMerchant({ name: 'Toko Aturan' });
    const before = await stored(m.id);
    for (const [field, bad, problem, status = 400] of RULES) {
      await page.goto(`${gw.url}/console/merchants/${m.id}`);
      await set(page, EDIT, field, bad);
      const r = await submit(page, SAVE);
      assert.equal(r.status(), status, `${field}=${bad}`);
      assert.equal(r.request().method(), 'POST', 'shown again, not redirected');
      assert.match(await text(page, '#form-problems'), /Nothing was saved/);
      assert.match(await text(page, '#form-problems'), problem);
      assert.equal(await valueIn(page, EDIT, field), asTyped(field, bad), `${field} kept as typed`);
      const wrong = problem.source.split(':')[0]?.replace(/\\/g, '') as string;
      assert.equal(await page.getAttribute(`${EDIT} [name="${wrong}"]`, 'aria-invalid'), 'true', wrong);
      assert.deepEqual(await stored(m.id), before, `${field}=${bad} saved nothing`);
    }

    // Several at once: every problem listed, every typed value kept (the good ones too), none saved.
    await page.goto(`${gw.url}/console/merchants/${m.id}`);
    const typed = { name: 'Toko Aturan Baru', nmid: 'ID12', retrySchedule: 'soon', 'fees.va.fixed': '1,50' };
    await setAll(page, EDIT, typed);
    const r = await submit(page, SAVE);
    assert.equal(r.status(), 400);
    const problems = await text(page, '#form-problems');
    for (const f of ['nmid', 'retrySchedule', 'fees.va.fixed']) assert.match(problems, new RegExp(`${f}: `));
    for (const [name, value] of Object.entries(typed)) assert.equal(await valueIn(page, EDIT, name), value, name);
    // A reload posts the same form again: refused again.
    assert.equal(((await page.reload()) as Response).status(), 400);
    assert.deepEqual(await stored(m.id), before);
    assert.equal(await auditCount('console: edit merchant', m.id), 0);

    // A partner id taken by another merchant: 409, shown again the same way.
    const other = await gw.createMerchant({ name: 'Toko Lain', partnerId: 'TOKO-LAIN' });
    await page.goto(`${gw.url}/console/merchants/${m.id}`);
    await set(page, EDIT, 'partnerId', other.partnerId);
    const taken = await submit(page, SAVE);
    assert.equal(taken.status(), 409);
    assert.match(await text(page, '#form-problems'), /partnerId is already used by another merchant/);
    assert.equal(await valueIn(page, EDIT, 'partnerId'), 'TOKO-LAIN');
    assert.deepEqual(await stored(m.id), before);

    // An account the payout bank refuses: 409, with the bank's code, shown again the same way.
    await page.goto(`${gw.url}/console/merchants/${m.id}`);
    const refusedAccount = {
      'payoutAccount.bankCode': '014',
      'payoutAccount.accountNo': '7770000',
      'payoutAccount.accountName': 'Toko Aturan',
    };
    await setAll(page, EDIT, refusedAccount);
    const refusedByBank = await submit(page, SAVE);
    assert.equal(refusedByBank.status(), 409);
    assert.match(
      await text(page, '#form-problems'),
      /payoutAccount: the payout bank refused the account: 4041611 Invalid Card\/Account\/Customer \[Account Not Found\]/,
    );
    for (const [name, value] of Object.entries(refusedAccount)) assert.equal(await valueIn(page, EDIT, name), value);
    assert.deepEqual(await stored(m.id), before);

    // A forged acquirer (the select offers only real ones).
    const session = await signInByHand(gw.url);
    const forged = await postForm(gw.url, session, `/console/merchants/${m.id}`, { qrisProvider: 'no-such-acquirer' });
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /qrisProvider: no acquirer with id no-such-acquirer/);
    assert.deepEqual(await stored(m.id), before);

    // The private key typed by mistake is in no audit row.
    const rows = JSON.stringify((await gw.admin('GET', `/audit?limit=500&target=${m.id}`)).body);
    const keyBody = PRIVATE_PEM.split('\n')[1] as string;
    assert.ok(!rows.includes(keyBody), 'no private key in the audit log');
    assert.ok(!gw.logs.some((l) => l.includes(keyBody)), 'nor in the log');
  });

  test('the new-merchant form takes every setting; refused, it keeps them all; a reload creates nothing', async () => {
    const { form, api } = everyGroup();
    const count = await merchantCount();
    const fill = async (values: Record<string, string>) => {
      await page.goto(`${gw.url}/console/merchants/new`);
      await setAll(page, 'main form', values);
      return submit(page, 'main button[type=submit]');
    };
    const NEW = { ...form, name: 'Toko Baru Lengkap', partnerId: 'TOKO-BARU-01' };

    // What the schema refuses: listed, and every field as typed.
    const badSchema = { ...NEW, mcc: '12', retrySchedule: 'soon', 'fees.va.fixed': '2500' };
    const r1 = await fill(badSchema);
    assert.equal(r1.status(), 400);
    const problems = await text(page, '#form-problems');
    assert.match(problems, /The merchant was not created/);
    assert.match(problems, /mcc: must be 4 digits/);
    assert.match(problems, /retrySchedule: must be a comma-separated list/);
    assert.match(problems, /fees\.va\.fixed: must be an amount like 2500\.00/);
    for (const [name, value] of Object.entries(badSchema)) {
      assert.equal(await valueIn(page, 'main form', name), asTyped(name, value), name);
    }

    // SNAP B2B token without a URL to take it from: the service says so.
    const r2 = await fill({ ...NEW, callbackTokenUrl: '', callbackBaseUrl: '' });
    assert.equal(r2.status(), 400);
    assert.match(await text(page, '#form-problems'), /callbackTokenUrl: snap-b2b takes a token from the merchant/);
    assert.equal(await valueIn(page, 'main form', 'callbackSignature'), 'snap-b2b');
    assert.equal(await merchantCount(), count, 'nothing was made');

    await fill(NEW);
    assert.match(new URL(page.url()).pathname, /^\/console\/merchants\/[^/]+\/created$/);
    const id = await text(page, '#merchant-id');
    assert.deepEqual(pick(await stored(id), Object.keys(api)), {
      ...api,
      name: 'Toko Baru Lengkap',
      partnerId: 'TOKO-BARU-01',
    });
    assert.deepEqual({ ...((await stored(id)).payoutAccount as object), verifiedAt: undefined }, VERIFIED_ACCOUNT);
    assert.equal(await merchantCount(), count + 1);
    await page.reload();
    assert.equal(await merchantCount(), count + 1);
    assert.equal(await auditCount('console: create merchant', id), 1);

    // Only a name: the gateway's defaults, as the placeholders say.
    await fill({ name: 'Toko Nama Saja' });
    const plain = await stored(await text(page, '#merchant-id'));
    assert.deepEqual(
      pick(plain, [
        'merchantCity',
        'mcc',
        'qrisCriteria',
        'fees',
        'retrySchedule',
        'callbackSignature',
        'qrisProvider',
      ]),
      {
        merchantCity: 'JAKARTA',
        mcc: '5999',
        qrisCriteria: 'UMI',
        fees: null,
        retrySchedule: null,
        callbackSignature: 'hmac-sha512',
        qrisProvider: null,
      },
    );
    assert.equal(plain.partnerId, plain.clientKey);
  });

  test('in production mode a callback URL must be https and public: refused at 400, as typed', async () => {
    const prod = await startConsoleGateway({ env: { SNAPGATE_MODE: 'production' } });
    const p = await browser.context.newPage();
    try {
      await p.setViewportSize({ width: 1366, height: 900 });
      await signIn(p, prod.url);
      const m = await prod.createMerchant({ name: 'Toko Produksi' });
      const before = await stored(m.id, prod);
      for (const [field, url, problem] of [
        ['callbackBaseUrl', 'http://34.101.20.30/shop', /callbackBaseUrl: must be https in production mode/],
        ['callbackTokenUrl', 'https://10.1.2.3/token', /callbackTokenUrl: must not point at a loopback, private/],
      ] as const) {
        await p.goto(`${prod.url}/console/merchants/${m.id}`);
        await set(p, EDIT, field, url);
        const r = await submit(p, SAVE);
        assert.equal(r.status(), 400);
        assert.match(await text(p, '#form-problems'), problem);
        assert.equal(await valueIn(p, EDIT, field), url);
        assert.deepEqual(await stored(m.id, prod), before);
      }
      await p.goto(`${prod.url}/console/merchants/${m.id}`);
      await set(p, EDIT, 'callbackBaseUrl', 'https://34.101.20.30/shop');
      await submit(p, SAVE);
      assert.equal((await stored(m.id, prod)).callbackBaseUrl, 'https://34.101.20.30/shop');
    } finally {
      await p.close();
      await prod.close();
    }
  });

  /** A portal page signed in as `merchantId`, through a sign-in link the admin API made. */
  const portalOf = async (merchantId: string) => {
    const link = await gw.admin('POST', `/merchants/${merchantId}/portal-link`);
    assert.equal(link.status, 201, JSON.stringify(link.body));
    const p = await browser.context.newPage();
    await p.setViewportSize({ width: 1366, height: 900 });
    await p.goto(link.body.url);
    await Promise.all([p.waitForURL(/\/console\/portal$/), p.click('button:text("Continue to the portal")')]);
    await p.goto(`${gw.url}/console/portal/settings`);
    return p;
  };

  test('the portal offers its callback token URL in SNAP B2B token mode: refused as typed, saved, cleared', async () => {
    const m = await gw.createMerchant({
      name: 'Toko Portal B2B',
      callbackSignature: 'snap-b2b',
      callbackBaseUrl: 'https://198.51.100.30/shop',
    });
    const p = await portalOf(m.id);
    try {
      assert.match(await text(p, '#signed-with'), /SNAP B2B token/);
      assert.match(await text(p, '#hint-callbackTokenUrl'), /asks for it here/);
      await p.fill('input[name=callbackTokenUrl]', 'ftp://198.51.100.30/token');
      const refused = await submit(p, 'main button:text("Save")');
      assert.equal(refused.status(), 400);
      assert.match(await text(p, '#form-problems'), /callbackTokenUrl: must be an http\(s\) URL/);
      assert.equal(await p.inputValue('input[name=callbackTokenUrl]'), 'ftp://198.51.100.30/token');
      assert.equal((await stored(m.id)).callbackTokenUrl, null);

      await p.fill('input[name=callbackTokenUrl]', 'https://198.51.100.30/token');
      await submit(p, 'main button:text("Save")');
      assert.match(p.url(), /\/console\/portal\/settings\?ok=saved$/);
      assert.equal((await stored(m.id)).callbackTokenUrl, 'https://198.51.100.30/token');
      await p.reload();
      assert.equal(await auditCount('portal: edit callback URLs', m.id), 1);

      await p.fill('input[name=callbackTokenUrl]', '');
      await submit(p, 'main button:text("Save")');
      assert.equal((await stored(m.id)).callbackTokenUrl, null);
    } finally {
      await p.close();
    }
  });

  test('the portal keeps its limits: no callback token URL outside SNAP B2B token mode, a forged one ignored', async () => {
    const m = await gw.createMerchant({ name: 'Toko Portal HMAC', callbackBaseUrl: 'https://198.51.100.31/shop' });
    const p = await portalOf(m.id);
    try {
      assert.match(await text(p, '#signed-with'), /HMAC-SHA512/);
      assert.equal(await p.$('input[name=callbackTokenUrl]'), null);
      assert.deepEqual((await formNames(p, 'main form[action="/console/portal/settings"]')).sort(), [
        'callbackBaseUrl',
        'qrisCallbackUrl',
        'vaCallbackUrl',
      ]);
      const csrf = await p.inputValue('main form[action="/console/portal/settings"] input[name=_csrf]');
      const status = await p.evaluate(
        async ([token]) =>
          (
            await fetch('/console/portal/settings', {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({
                _csrf: token as string,
                vaCallbackUrl: 'https://198.51.100.31/va',
                callbackTokenUrl: 'https://198.51.100.31/token',
                nmid: 'ID1234567890123',
              }).toString(),
            })
          ).type,
        [csrf],
      );
      assert.equal(status, 'opaqueredirect', 'saved and redirected');
      const after = await stored(m.id);
      assert.equal(after.vaCallbackUrl, 'https://198.51.100.31/va');
      assert.equal(after.callbackTokenUrl, null, 'the forged field is not sent');
      assert.notEqual(after.nmid, 'ID1234567890123');
    } finally {
      await p.close();
    }
  });

  test('a read key sees the settings and the certification link, no form; posting anyway is refused 403', async () => {
    const m = await gw.createMerchant({ name: 'Toko Baca', retrySchedule: '0s,30s' });
    const before = await stored(m.id);
    const key = await gw.admin('POST', '/admin-keys', { name: 'reader', scope: 'read' });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const session = await signInByHand(gw.url, key.body.key);
    const shown = await getPage(gw.url, session, `/console/merchants/${m.id}`);
    assert.equal(shown.status, 200);
    assert.match(shown.text, /<section class="card" id="settings">/);
    assert.match(shown.text, /data-setting="retrySchedule">0s,30s</);
    assert.match(shown.text, new RegExp(`href="/console/merchants/${m.id}/certifications"`));
    assert.doesNotMatch(shown.text, /id="callbacks"/);
    assert.doesNotMatch(shown.text, /<form method="post" action="\/console\/merchants\//);
    assert.equal((await getPage(gw.url, session, '/console/merchants/new')).status, 403);
    const edit = await postForm(gw.url, session, `/console/merchants/${m.id}`, { retrySchedule: '0s' });
    assert.equal(edit.status, 403);
    const create = await postForm(gw.url, session, '/console/merchants', { name: 'Toko Dilarang' });
    assert.equal(create.status, 403);
    assert.deepEqual(await stored(m.id), before);
    assert.equal(
      (await gw.admin('GET', '/merchants?limit=200')).body.items.some((x: Merchant) => x.name === 'Toko Dilarang'),
      false,
    );
  });
});

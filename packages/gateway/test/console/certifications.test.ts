// Webhook certification and SNAP conformance runs from the console, in Debian's Chromium
// (playwright-core) at 1366 px against a sandbox gateway: a run against a merchant receiver that
// verifies signatures (every scenario passes) and against one that acknowledges forgeries (the
// failures first, with their reasons); each refusal in plain words; every validation rule of the
// form shown again at 400 with what was typed; a reload of a run's page runs nothing again
// (counted through the admin API); a read key sees the runs, no form, and is refused (403) when
// it posts anyway. Without Chromium the tests skip with a message, except in CI.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ACKNOWLEDGEMENT, verifyCallback } from '@snapgate/merchant-sdk';
import type { Page, Response } from 'playwright-core';
import { browserSuite, launchChromium } from '../helpers/chromium.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import {
  type ConsoleGateway,
  getPage,
  noticeAfter,
  postForm,
  screenshotPath,
  signInByHand,
  startConsoleGateway,
} from './console-gateway.ts';

const LAPTOP = { width: 1366, height: 900 };
/** What a receiver that verifies signatures must refuse (an HMAC merchant: no `another-key`). */
const FORGERIES = [
  'wrong-signature',
  'signature-of-another-body',
  'another-merchants-secret',
  'stale-timestamp',
  'another-partner-id',
  'missing-signature',
];

/** A merchant's callback endpoint: verifies every callback (merchant-sdk) or, naive, acknowledges anything. */
async function startMerchantEndpoint(verifies: boolean) {
  const credentials = { clientSecret: '', partnerId: '' };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (verifies) {
        try {
          verifyCallback(
            { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) },
            credentials,
          );
        } catch (e) {
          return answer(401, (e as { toBody(): unknown }).toBody());
        }
      }
      return answer(200, ACKNOWLEDGEMENT);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    credentials,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface AuditRow {
  action: string;
  target: string | null;
  httpStatus: number;
  after: Record<string, unknown> | null;
}

/** The audit rows of an action about a merchant, newest first, through the admin API. */
async function rowsOf(gw: TestGateway, action: string, target: string): Promise<AuditRow[]> {
  const r = await gw.admin('GET', `/audit?limit=200&target=${encodeURIComponent(target)}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.items as AuditRow[]).filter((a) => a.action === action);
}

/** A merchant's certification runs, counted through the admin API. */
async function runsOf(gw: TestGateway, merchantId: string): Promise<number> {
  const r = await gw.admin('GET', `/merchants/${merchantId}/certifications`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.items.length;
}

/** The page a refusal redirected to, opened with the notice it left: what it says. */
const refusalAfter = async (url: string, session: string, res: globalThis.Response) =>
  (await noticeAfter(url, session, res)).text;

describe('certification and conformance runs in the console', browserSuite, () => {
  let gw: ConsoleGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let verifying: Awaited<ReturnType<typeof startMerchantEndpoint>>;
  let naive: Awaited<ReturnType<typeof startMerchantEndpoint>>;
  let good: TestMerchant;
  let forgeable: TestMerchant;
  let bare: TestMerchant;
  /** The QRIS the first certification paid: no longer unpaid. */
  let paidQris = '';

  before(async () => {
    verifying = await startMerchantEndpoint(true);
    naive = await startMerchantEndpoint(false);
    gw = await startConsoleGateway();
    good = await gw.createMerchant({ name: 'Toko Teliti', callbackBaseUrl: verifying.url });
    verifying.credentials.clientSecret = good.clientSecret;
    verifying.credentials.partnerId = good.partnerId;
    forgeable = await gw.createMerchant({ name: 'Toko Lengah', callbackBaseUrl: naive.url });
    bare = await gw.createMerchant({ name: 'Toko Tanpa Alamat' });
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.setViewportSize(LAPTOP);
    await page.goto(`${gw.url}/console/login`);
    await page.fill('#key', ADMIN_TOKEN);
    await page.click('main button[type=submit]');
    await page.waitForURL(/\/console\/overview$/);
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await verifying?.close();
    await naive?.close();
  });

  const path = (p: Page) => new URL(p.url()).pathname;
  const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();
  const certificationsOf = (m: TestMerchant) => `${gw.url}/console/merchants/${m.id}/certifications`;
  /** Submits a form: the answer the browser ends on. */
  const submit = async (selector: string): Promise<Response> => {
    const [r] = await Promise.all([page.waitForNavigation(), page.click(selector)]);
    assert.ok(r, `${selector} leads somewhere`);
    return r;
  };
  /** Reloads the page: a GET after which `counts` sees nothing more. */
  const reloadRepeatsNothing = async (counts: () => Promise<unknown>) => {
    const before = await counts();
    const r = (await page.reload()) as Response;
    assert.equal(r.request().method(), 'GET');
    assert.equal(r.status(), 200);
    assert.deepEqual(await counts(), before, `a reload of ${path(page)} changed something`);
  };
  const certify = async (m: TestMerchant, fill: Record<string, string> = {}, create = true) => {
    await page.goto(certificationsOf(m));
    for (const [name, value] of Object.entries(fill)) await page.fill(`#certify-form input[name="${name}"]`, value);
    if (create) await page.check('#certify-form input[name=create]');
    return submit('#certify-form button[type=submit]');
  };

  test('a receiver that verifies signatures passes every scenario; a reload of the run runs nothing', async () => {
    const answer = await certify(good);
    assert.equal(answer.request().redirectedFrom()?.method(), 'POST');
    assert.match(path(page), /^\/console\/certifications\/[0-9a-f-]{36}$/);
    assert.equal(await text('.flash.ok'), 'Certification run: 14 of 14 scenarios passed.');
    assert.match(await text('#run-result'), /all passed\s+14 of 14 scenarios passed, 0 failed/);
    assert.equal(await text('#h-failed'), 'Failed: 0');
    assert.equal(await page.locator('#passed-scenarios tbody').count(), 14);
    // Every cell names its column (the phone layout stacks them).
    const unlabelled = await page.$$eval('table.stack td:not([data-label])', (tds) => tds.length);
    assert.equal(unlabelled, 0);
    const id = path(page).split('/').pop() as string;
    const run = (await gw.admin('GET', `/certifications/${id}`)).body;
    assert.equal(run.passed, true);
    paidQris = run.report.transactions.find((t: { role: string }) => t.role === 'qris-paid').referenceNo;

    await reloadRepeatsNothing(async () => [
      await runsOf(gw, good.id),
      (await rowsOf(gw, 'console: certify merchant', good.id)).length,
    ]);
    assert.equal(await runsOf(gw, good.id), 1);
    assert.equal(await page.$('.flash'), null, 'the outcome is said once');
    const [row] = await rowsOf(gw, 'console: certify merchant', good.id);
    assert.deepEqual(row?.after, { certification: id, ok: true, total: 14, passed: 14, failed: 0 });
    assert.equal(row?.httpStatus, 201);

    // The merchant's list shows it, newest first, with a link to the run.
    await page.goto(certificationsOf(good));
    assert.equal(
      await page.getAttribute('#h-certify ~ .table-wrap tbody tr a', 'href'),
      `/console/certifications/${id}`,
    );
  });

  test('a receiver that acknowledges forgeries fails them: the failures come first, with their reasons', async () => {
    await certify(forgeable);
    assert.equal(await text('.flash.ok'), 'Certification run: 8 of 14 scenarios passed, 6 failed.');
    assert.match(await text('#run-result'), /failed\s+8 of 14 scenarios passed, 6 failed/);
    assert.equal(await text('#h-failed'), 'Failed: 6');
    const failed = await page.$$eval('#failed-scenarios tbody', (bodies) => bodies.map((b) => b.id.slice(9)));
    assert.deepEqual(failed.sort(), [...FORGERIES].sort());
    // The failed table comes before the passed one.
    const order = await page.$$eval('table.stack[id$=-scenarios]', (ts) => ts.map((t) => t.id));
    assert.deepEqual(order, ['failed-scenarios', 'passed-scenarios']);
    assert.equal(
      await text('#scenario-wrong-signature td[data-label=Reason]'),
      'your endpoint accepted a callback with a forged signature: anyone can mark your orders paid',
    );
    assert.match(await text('#scenario-wrong-signature td[data-label=Kind]'), /^negative/);
    // The exchange, as sent and answered.
    await page.click('#scenario-wrong-signature summary');
    const exchange = await text('#scenario-wrong-signature details');
    assert.match(exchange, /POST http:\/\/127\.0\.0\.1:\d+\/webhook\/payment-qr-notification/);
    assert.match(exchange, /x-signature: /);
    assert.match(exchange, /HTTP 200/);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshotPath('certification'), fullPage: true });
    await reloadRepeatsNothing(() => runsOf(gw, forgeable.id));
    assert.equal(await runsOf(gw, forgeable.id), 1);
  });

  test('refusals in plain words: no callback URL, no unpaid transactions without create', async () => {
    await certify(bare);
    assert.equal(path(page), `/console/merchants/${bare.id}/certifications`);
    assert.equal(
      await text('.flash.error'),
      'Nothing was run: the merchant has no QRIS callback URL. Set its callback base URL (or its QRIS and VA callback URLs) on the merchant’s page first.',
    );
    assert.equal(await runsOf(gw, bare.id), 0);
    const [refused] = await rowsOf(gw, 'console: certify merchant (refused)', bare.id);
    assert.equal(refused?.httpStatus, 409);

    // The first run paid and failed its own transactions: nothing unpaid is left.
    await certify(good, {}, false);
    assert.equal(path(page), `/console/merchants/${good.id}/certifications`);
    assert.equal(
      await text('.flash.error'),
      'Nothing was run: the merchant lacks 2 unpaid QRIS and an unpaid VA. Create two QRIS and one VA from the merchant’s own system first (so that it knows the orders), or tick “Create the transactions” to let the certification make its own.',
    );
    await page.reload();
    assert.equal(await page.$('.flash'), null, 'the refusal is said once');
    assert.equal(await runsOf(gw, good.id), 1);
  });

  test('a reference typed wrong: the form again at 400, with the problem and what was typed', async () => {
    const answer = await certify(good, { 'qris.0': 'NOT-A-REF', 'qris.1': 'ALSO-NOT', va: 'NOR-THIS' }, false);
    assert.equal(answer.status(), 400);
    assert.equal(answer.request().method(), 'POST', 'shown again, not redirected');
    assert.match(
      await text('#form-problems'),
      new RegExp(`QRIS NOT-A-REF is not a transaction of merchant ${good.id}`),
    );
    assert.equal(await page.inputValue('#certify-form input[name="qris.0"]'), 'NOT-A-REF');
    assert.equal(await page.inputValue('#certify-form input[name="qris.1"]'), 'ALSO-NOT');
    assert.equal(await page.inputValue('#certify-form input[name=va]'), 'NOR-THIS');
    assert.equal(await page.isChecked('#certify-form input[name=create]'), false);
    assert.equal(await page.textContent('header nav a[aria-current=page]'), 'Merchants', 'the menu stays');
    const [row] = await rowsOf(gw, 'console: certify merchant (refused)', good.id);
    assert.equal(row?.httpStatus, 400);

    // Every other rule of the form (certifyBody and the service), posted as the browser posts it.
    const session = await signInByHand(gw.url);
    const long = 'Q'.repeat(65);
    const caller = await authenticate(gw.url, good);
    const open = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'TELITI-1',
      amount: { value: '15000.00', currency: 'IDR' },
    });
    assert.equal(open.status, 200, open.text);
    const openQris = open.body.referenceNo as string;
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ 'qris.0': openQris }, /QRIS to fail \(qris\.1\): Too small/],
      [{ 'qris.1': openQris }, /QRIS to pay \(qris\.0\): Too small/],
      [{ 'qris.0': long, 'qris.1': openQris }, /QRIS to pay \(qris\.0\): Too big/],
      [{ va: long }, /VA to pay \(va\): Too big/],
      [{ create: 'maybe' }, /Create the transactions \(create\): Invalid input: expected boolean/],
      [{ 'qris.0': openQris, 'qris.1': openQris }, /name exactly two different QRIS transactions/],
      [{ 'qris.0': openQris, 'qris.1': paidQris }, new RegExp(`QRIS ${paidQris} is not unpaid \\(status 00`)],
    ];
    for (const [fields, problem] of cases) {
      const res = await postForm(gw.url, session, `/console/merchants/${good.id}/certifications`, fields);
      const body = await res.text();
      assert.equal(res.status, 400, JSON.stringify(fields));
      const shown = /<div class="flash error" role="alert" id="form-problems">([\s\S]*?)<\/div>/.exec(body)?.[1] ?? '';
      assert.match(shown, problem, JSON.stringify(fields));
      for (const [name, value] of Object.entries(fields)) {
        if (name === 'create') assert.match(body, /name="create" checked/);
        else
          assert.ok(
            body.includes(`name="${name}" class="wide" maxlength="200" value="${value}"`),
            `${name} kept as typed`,
          );
      }
    }
    assert.equal(await runsOf(gw, good.id), 1, 'nothing ran');
    assert.equal((await gw.admin('GET', `/transactions/${openQris}`)).body.status, '01');
  });

  test('a conformance run shows its report; a reload runs nothing again', async () => {
    const transactions = async () =>
      (await gw.admin('GET', `/transactions?merchantId=${good.id}&limit=500`)).body.items.length;
    const before = await transactions();
    await page.goto(certificationsOf(good));
    const answer = await submit('#conformance-form button[type=submit]');
    assert.equal(answer.request().redirectedFrom()?.method(), 'POST');
    assert.match(path(page), new RegExp(`^/console/merchants/${good.id}/conformance/[0-9a-f-]{36}$`));
    const outcome = /^Conformance run: (\d+) of (\d+) scenarios passed\.$/.exec(await text('.flash.ok'));
    assert.ok(outcome, await text('.flash.ok'));
    assert.equal(outcome[1], outcome[2], 'this gateway passes its own conformance');
    const total = Number(outcome[2]);
    assert.ok(total > 50, `${total} scenarios`);
    assert.equal(await text('#h-failed'), 'Failed: 0');
    assert.equal(await page.locator('#passed-scenarios tbody').count(), total);
    assert.ok((await transactions()) > before, 'it made sandbox transactions of its own');

    const counts = async () => [await transactions(), (await rowsOf(gw, 'console: conformance run', good.id)).length];
    await reloadRepeatsNothing(counts);
    assert.deepEqual((await counts())[1], 1);
    assert.equal(await page.$('.flash'), null);
    assert.equal(await text('#h-passed'), `Passed: ${total}`);

    // The audit row says what ran; the report is stored as a run of the conformance suite, with no
    // secret and no live token in clear, and the admin API's certification list does not show it.
    const [row] = await rowsOf(gw, 'console: conformance run', good.id);
    assert.equal(row?.httpStatus, 201);
    const runId = path(page).split('/').pop() as string;
    assert.deepEqual(row?.after, { run: runId, ok: true, total, passed: total, failed: 0 });
    const stored = await gw.store.findCertification(runId);
    assert.equal(stored?.suite, 'snap-server-conformance');
    assert.equal(stored?.merchantId, good.id);
    const kept = stored?.report ?? '';
    assert.ok(!kept.includes(good.clientSecret), 'the client secret is not stored');
    const tokens = [...kept.matchAll(/\\"accessToken\\":\\"([^\\"]*)/g)].map((m) => m[1]);
    assert.ok(tokens.length > 0, 'the token answers are kept');
    assert.deepEqual([...new Set(tokens)], ['[redacted]']);
    const listed = (await gw.admin('GET', `/merchants/${good.id}/certifications`)).body.items as Array<{ id: string }>;
    assert.ok(!listed.some((c) => c.id === runId), 'a conformance run is no certification');
    assert.equal((await gw.admin('GET', `/certifications/${runId}`)).status, 404);

    await page.goto(certificationsOf(good));
    assert.equal(
      await page.getAttribute('#h-conformance ~ .table-wrap tbody tr a', 'href'),
      new URL(answer.url()).pathname,
    );
    await page.screenshot({ path: screenshotPath('certification-runs'), fullPage: true });
  });

  test('conformance is refused in plain words for a disabled merchant', async () => {
    const closed = await gw.createMerchant({ name: 'Toko Tutup' });
    assert.equal((await gw.admin('PATCH', `/merchants/${closed.id}`, { status: 'disabled' })).status, 200);
    const session = await signInByHand(gw.url);
    const page = await getPage(gw.url, session, `/console/merchants/${closed.id}/certifications`);
    assert.ok(!page.text.includes('id="conformance-form"'));
    const res = await postForm(gw.url, session, `/console/merchants/${closed.id}/conformance`, {});
    assert.equal(
      await refusalAfter(gw.url, session, res),
      'Nothing was run: The merchant is disabled, so the gateway refuses its tokens: enable it first to run conformance.',
    );
    assert.equal((await rowsOf(gw, 'console: conformance run (refused)', closed.id))[0]?.httpStatus, 409);
    assert.equal((await rowsOf(gw, 'console: conformance run', closed.id)).length, 0);
  });

  test('a read key sees the runs but no form, and posting anyway is refused (403)', async () => {
    const made = await gw.admin('POST', '/admin-keys', { name: 'auditor', scope: 'read' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const session = await signInByHand(gw.url, made.body.key);
    const list = await getPage(gw.url, session, `/console/merchants/${good.id}/certifications`);
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes('id="certify-form"'));
    assert.ok(!list.text.includes('id="conformance-form"'));
    assert.match(list.text, /Running one needs an admin key/);
    const run = /href="(\/console\/certifications\/[0-9a-f-]{36})"/.exec(list.text)?.[1] as string;
    assert.equal((await getPage(gw.url, session, run)).status, 200);
    const conformance = /href="(\/console\/merchants\/[^"]+\/conformance\/[0-9a-f-]{36})"/.exec(list.text)?.[1];
    assert.equal((await getPage(gw.url, session, conformance as string)).status, 200);

    const runs = await runsOf(gw, good.id);
    const rows = (await rowsOf(gw, 'console: conformance run', good.id)).length;
    for (const action of ['certifications', 'conformance']) {
      const res = await postForm(gw.url, session, `/console/merchants/${good.id}/${action}`, { create: 'on' });
      assert.equal(res.status, 403, action);
      assert.match(await res.text(), /the key auditor has the read scope; this needs admin/);
    }
    assert.equal(await runsOf(gw, good.id), runs);
    assert.equal((await rowsOf(gw, 'console: conformance run', good.id)).length, rows);
  });
});

describe('certification and conformance on a production gateway', () => {
  let gw: TestGateway;
  let session: string;
  let merchant: TestMerchant;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    merchant = await gw.createMerchant({ name: 'Toko Produksi', callbackBaseUrl: 'https://shop.example' });
    session = await signInByHand(gw.url);
  });
  after(async () => {
    await gw?.close();
  });

  test('offers no form, says why, and refuses a post in plain words', async () => {
    const list = await getPage(gw.url, session, `/console/merchants/${merchant.id}/certifications`);
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes('id="certify-form"'));
    assert.ok(!list.text.includes('id="conformance-form"'));
    assert.match(list.text, /id="certify-not-here">Runs only in sandbox mode/);

    const certify = await postForm(gw.url, session, `/console/merchants/${merchant.id}/certifications`, {
      create: 'on',
    });
    assert.equal(
      await refusalAfter(gw.url, session, certify),
      'Nothing was run: webhook certification runs only in sandbox mode, because it pays and fails transactions.',
    );
    const conformance = await postForm(gw.url, session, `/console/merchants/${merchant.id}/conformance`, {});
    assert.equal(
      await refusalAfter(gw.url, session, conformance),
      'Nothing was run: a conformance run creates, cancels and deletes transactions through the payment API; in production mode they would reach real acquirers and banks, so it runs only in sandbox mode.',
    );
    assert.equal(await runsOf(gw, merchant.id), 0);
    assert.equal((await rowsOf(gw, 'console: certify merchant (refused)', merchant.id))[0]?.httpStatus, 409);
    assert.equal((await rowsOf(gw, 'console: conformance run (refused)', merchant.id))[0]?.httpStatus, 409);
    const transactions = await gw.admin('GET', `/transactions?merchantId=${merchant.id}`);
    assert.deepEqual(transactions.body.items, []);
  });
});

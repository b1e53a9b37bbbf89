// The merchant dashboard at /merchant (docs/merchant-users.md#the-dashboard), over real HTTP as a
// browser posts its forms, on both stores: each payment's fee and net, a refund typed then
// confirmed (by an owner or a finance user only), the client secret rotated with an overlap, the
// owner's users page, and every URL tried with another merchant's ids. (In Chromium, on a phone:
// test/console/merchant-dashboard.test.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { signedInUser, type UserBrowser } from '../helpers/merchant-user.ts';
import { authenticate, postToken, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

let emails = 0;
const email = (name: string) => `${name}.${Date.now()}.${++emails}@dashboard.example`;

/** A QRIS of `merchant` for `amount`, paid in the sandbox: its referenceNo. */
async function paidQris(gw: TestGateway, merchant: TestMerchant, amount: string): Promise<string> {
  const qr = await snapCall(gw.url, await authenticate(gw.url, merchant), '/api/snap/v1.0/qr/qr-mpm-generate', {
    partnerReferenceNo: `DASH-${Date.now()}-${++emails}`,
    amount: { value: amount, currency: 'IDR' },
  });
  assert.equal(qr.status, 200, qr.text);
  const referenceNo = qr.body.referenceNo as string;
  assert.equal((await gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, { status: '00' })).status, 200);
  return referenceNo;
}

/** Types a refund on the transaction's page: the answer (the confirmation page, or the form again). */
async function typeRefund(browser: UserBrowser, referenceNo: string, fields: Record<string, string>) {
  const page = await browser.get(`/merchant/transactions/${referenceNo}`);
  assert.equal(page.status, 200, page.text);
  const once = /name="_once" value="([0-9a-f]{16})"/.exec(page.text)?.[1];
  assert.ok(once, 'the page offers the refund form');
  return browser.post(`/merchant/transactions/${referenceNo}/refund`, { _once: once, reason: '', ...fields });
}

/** The confirmation page's hidden fields, as its form posts them. */
function confirmFields(page: string): Record<string, string> {
  const form = /<form method="post" action="[^"]+\/refund\/confirm"[\s\S]*?<\/form>/.exec(page)?.[0] ?? '';
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    if (m[1] !== '_csrf') fields[m[1] as string] = m[2] as string;
  }
  return fields;
}

export function merchantDashboardSuite(under: StoreUnderTest): void {
  describe(`merchant dashboard (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let m: TestMerchant;
    let other: TestMerchant;
    let othersRef: string;
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store, env: { SNAPGATE_RATE_LIMIT: 'off' } });
      m = await gw.createMerchant({
        name: 'Toko Dasbor',
        callbackBaseUrl: 'https://dasbor.example/hooks',
        fees: { qris: { percent: '0.70' } },
      });
      other = await gw.createMerchant({ name: 'Toko Tetangga' });
      othersRef = await paidQris(gw, other, '30000.00');
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('lists each payment with its fee and net, and shows them on its page', async () => {
      const ref = await paidQris(gw, m, '100000.00');
      const { browser } = await signedInUser(gw, m.id, email('viewer'), 'viewer');
      const list = await browser.get(`/merchant/transactions?ref=${ref}`);
      assert.equal(list.status, 200);
      const row = new RegExp(`<tr data-reference="${ref}">[\\s\\S]*?</tr>`).exec(list.text)?.[0] ?? '';
      // QRIS at 0.70 %.
      assert.match(row, /data-label="Fee" class="num">Rp 700,00</);
      assert.match(row, /data-label="Net" class="num net">Rp 99\.300,00</);
      const page = await browser.get(`/merchant/transactions/${ref}`);
      assert.match(page.text, /id="txn-fee">Rp 700,00</);
      assert.match(page.text, /id="txn-net">Rp 99\.300,00/);
    });

    it('refunds what is typed once confirmed, and says what remains', async () => {
      const ref = await paidQris(gw, m, '50000.00');
      const { browser } = await signedInUser(gw, m.id, email('finance'), 'finance');
      const page = await browser.get(`/merchant/transactions/${ref}`);
      assert.match(page.text, /name="refundAmount"[^>]*value=""/, 'the amount is not filled in');
      const confirm = await typeRefund(browser, ref, { refundAmount: '20000.00', reason: 'rusak' });
      assert.equal(confirm.status, 200, confirm.text);
      assert.match(confirm.text, /id="confirm-amount"><strong>Rp 20\.000,00</);
      assert.match(confirm.text, /id="confirm-after">Rp 30\.000,00</);
      // Nothing is refunded before the confirmation.
      assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.refundedAmount.value, '0.00');
      const fields = confirmFields(confirm.text);
      const done = await browser.post(`/merchant/transactions/${ref}/refund/confirm`, fields);
      assert.equal(done.status, 303, done.text);
      assert.equal(done.location, `/merchant/transactions/${ref}`);
      const txn = (await gw.admin('GET', `/transactions/${ref}`)).body;
      assert.equal(txn.refundedAmount.value, '20000.00');
      assert.equal(txn.status, '00', 'a partial refund leaves it paid');
      const after = await browser.get(done.location as string);
      assert.match(after.text, /Refunded Rp 20\.000,00 of .*Rp 30\.000,00 remains refundable/);
      assert.match(after.text, /id="txn-net">Rp 29\.650,00/, 'net: 50,000 less the fee 350 and the refund');
      // The same confirmation sent again refunds nothing more (its number is the idempotency key).
      const twice = await browser.post(`/merchant/transactions/${ref}/refund/confirm`, fields);
      assert.equal(twice.status, 303, twice.text);
      assert.match(
        (await browser.get(twice.location as string)).text,
        /This refund was made already: refund .* of Rp 20\.000,00\. Nothing more was refunded/,
      );
      assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.refundedAmount.value, '20000.00');
      // The audit log names the user.
      const audit = await gw.admin('GET', `/audit?target=${ref}`);
      const rows = audit.body.items.filter((a: { action: string }) => a.action === 'dashboard: refund');
      assert.ok(
        rows.some(
          (a: { keyName: string; httpStatus: number }) => a.httpStatus === 303 && /\(finance\)$/.test(a.keyName),
        ),
        JSON.stringify(rows),
      );
    });

    it('refuses a bad amount, more than remains, and a refund of a payment not refundable', async () => {
      const ref = await paidQris(gw, m, '10000.00');
      const { browser } = await signedInUser(gw, m.id, email('owner'), 'owner');
      const cases: Array<[string, RegExp]> = [
        ['', /write it like 5000\.00/],
        ['5000', /write it like 5000\.00/],
        ['0.00', /more than 0\.00/],
        ['1.000,00', /write it like 5000\.00/],
        ['-5.00', /write it like 5000\.00/],
        ['10000.01', /more than what remains to refund, Rp 10\.000,00/],
      ];
      for (const [refundAmount, why] of cases) {
        const r = await typeRefund(browser, ref, { refundAmount });
        assert.equal(r.status, 400, refundAmount);
        assert.match(r.text, why, refundAmount);
        assert.match(r.text, /Nothing was refunded/);
      }
      const refusedRows = (await gw.admin('GET', `/audit?target=${ref}`)).body.items.filter(
        (a: { action: string }) => a.action === 'dashboard: refund (refused)',
      );
      assert.equal(refusedRows.length, cases.length, 'each refused form is audited as refused');
      const long = await typeRefund(browser, ref, { refundAmount: '1.00', reason: 'x'.repeat(257) });
      assert.equal(long.status, 400);
      assert.match(long.text, /Reason: at most 256 characters/);
      // A confirmation forged past the amount's check is checked again.
      const forged = await browser.post(`/merchant/transactions/${ref}/refund/confirm`, {
        _once: 'aaaaaaaaaaaaaaaa',
        refundAmount: '99999.00',
      });
      assert.equal(forged.status, 400);
      assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.refundedAmount.value, '0.00');
      // A payment not paid has nothing to refund: said on its page.
      const unpaid = await snapCall(gw.url, await authenticate(gw.url, m), '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `DASH-UNPAID-${Date.now()}`,
        amount: { value: '5000.00', currency: 'IDR' },
      });
      const unpaidRef = unpaid.body.referenceNo as string;
      const page = await browser.get(`/merchant/transactions/${unpaidRef}`);
      assert.equal(page.text.includes('id="refund-form"'), false);
      const refused = await browser.post(`/merchant/transactions/${unpaidRef}/refund`, { refundAmount: '1.00' });
      assert.equal(refused.status, 303);
      assert.match((await browser.get(refused.location as string)).text, /not paid .*nothing to refund/);
    });

    it('lets only an owner or a finance user refund', async () => {
      const ref = await paidQris(gw, m, '8000.00');
      for (const role of ['developer', 'viewer']) {
        const { browser } = await signedInUser(gw, m.id, email(role), role);
        const page = await browser.get(`/merchant/transactions/${ref}`);
        assert.equal(page.text.includes('id="refund-form"'), false, role);
        assert.match(page.text, /id="refund-not-yours"/, role);
        // Replay is a developer's: a viewer is offered none.
        assert.equal(page.text.includes('/replay"'), role === 'developer', role);
        for (const path of ['refund', 'refund/confirm']) {
          const r = await browser.post(`/merchant/transactions/${ref}/${path}`, {
            _once: 'bbbbbbbbbbbbbbbb',
            refundAmount: '1.00',
          });
          assert.equal(r.status, 403, `${role} ${path}`);
        }
      }
      assert.equal((await gw.admin('GET', `/transactions/${ref}`)).body.refundedAmount.value, '0.00');
    });

    it('rotates the client secret with an overlap, shown once, by a developer', async () => {
      const keys = await gw.createMerchant({ name: 'Toko Kunci' });
      const { browser } = await signedInUser(gw, keys.id, email('developer'), 'developer');
      const page = await browser.get('/merchant/client-secret');
      assert.equal(page.status, 200);
      assert.match(page.text, new RegExp(`id="client-key" class="ids">${keys.clientKey}<`));
      assert.equal(page.text.includes(keys.clientSecret), false, 'the secret is never shown again');
      // Only the overlaps offered.
      const odd = await browser.post('/merchant/client-secret', { overlapSec: '123', version: '1' });
      assert.equal(odd.status, 303);
      assert.match((await browser.get('/merchant/client-secret')).text, /not rotated: choose one of the overlaps/);
      const v0 = /name="version" value="(\d+)"/.exec(
        (await browser.get('/merchant/client-secret')).text,
      )?.[1] as string;
      const rotated = await browser.post('/merchant/client-secret', { overlapSec: '86400', version: v0 });
      assert.equal(rotated.status, 303, rotated.text);
      assert.equal(rotated.location, '/merchant/client-secret/new');
      const shown = await browser.get('/merchant/client-secret/new');
      assert.equal(shown.headers.get('cache-control'), 'no-store');
      const secret = /id="client-secret" readonly value="([^"]+)"/.exec(shown.text)?.[1];
      assert.ok(secret, shown.text);
      assert.match(shown.text, /The previous secret keeps working until/);
      assert.match((await browser.get('/merchant/client-secret/new')).text, /was shown once/, 'once');
      // Both secrets take a token during the overlap.
      assert.equal((await postToken(gw.url, { clientKey: keys.clientKey, clientSecret: secret })).status, 200);
      assert.equal(
        (await postToken(gw.url, { clientKey: keys.clientKey, clientSecret: keys.clientSecret })).status,
        200,
      );
      assert.match((await browser.get('/merchant/client-secret')).text, /previous secret still works until/);
      // The same page sent twice (a double click, two tabs): the second is refused, the overlap kept.
      const page2 = await browser.get('/merchant/client-secret');
      assert.match(page2.text, /id="rotate-again-warning"/);
      const version = /name="version" value="(\d+)"/.exec(page2.text)?.[1] as string;
      assert.equal((await browser.post('/merchant/client-secret', { overlapSec: '3600', version })).status, 303);
      await browser.get('/merchant/client-secret/new');
      const again = await browser.post('/merchant/client-secret', { overlapSec: '3600', version });
      assert.equal(again.status, 303);
      assert.match((await browser.get(again.location as string)).text, /not rotated again: it was rotated meanwhile/);
      assert.equal(
        (await postToken(gw.url, { clientKey: keys.clientKey, clientSecret: secret })).status,
        200,
        'the secret before the refused rotation still works',
      );
      // Nothing of the secret in the audit log.
      const audit = JSON.stringify((await gw.admin('GET', `/audit?target=${keys.id}`)).body);
      assert.match(audit, /dashboard: rotate client secret/);
      assert.equal(audit.includes(secret), false);
      // A viewer reads the key, and may not rotate.
      const viewer = await signedInUser(gw, keys.id, email('viewer'), 'viewer');
      const read = await viewer.browser.get('/merchant/client-secret');
      assert.match(read.text, /id="rotate-not-yours"/);
      assert.equal((await viewer.browser.post('/merchant/client-secret', { overlapSec: '0' })).status, 403);
    });

    it('lets an owner manage the users, but not their own account, and no one else', async () => {
      const shop = await gw.createMerchant({ name: 'Toko Orang' });
      const owner = await signedInUser(gw, shop.id, email('owner'), 'owner');
      const list = await owner.browser.get('/merchant/users');
      assert.equal(list.status, 200);
      assert.match(list.text, /\(you\)/);
      const address = email('kasir');
      const invited = await owner.browser.post('/merchant/users', { email: address, role: 'viewer' });
      assert.equal(invited.status, 303, invited.text);
      const shown = await owner.browser.get('/merchant/users/invited');
      const link = /id="invitation-link" readonly value="([^"]+)"/.exec(shown.text)?.[1];
      assert.match(link ?? '', /\/merchant\/invitation\/[\w-]{43}$/);
      assert.match((await owner.browser.get('/merchant/users/invited')).text, /was shown once/);
      const users = (await gw.admin('GET', `/merchants/${shop.id}/users`)).body.items as Array<{
        id: string;
        email: string;
      }>;
      const kasir = users.find((u) => u.email === address);
      assert.ok(kasir);
      await owner.browser.get('/merchant/users');
      const role = await owner.browser.post(`/merchant/users/${kasir.id}/role`, { role: 'finance' });
      assert.equal(role.status, 303);
      assert.equal((await gw.admin('GET', `/merchants/${shop.id}/users/${kasir.id}`)).body.role, 'finance');
      // Not their own account: no owner locks themselves out.
      for (const path of ['role', 'disable']) {
        const self = await owner.browser.post(`/merchant/users/${owner.id}/${path}`, { role: 'viewer' });
        assert.equal(self.status, 303, path);
        assert.match((await owner.browser.get('/merchant/users')).text, /your own account is changed by another owner/);
      }
      assert.equal((await gw.admin('GET', `/merchants/${shop.id}/users/${owner.id}`)).body.role, 'owner');
      // Another merchant's user is not found.
      const stranger = await signedInUser(gw, m.id, email('stranger'), 'viewer');
      await owner.browser.get('/merchant/users');
      assert.equal((await owner.browser.post(`/merchant/users/${stranger.id}/disable`, {})).status, 404);
      assert.equal((await gw.admin('GET', `/merchants/${m.id}/users/${stranger.id}`)).body.status, 'active');
      // Any other role: no users page, no change.
      const finance = await signedInUser(gw, shop.id, email('finance'), 'finance');
      assert.equal((await finance.browser.get('/merchant/users')).status, 403);
      assert.equal((await finance.browser.post('/merchant/users', { email: email('x'), role: 'owner' })).status, 403);
      const disabled = await owner.browser.post(`/merchant/users/${kasir.id}/disable`, {});
      assert.equal(disabled.status, 303);
      assert.equal((await gw.admin('GET', `/merchants/${shop.id}/users/${kasir.id}`)).body.status, 'disabled');
      const audit = JSON.stringify((await gw.admin('GET', `/audit?target=${kasir.id}`)).body);
      assert.match(audit, /dashboard: disable merchant user/);
      assert.match(audit, /merchant user owner\.[^ ]+ \(owner\)/);
    });

    it('makes and deactivates payment links, by an owner or a finance user only', async () => {
      const { browser } = await signedInUser(gw, m.id, email('links'), 'finance');
      const list = await browser.get('/merchant/links');
      assert.equal(list.status, 200);
      assert.match(list.text, /name="method:qris" checked/);
      // Refused as typed: nothing made, the form again with what was wrong.
      const refused = await browser.post('/merchant/links', { description: '', amount: 'lima ribu' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /No link was made/);
      assert.match(refused.text, /description: required/);
      assert.match(refused.text, /Ways to pay: choose at least one/);
      assert.match(refused.text, /amount: an amount such as 85000/);
      assert.match(refused.text, /value="lima ribu"/, 'kept as typed');
      const made = await browser.post('/merchant/links', {
        description: 'Kue lapis',
        amount: '45000',
        expiresInDays: '7',
        singleUse: 'on',
        'method:qris': 'on',
      });
      assert.equal(made.status, 303, made.text);
      const id = /\/merchant\/links\/(pl_[\w-]+)$/.exec(made.location ?? '')?.[1] as string;
      assert.ok(id, made.location ?? '');
      const page = await browser.get(`/merchant/links/${id}`);
      assert.match(page.text, new RegExp(`id="link-url" readonly value="${gw.url}/l/${id}"`));
      const api = (await gw.admin('GET', `/merchants/${m.id}/links/${id}`)).body;
      assert.deepEqual([api.amount.value, api.methods, api.singleUse], ['45000.00', ['qris'], true]);
      assert.ok(Date.parse(api.expiresAt) > Date.now() + 6 * 86_400_000);
      // A viewer reads it, and may not make or deactivate one.
      const viewer = await signedInUser(gw, m.id, email('links-viewer'), 'viewer');
      const read = await viewer.browser.get(`/merchant/links/${id}`);
      assert.equal(read.status, 200);
      assert.equal(read.text.includes('id="deactivate"'), false);
      assert.equal((await viewer.browser.get('/merchant/links')).text.includes('id="link-form"'), false);
      assert.equal((await viewer.browser.post(`/merchant/links/${id}/deactivate`, {})).status, 403);
      assert.equal((await viewer.browser.post('/merchant/links', { description: 'x' })).status, 403);
      // Another merchant's link is not found, read or deactivated.
      const theirs = await gw.admin('POST', `/merchants/${other.id}/links`, { description: 'Milik orang lain' });
      assert.equal((await browser.get(`/merchant/links/${theirs.body.id}`)).status, 404);
      await browser.get(`/merchant/links/${id}`);
      assert.equal((await browser.post(`/merchant/links/${theirs.body.id}/deactivate`, {})).status, 404);
      assert.equal((await gw.admin('GET', `/merchants/${other.id}/links/${theirs.body.id}`)).body.active, true);
      const off = await browser.post(`/merchant/links/${id}/deactivate`, {});
      assert.equal(off.status, 303);
      assert.match((await browser.get(`/merchant/links/${id}`)).text, /deactivated: it takes no payment/);
      assert.equal((await fetch(`${gw.url}/l/${id}`)).status, 410);
      const audit = JSON.stringify((await gw.admin('GET', `/audit?target=${id}`)).body);
      assert.match(audit, /dashboard: make payment link/);
      assert.match(audit, /dashboard: deactivate payment link/);
    });

    it('never shows or changes another merchant’s records, whatever the URL', async () => {
      const { browser } = await signedInUser(gw, m.id, email('nosy-owner'), 'owner');
      const missing = await browser.get('/merchant/nope');
      assert.equal(missing.status, 404);
      assert.match(missing.text, /href="\/merchant"/, 'a way back to the dashboard');
      assert.match(missing.text, /snapgate merchant dashboard/);
      const settlement = await gw.admin('POST', '/settlements', { merchantId: other.id });
      const settlementId = settlement.body.items?.[0]?.id as string;
      assert.ok(settlementId, JSON.stringify(settlement.body));
      const gets = [
        `/merchant/transactions/${othersRef}`,
        `/merchant/transactions/${othersRef}/live`,
        `/merchant/transactions?ref=${othersRef}`,
        `/merchant/settlements/${settlementId}`,
        `/merchant/settlements/${settlementId}/report.csv`,
        '/merchant/payouts',
        '/merchant/deliveries',
      ];
      for (const path of gets) {
        const r = await browser.get(path);
        assert.ok([200, 404].includes(r.status), `${path}: ${r.status}`);
        assert.equal(r.text.includes(`/transactions/${othersRef}"`), false, path);
        assert.equal(r.text.includes('Toko Tetangga'), false, path);
        assert.equal(r.text.includes('id="settlement-summary"'), false, path);
        assert.equal(r.text.includes('Rp 30.000,00'), false, path);
      }
      await browser.get('/merchant/transactions');
      for (const path of [`${othersRef}/refund`, `${othersRef}/refund/confirm`]) {
        const r = await browser.post(`/merchant/transactions/${path}`, {
          _once: 'cccccccccccccccc',
          refundAmount: '1.00',
        });
        assert.equal(r.status, 404, path);
      }
      assert.equal((await gw.admin('GET', `/transactions/${othersRef}`)).body.refundedAmount.value, '0.00');
    });
  });
}

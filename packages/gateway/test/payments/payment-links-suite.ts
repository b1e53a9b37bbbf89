// Payment links (docs/payment-links.md), on both stores, over real HTTP: the admin API makes, lists,
// reads and deactivates a merchant's links (every rule with its bad input); a payer opens /l/<id>
// (Bahasa Indonesia and English), picks a method, lands on the ordinary checkout page, pays in the
// sandbox, and the merchant's real receiver gets callbacks that carry additionalInfo.paymentLinkId.
// A single-use link stops once paid; an expired or deactivated link says so.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock, type ManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });

export function paymentLinksSuite(under: StoreUnderTest): void {
  describe(`payment links (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let receiver: Receiver;
    let clock: ManualClock;
    let m: TestMerchant;
    let other: TestMerchant;

    before(async () => {
      receiver = await startReceiver();
      const opened = await under.open();
      cleanup = opened.cleanup;
      clock = createManualClock(Date.now());
      gw = await startGateway({
        store: opened.store,
        clock,
        dispatch: true,
        env: { SNAPGATE_RATE_LIMIT: 'off', SNAPGATE_RETRY_SCHEDULE: '0s,1s' },
      });
      m = await gw.createMerchant({ name: 'Toko Tautan', callbackBaseUrl: receiver.baseUrl });
      other = await gw.createMerchant({ name: 'Toko Sebelah' });
    });
    after(async () => {
      await gw.close();
      await cleanup();
      await receiver.close();
    });

    const make = async (body: Record<string, unknown>, merchantId = m.id) => {
      const r = await gw.admin('POST', `/merchants/${merchantId}/links`, body);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body as { id: string; url: string; state: string; methods: string[] };
    };
    /** The payer's browser: the link's page, then its form as the page posts it. */
    const open = async (id: string, lang?: string) => {
      const r = await fetch(`${gw.url}/l/${id}${lang ? `?lang=${lang}` : ''}`);
      return { status: r.status, text: await r.text() };
    };
    const choose = async (id: string, fields: Record<string, string>) => {
      const r = await fetch(`${gw.url}/l/${id}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams(fields).toString(),
      });
      return { status: r.status, location: r.headers.get('location'), text: await r.text() };
    };
    const checkoutIdOf = (location: string | null) => /\/pay\/([^/?]+)/.exec(location ?? '')?.[1] ?? '';
    const paymentsOf = async (id: string, merchantId = m.id) =>
      (await gw.admin('GET', `/merchants/${merchantId}/links/${id}`)).body as {
        state: string;
        payments: Array<{ referenceNo: string; status: string; method: string; amount: { value: string } }>;
      };
    const callbacksFor = (referenceNo: string) =>
      receiver.received
        .map((r) => JSON.parse(r.body) as Record<string, any>)
        .filter((b) => b.originalReferenceNo === referenceNo || b.referenceNo === referenceNo);

    it('refuses a link with bad fields, every problem at once, and an unknown merchant', async () => {
      const bad = await gw.admin('POST', `/merchants/${m.id}/links`, {
        amount: { value: '10.5', currency: 'IDR' },
        minAmount: idr('1000.00'),
        expiresAt: 'tomorrow',
        singleUse: 'yes',
        methods: ['qris', 'va:123456', 'cash'],
        returnUrl: 'ftp://toko.example',
        colour: 'red',
      });
      assert.equal(bad.status, 400);
      const problems = JSON.stringify(bad.body);
      for (const why of [
        /colour: not a field/,
        /description: required/,
        /amount: \{\\"value\\": \\"10000.00\\"/,
        /expiresAt: an ISO 8601 time/,
        /singleUse: true or false/,
        /returnUrl: an https URL/,
        /methods: va:123456, cash not offered here/,
      ]) {
        assert.match(problems, why);
      }
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ description: 'x', amount: idr('0.00') }, /amount: more than 0.00/],
        [{ description: 'x', amount: idr('5000.00'), maxAmount: idr('9000.00') }, /only for a link whose amount/],
        [{ description: 'x', minAmount: idr('9000.00'), maxAmount: idr('5000.00') }, /minAmount: not more than/],
        [{ description: 'x', expiresAt: new Date(clock.now() - 60_000).toISOString() }, /expiresAt: in the future/],
        [{ description: 'x'.repeat(201) }, /description: required, at most 200/],
        [{ description: 'x', methods: [] }, /methods: a list of/],
        [{ description: 'x', amount: { value: '5000.00', currency: 'USD' } }, /amount: \{/],
      ];
      for (const [body, why] of cases) {
        const r = await gw.admin('POST', `/merchants/${m.id}/links`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.match(JSON.stringify(r.body), why);
      }
      assert.equal((await gw.admin('POST', '/merchants/m_nope/links', { description: 'x' })).status, 404);
      assert.equal((await gw.admin('GET', '/merchants/m_nope/links')).status, 404);
    });

    it('takes a payment by QRIS through a single-use link, then stops; callbacks name the link', async () => {
      const link = await make({ description: 'Kopi susu gula aren, 2 liter', amount: idr('85000.00') });
      assert.match(link.id, /^pl_[\w-]{22}$/);
      assert.equal(link.url, `${gw.url}/l/${link.id}`);
      assert.equal(link.state, 'open');
      assert.ok(link.methods.includes('qris'), JSON.stringify(link.methods));
      assert.ok(
        link.methods.some((x) => x.startsWith('va:')),
        'every bank’s VA by default',
      );
      const page = await open(link.id);
      assert.equal(page.status, 200);
      assert.match(page.text, /Bayar ke[\s\S]*Toko Tautan/);
      assert.match(page.text, /Kopi susu gula aren, 2 liter/);
      assert.match(page.text, /id="link-amount">Rp 85\.000</);
      assert.match(page.text, /Pilih cara bayar/);
      assert.match((await open(link.id, 'en')).text, /Choose how to pay/);

      const chosen = await choose(link.id, { method: 'qris' });
      assert.equal(chosen.status, 303, chosen.text);
      const checkoutId = checkoutIdOf(chosen.location);
      assert.ok(checkoutId, chosen.location ?? '');
      assert.equal((await fetch(chosen.location as string)).status, 200, 'the ordinary checkout page');
      // The same choice again, before it is paid: the same payment (one payment, whoever pays it).
      assert.equal(checkoutIdOf((await choose(link.id, { method: 'qris' })).location), checkoutId);
      const [payment] = (await paymentsOf(link.id)).payments;
      assert.ok(payment);
      assert.deepEqual([payment.method, payment.status, payment.amount.value], ['qris', '01', '85000.00']);
      assert.equal((await gw.admin('POST', `/sandbox/qris/${payment.referenceNo}/pay`, { status: '00' })).status, 200);
      const paid = await waitFor('the payment’s callback', () =>
        callbacksFor(payment.referenceNo).find((b) => b.latestTransactionStatus === '00'),
      );
      assert.equal(paid.additionalInfo.paymentLinkId, link.id);
      const after = await paymentsOf(link.id);
      assert.equal(after.state, 'paid');
      assert.equal(after.payments[0]?.status, '00');
      // Paid once: the page says so, and no payment is made.
      const closed = await open(link.id);
      assert.equal(closed.status, 410);
      assert.match(closed.text, /sudah dibayar/);
      assert.equal((await choose(link.id, { method: 'qris' })).status, 410);
      assert.equal((await paymentsOf(link.id)).payments.length, 1);
    });

    it('takes payments of a typed amount within its limits, by VA and e-wallet, many times', async () => {
      const link = await make({
        description: 'Donasi',
        minAmount: idr('10000.00'),
        maxAmount: idr('500000.00'),
        singleUse: false,
        methods: ['va:999', 'ewallet:SANDBOXPAY'],
      });
      const page = await open(link.id);
      assert.match(page.text, /name="amount"/);
      assert.match(page.text, /Antara Rp 10\.000 dan Rp 500\.000/);
      assert.equal(page.text.includes('value="qris"'), false, 'only the methods chosen');
      for (const amount of ['9999', '500001', 'sepuluh ribu', '', '-10000']) {
        const r = await choose(link.id, { method: 'va:999', amount });
        assert.equal(r.status, 400, amount);
        assert.match(r.text, /Jumlahnya tidak sesuai/);
      }
      assert.equal((await choose(link.id, { method: 'qris', amount: '20000' })).status, 400, 'a method not offered');
      const va = await choose(link.id, { method: 'va:999', amount: '25000' });
      assert.equal(va.status, 303, va.text);
      const wallet = await choose(link.id, { method: 'ewallet:SANDBOXPAY', amount: '30000.00' });
      assert.equal(wallet.status, 303, wallet.text);
      const payments = (await paymentsOf(link.id)).payments;
      assert.deepEqual(payments.map((p) => [p.method, p.amount.value]).sort(), [
        ['ewallet', '30000.00'],
        ['va', '25000.00'],
      ]);
      const walletPayment = payments.find((p) => p.method === 'ewallet');
      assert.ok(walletPayment);
      assert.equal(
        (await gw.admin('POST', `/sandbox/ewallet/${walletPayment.referenceNo}/pay`, { status: '00' })).status,
        200,
      );
      const paid = await waitFor('the e-wallet callback', () =>
        callbacksFor(walletPayment.referenceNo).find((b) => b.latestTransactionStatus === '00'),
      );
      assert.equal(paid.additionalInfo.paymentLinkId, link.id);
      // Not single-use: still open after a payment.
      assert.equal((await paymentsOf(link.id)).state, 'open');
      assert.equal((await open(link.id)).status, 200);
    });

    it('says an expired or a deactivated link takes no payment', async () => {
      const soon = await make({
        description: 'Promo',
        amount: idr('5000.00'),
        expiresAt: new Date(clock.now() + 60_000).toISOString(),
      });
      assert.equal((await open(soon.id)).status, 200);
      clock.advance(61_000);
      const expired = await open(soon.id);
      assert.equal(expired.status, 410);
      assert.match(expired.text, /kedaluwarsa/);
      assert.equal((await paymentsOf(soon.id)).state, 'expired');

      const off = await make({ description: 'Lama', amount: idr('5000.00') });
      assert.equal((await gw.admin('PATCH', `/merchants/${m.id}/links/${off.id}`, { active: true })).status, 400);
      const deactivated = await gw.admin('PATCH', `/merchants/${m.id}/links/${off.id}`, { active: false });
      assert.equal(deactivated.status, 200);
      assert.deepEqual([deactivated.body.active, deactivated.body.state], [false, 'inactive']);
      assert.equal((await gw.admin('PATCH', `/merchants/${m.id}/links/${off.id}`, { active: false })).status, 409);
      const page = await open(off.id, 'en');
      assert.equal(page.status, 410);
      assert.match(page.text, /no longer active/);
      assert.equal((await choose(off.id, { method: 'qris' })).status, 410);
      assert.equal((await open('pl_doesnotexist000000000')).status, 404);
    });

    it('takes one payment through a single-use link, whatever payers do at once', async () => {
      const link = await make({ description: 'Satu-satunya', amount: idr('70000.00') });
      // Four payers choose at the same moment: one payment is made; the others get it, or are told to try again.
      const answers = await Promise.all([1, 2, 3, 4].map(() => choose(link.id, { method: 'qris' })));
      for (const a of answers) assert.ok([303, 409].includes(a.status), `${a.status} ${a.text.slice(0, 200)}`);
      const under = (await paymentsOf(link.id)).payments.filter((p) => ['01', '02', '03'].includes(p.status));
      assert.equal(under.length, 1, JSON.stringify((await paymentsOf(link.id)).payments));
      // Another way to pay cancels the first, so only one can ever be paid.
      const va = await choose(link.id, { method: 'va:999' });
      assert.equal(va.status, 303, va.text);
      const payments = (await paymentsOf(link.id)).payments;
      const qris = payments.find((p) => p.method === 'qris');
      const vaPayment = payments.find((p) => p.method === 'va');
      assert.equal(qris?.status, '05', 'the QRIS is cancelled');
      assert.equal(vaPayment?.status, '01');
      assert.notEqual((await gw.admin('POST', `/sandbox/qris/${qris?.referenceNo}/pay`, { status: '00' })).status, 200);
      const txn = (await gw.admin('GET', `/transactions/${vaPayment?.referenceNo}`)).body;
      const paid = await gw.admin('POST', `/sandbox/va/${encodeURIComponent(txn.virtualAccountNo)}/pay`, {});
      assert.ok(paid.status < 300, JSON.stringify(paid.body));
      assert.equal((await paymentsOf(link.id)).state, 'paid');
      assert.equal((await choose(link.id, { method: 'qris' })).status, 410);
      const statuses = (await paymentsOf(link.id)).payments.map((p) => p.status).sort();
      assert.deepEqual(
        statuses.filter((x) => x === '00'),
        ['00'],
        'exactly one paid',
      );
    });

    it('reads amounts as payers write them, and not below Rp 1.000 unless the link says so', async () => {
      const link = await make({ description: 'Bebas', singleUse: false, methods: ['qris'] });
      for (const typed of ['50.000', '50.000,00', '50000,00', '050000', 'Rp 50.000', 'Rp50000.00']) {
        const r = await choose(link.id, { method: 'qris', amount: typed });
        assert.equal(r.status, 303, typed);
      }
      const amounts = (await paymentsOf(link.id)).payments.map((p) => p.amount.value);
      assert.deepEqual(new Set(amounts), new Set(['50000.00']));
      for (const typed of ['0,01', '1.50', '999', '5.0000', '1.000.00', '12,5']) {
        assert.equal((await choose(link.id, { method: 'qris', amount: typed })).status, 400, typed);
      }
      // A single-use link with a typed amount: a new amount replaces the payment under way.
      const once = await make({ description: 'Sekali', minAmount: idr('1.00'), methods: ['qris'] });
      assert.equal((await choose(once.id, { method: 'qris', amount: '5' })).status, 303, 'its own minimum');
      assert.equal((await choose(once.id, { method: 'qris', amount: '6' })).status, 303);
      const statuses = (await paymentsOf(once.id)).payments.map((p) => [p.amount.value, p.status]);
      assert.deepEqual(statuses, [
        ['6.00', '01'],
        ['5.00', '05'],
      ]);
    });

    it('refuses a return URL no payment would take, and reads a disabled merchant’s links as inactive', async () => {
      const bad = await gw.admin('POST', `/merchants/${m.id}/links`, {
        description: 'x',
        returnUrl: 'https://user:pass@toko.example/back',
      });
      assert.equal(bad.status, 400);
      assert.match(JSON.stringify(bad.body), /returnUrl: an https URL without a user or password/);
      const shop = await gw.createMerchant({ name: 'Toko Tutup' });
      const link = await make({ description: 'Tutup', amount: idr('1000.00') }, shop.id);
      assert.equal((await gw.admin('PATCH', `/merchants/${shop.id}`, { status: 'disabled' })).status, 200);
      assert.equal((await paymentsOf(link.id, shop.id)).state, 'inactive');
      assert.equal((await open(link.id)).status, 410);
    });

    it('cancels a deactivated link’s payments still unpaid', async () => {
      const link = await make({ description: 'Batal', amount: idr('3000.00'), singleUse: false });
      assert.equal((await choose(link.id, { method: 'qris' })).status, 303);
      assert.equal((await gw.admin('PATCH', `/merchants/${m.id}/links/${link.id}`, { active: false })).status, 200);
      const [payment] = (await paymentsOf(link.id)).payments;
      assert.equal(payment?.status, '05', 'no payment of a deactivated link can be paid');
    });

    it('lists a merchant’s links by pages, and never another merchant’s', async () => {
      const mine = await make({ description: 'Satu', amount: idr('1000.00') }, other.id);
      clock.advance(1); // newest first: the second is made a millisecond later
      await make({ description: 'Dua', amount: idr('2000.00') }, other.id);
      const first = await gw.admin('GET', `/merchants/${other.id}/links?limit=1`);
      assert.equal(first.status, 200);
      assert.equal(first.body.items.length, 1);
      assert.ok(first.body.nextCursor);
      const second = await gw.admin('GET', `/merchants/${other.id}/links?limit=1&cursor=${first.body.nextCursor}`);
      assert.equal(second.body.items[0].id, mine.id);
      assert.equal((await gw.admin('GET', `/merchants/${m.id}/links/${mine.id}`)).status, 404);
      assert.equal(
        (await gw.admin('PATCH', `/merchants/${m.id}/links/${mine.id}`, { active: false })).status,
        404,
        'another merchant’s link is not found',
      );
      assert.equal((await gw.admin('GET', `/merchants/${m.id}/links?cursor=${mine.id}`)).status, 400);
    });

    it('refuses a choice posted from another site', async () => {
      const link = await make({ description: 'Aman', amount: idr('1000.00') });
      const r = await fetch(`${gw.url}/l/${link.id}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
        body: 'method=qris',
      });
      assert.equal(r.status, 403);
      assert.equal((await paymentsOf(link.id)).payments.length, 0);
    });
  });
}

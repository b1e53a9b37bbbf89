// The checkout's guards and budget (docs/checkout.md): production refuses a returnUrl in clear and
// has no sandbox button; a sandbox payment is taken only from the page itself; every client
// address is held to its limits with a friendly 429 page; the page stays under 30 KB before its QR
// and paints without script; the language a payer reads; the keep-alive of open streams.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CHECKOUT_CSS, CHECKOUT_JS, CSS_PATH, JS_PATH } from '../../src/checkout/checkout-assets.ts';
import { createEventStreams } from '../../src/checkout/checkout-events.ts';
import { checkoutPage } from '../../src/checkout/checkout-page.ts';
import type { CheckoutView } from '../../src/checkout/checkout-state.ts';
import { langOf } from '../../src/checkout/checkout-text.ts';
import { createCheckoutLive } from '../../src/checkout/live.ts';
import { systemClock } from '../../src/clock.ts';
import type { TransactionRecord } from '../../src/records/records.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { type SnapCaller, snapCall } from '../helpers/snap.ts';
import { openEvents, QR, qrisOrder, shop, vaOrder } from './checkout-kit.ts';

const UNKNOWN = 'AAAAAAAAAAAAAAAAAAAAAA';

describe('the checkout in production mode', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    c = (await shop(gw, { nmid: 'ID1020304050607' })).caller;
  });
  after(() => gw.close());

  it('refuses a returnUrl in clear http, takes an https one', async () => {
    const refused = await snapCall(gw.url, c, `${QR}/qr-mpm-generate`, {
      partnerReferenceNo: `PROD-${Date.now()}`,
      amount: { value: '10000.00', currency: 'IDR' },
      additionalInfo: { returnUrl: 'http://shop.example/done' },
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, {
      responseCode: '4004701',
      responseMessage: 'Invalid Field Format {additionalInfo.returnUrl}',
    });
    const o = await qrisOrder(gw, c, { returnUrl: 'https://shop.example/done' });
    assert.match(o.checkoutUrl, /\/pay\/[A-Za-z0-9_-]{22}$/);
  });

  it('shows no sandbox button, and has no sandbox door', async () => {
    const o = await qrisOrder(gw, c);
    const page = await (await fetch(o.checkoutUrl)).text();
    assert.doesNotMatch(page, /sandbox/i);
    const post = await fetch(`${o.checkoutUrl}/sandbox-pay`, { method: 'POST', redirect: 'manual' });
    assert.equal(post.status, 404);
    assert.equal((await gw.store.findTransaction(o.referenceNo))?.status, '01');
  });
});

describe('the checkout in sandbox mode', () => {
  let gw: TestGateway;
  let c: SnapCaller;
  before(async () => {
    gw = await startGateway();
    c = (await shop(gw)).caller;
  });
  after(() => gw.close());

  const postPay = (url: string, headers: Record<string, string>, body = '') =>
    fetch(`${url}/sandbox-pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });

  it('takes a sandbox payment only from its own page, never from another site', async () => {
    const o = await qrisOrder(gw, c);
    const strangers: Array<Record<string, string>> = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site', origin: 'null' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of strangers) {
      const res = await postPay(o.checkoutUrl, headers);
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.match(await res.text(), /Permintaan ditolak/);
    }
    assert.equal((await gw.store.findTransaction(o.referenceNo))?.status, '01');
    const ok = await postPay(o.checkoutUrl, { 'sec-fetch-site': 'same-origin', origin: 'null' });
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get('location'), `/pay/${o.checkoutId}`);
    assert.equal((await gw.store.findTransaction(o.referenceNo))?.status, '00');
    const again = await postPay(o.checkoutUrl, { origin: gw.url });
    assert.equal(again.headers.get('location'), `/pay/${o.checkoutId}?sandbox=refused`);
  });

  it('asks the amount of an open-amount VA, and pays it', async () => {
    const o = await vaOrder(gw, c, { open: true });
    const page = await (await fetch(o.checkoutUrl)).text();
    assert.match(page, /Nominal bebas/);
    assert.match(page, /<input name="amount"/);
    const without = await postPay(o.checkoutUrl, { origin: gw.url });
    assert.equal(without.headers.get('location'), `/pay/${o.checkoutId}?sandbox=refused`);
    const refusedPage = await (await fetch(`${o.checkoutUrl}?sandbox=refused`)).text();
    assert.match(refusedPage, /Pembayaran sandbox ditolak/);
    const paid = await postPay(o.checkoutUrl, { origin: gw.url }, 'amount=20000');
    assert.equal(paid.headers.get('location'), `/pay/${o.checkoutId}`);
    const txn = await gw.store.findTransaction(o.referenceNo);
    assert.equal(txn?.status, '00');
    assert.equal(txn?.paidAmount, '20000.00');
    assert.match(await (await fetch(o.checkoutUrl)).text(), /Rp 20\.000/);
  });

  it('weighs under 30 KB before its QR (HTML, CSS and script), paints without script, takes nothing inline', async () => {
    for (const o of [await qrisOrder(gw, c, { returnUrl: 'https://shop.example/x' }), await vaOrder(gw, c)]) {
      const page = await (await fetch(o.checkoutUrl)).text();
      const css = await (await fetch(`${gw.url}${CSS_PATH}`)).text();
      const js = await (await fetch(`${gw.url}${JS_PATH}`)).text();
      const bytes =
        Buffer.byteLength(page.replace(/<svg[\s\S]*<\/svg>/, '')) + Buffer.byteLength(css) + Buffer.byteLength(js);
      assert.ok(bytes < 30 * 1024, `${bytes} bytes`);
      assert.match(page, new RegExp(`<script src="${JS_PATH.replace(/[?.]/g, '\\$&')}" defer></script>`));
      assert.equal(page.match(/<script/g)?.length, 1, 'one script, by its URL');
      assert.doesNotMatch(page, /\sstyle=|\son[a-z]+=/, 'no inline style or handler');
    }
  });

  it('serves its stylesheet and script with cache headers: a year under their version, minutes without', async () => {
    const css = await fetch(`${gw.url}${CSS_PATH}`);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(css.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(await css.text(), CHECKOUT_CSS);
    const js = await fetch(`${gw.url}/pay/assets/checkout.js`);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('cache-control'), 'public, max-age=300');
    assert.equal(await js.text(), CHECKOUT_JS);
  });

  /** A QRIS page's view while it waits for its payment; `over` changes what a case is about. */
  const waitingQris = (over: Partial<CheckoutView>): CheckoutView => ({
    checkoutId: UNKNOWN,
    kind: 'qris',
    state: 'waiting',
    status: '01',
    seq: 1,
    merchantName: 'KOPI SENJA',
    amount: '15000.00',
    paidAmount: null,
    referenceNo: '261126000000000001',
    orderNo: 'ORDER-1',
    payBy: Date.now() + 60_000,
    paidAt: null,
    returnUrl: undefined,
    frameAncestors: [],
    qrContent: 'x',
    ...over,
  });

  it('renders a QRIS an acquirer has not issued yet as being prepared, reloading itself', () => {
    const view = waitingQris({ qrContent: '' });
    const page = checkoutPage({ view, lang: 'id', nowMs: Date.now() });
    assert.match(page, /Kode QRIS sedang disiapkan/);
    assert.match(page, /<meta http-equiv="refresh" content="3">/);
    assert.doesNotMatch(page, /<svg/);
  });

  it('names the QR after the merchant as written, `$` and all (no replacement pattern)', () => {
    const view = waitingQris({ merchantName: "CASH$'N $& CARRY" });
    const page = checkoutPage({ view, lang: 'en', nowMs: Date.now(), qrSvg: '<svg viewBox="0 0 1 1"></svg>' });
    const label = /<svg role="img" aria-label="([^"]*)"/.exec(page)?.[1] ?? '';
    assert.match(label, /CASH\$&#39;N \$&amp; CARRY/);
    assert.doesNotMatch(label, /<svg/);
  });
});

describe('the checkout’s event streams under a client that hangs up early, and a gateway closing', () => {
  it('keeps nothing of a stream whose client left while its checkout was being looked up, nor one that comes after closeAll', async () => {
    const live = createCheckoutLive();
    const streams = createEventStreams({ live, clock: systemClock });
    const txn = { referenceNo: 'R3', status: '01', statusDesc: 'Initiated', seq: 1, paidAt: null, expiresAt: null };
    let arrived = 0;
    let release: () => void = () => undefined;
    const lookedUp = new Promise<void>((resolve) => {
      release = resolve;
    });
    const served: Promise<void>[] = [];
    const server = createServer((_req, res) => {
      arrived++;
      // The lookup of the checkout, slow: the client hangs up meanwhile.
      served.push(lookedUp.then(() => streams.serve(res, 'R3', async () => txn as unknown as TransactionRecord)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const aborters = Array.from({ length: 5 }, () => new AbortController());
      const requests = aborters.map((a) => fetch(url, { signal: a.signal }).catch(() => undefined));
      await waitFor('every request at the server', () => arrived === 5);
      for (const a of aborters) a.abort();
      await Promise.all(requests);
      // Every socket is gone before the lookup answers.
      await waitFor(
        'the sockets closed',
        () => new Promise<boolean>((resolve) => server.getConnections((_e, n) => resolve(n === 0))),
      );
      release();
      await Promise.all(served);
      assert.equal(streams.size, 0, 'no stream kept');
      assert.equal(live.listeners, 0, 'no subscription kept');

      // Closing: a stream that reaches serve() after closeAll is ended at once.
      streams.closeAll();
      const late = await fetch(url);
      await late.text();
      assert.equal(streams.size, 0);
      assert.equal(live.listeners, 0);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('the checkout’s limits per client address', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  /** Requests until the first 429 (the window may turn over a minute once on the way). */
  const until429 = async (send: () => Promise<Response>, limit: number) => {
    for (let i = 0; i < 2 * limit + 2; i++) {
      const res = await send();
      if (res.status === 429) return res;
      await res.arrayBuffer();
    }
    assert.fail(`no 429 within ${2 * limit + 2} requests`);
  };

  it('answers pages, event streams and sandbox payments over the limit with a friendly 429 page', async () => {
    const c = (await shop(gw)).caller;
    const o = await qrisOrder(gw, c);
    const page = await until429(() => fetch(o.checkoutUrl), 300);
    assert.match(page.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'$/);
    assert.match(await page.text(), /Terlalu banyak permintaan[\s\S]*Mohon tunggu \d+ detik/);
    const en = await fetch(o.checkoutUrl, { headers: { 'accept-language': 'en' } });
    assert.equal(en.status, 429);
    assert.match(await en.text(), /Too many requests/);

    const events = await until429(() => fetch(`${gw.url}/pay/${UNKNOWN}/events`), 300);
    assert.match(await events.text(), /Terlalu banyak permintaan/);
    const pay = await until429(
      () => fetch(`${gw.url}/pay/${UNKNOWN}/sandbox-pay`, { method: 'POST', redirect: 'manual' }),
      30,
    );
    assert.equal(pay.status, 429);
    // The limits are the checkout's own: the payment API is not held by them.
    assert.equal(
      (await snapCall(gw.url, c, `${QR}/qr-mpm-query`, { originalReferenceNo: o.referenceNo, serviceCode: '47' }))
        .status,
      200,
    );
  });
});

describe('the checkout’s language and keep-alive', () => {
  it('reads Indonesian by default, English when the browser prefers it, a toggle over both', () => {
    assert.equal(langOf(undefined, undefined, undefined), 'id');
    assert.equal(langOf(undefined, undefined, 'fr-FR, de;q=0.8'), 'id');
    assert.equal(langOf(undefined, undefined, 'en-US,en;q=0.9,id;q=0.8'), 'en');
    assert.equal(langOf(undefined, undefined, 'id-ID,id;q=0.9,en-US;q=0.8'), 'id');
    assert.equal(langOf(undefined, undefined, 'id;q=0.5, en;q=0.9'), 'en');
    assert.equal(langOf(undefined, undefined, 'fr, en;q=0.7'), 'en');
    assert.equal(langOf(undefined, 'en', 'id'), 'en');
    assert.equal(langOf('id', 'en', 'en'), 'id');
    assert.equal(langOf('xx', undefined, undefined), 'id');
  });

  it('writes the keep-alive comment to every open stream from one interval, and stops with the last', async () => {
    const live = createCheckoutLive();
    const streams = createEventStreams({ live, clock: systemClock, keepAliveMs: 50 });
    const txn = { referenceNo: 'R1', status: '01', statusDesc: 'Initiated', seq: 1, paidAt: null, expiresAt: null };
    const server = createServer((_req, res) => {
      void streams.serve(res, 'R1', async () => txn as unknown as TransactionRecord);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const aborter = new AbortController();
    try {
      const a = await openEvents(url, { signal: aborter.signal });
      const b = await openEvents(url, { signal: aborter.signal });
      await waitFor('keep-alives on both', () => a.comments.length >= 2 && b.comments.length >= 2);
      assert.deepEqual([...new Set([...a.comments, ...b.comments])], [': keep-alive']);
      assert.equal(streams.size, 2);
      live.publish({ referenceNo: 'R1', status: '00', statusDesc: 'Success', seq: 2 });
      await Promise.all([a.done, b.done]);
      assert.deepEqual(
        a.events.map((e) => e.state),
        ['waiting', 'paid'],
      );
      assert.equal(streams.size, 0);
      assert.equal(live.listeners, 0);
    } finally {
      aborter.abort();
      server.closeAllConnections();
      server.close();
    }
  });

  it('ends a stream open longer than its renewal age, for the page to open it again and read the state anew', async () => {
    const live = createCheckoutLive();
    const streams = createEventStreams({ live, clock: systemClock, keepAliveMs: 20, renewAfterMs: 100 });
    const txn = { referenceNo: 'R2', status: '01', statusDesc: 'Initiated', seq: 1, paidAt: null, expiresAt: null };
    const server = createServer((_req, res) => {
      void streams.serve(res, 'R2', async () => txn as unknown as TransactionRecord);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const aborter = new AbortController();
    try {
      const a = await openEvents(url, { signal: aborter.signal });
      await a.done;
      assert.deepEqual(
        a.events.map((e) => e.state),
        ['waiting'],
        'ended while waiting: not a final state',
      );
      assert.equal(streams.size, 0);
      assert.equal(live.listeners, 0);
      // Opened again, it is told the state as it is now.
      txn.status = '00';
      txn.statusDesc = 'Success';
      txn.seq = 2;
      const b = await openEvents(url, { signal: aborter.signal });
      await b.done;
      assert.deepEqual(
        b.events.map((e) => e.state),
        ['paid'],
      );
    } finally {
      aborter.abort();
      server.closeAllConnections();
      server.close();
    }
  });
});

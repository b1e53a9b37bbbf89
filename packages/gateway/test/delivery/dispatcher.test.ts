import assert from 'node:assert/strict';
import { createHash, createHmac, createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseSnapTimestamp } from '@snapgate/snap';
import { createManualClock } from '../../src/clock.ts';
import { LostRace } from '../../src/payments/status-change.ts';
import { UniqueViolation } from '../../src/records/records.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { ACK, ack, closedPort, type Receiver, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const FAST = {
  SNAPGATE_RETRY_SCHEDULE: '0s,50ms,50ms,50ms',
  SNAPGATE_CALLBACK_TIMEOUT_MS: '300',
  SNAPGATE_RATE_LIMIT: 'off',
};
/** FAST, with a callback timeout no busy machine reaches: a test that counts attempts or claims. */
const PATIENT = { ...FAST, SNAPGATE_CALLBACK_TIMEOUT_MS: '10000' };
let refs = 0;
const ref = () => `DLV-${Date.now()}-${++refs}`;

async function setup(env: Record<string, string> = {}) {
  const receiver = await startReceiver();
  const gw = await startGateway({ dispatch: true, env: { ...FAST, ...env } });
  return { receiver, gw };
}

async function newQris(gw: TestGateway, c: SnapCaller, value = '10000.00') {
  const r = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
    partnerReferenceNo: ref(),
    amount: { value, currency: 'IDR' },
  });
  assert.equal(r.status, 200, r.text);
  return r.body as { referenceNo: string; partnerReferenceNo: string };
}

const pay = (gw: TestGateway, referenceNo: string, body: Record<string, unknown> = {}) =>
  gw.admin('POST', `/sandbox/qris/${referenceNo}/pay`, body);
const stateOf = async (gw: TestGateway, referenceNo: string) =>
  (await gw.store.notificationsOf(referenceNo)).map((n) => [n.latestStatus, n.state]);

describe('callback delivery (docs/protocol.md#callbacks)', () => {
  let receiver: Receiver;
  let gw: TestGateway;
  let m: TestMerchant;
  let c: SnapCaller;
  before(async () => {
    ({ receiver, gw } = await setup());
    m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop`, partnerId: 'PARTNER-DLV' });
    c = await authenticate(gw.url, m);
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  it('POSTs the exact body with the documented headers and an HMAC-SHA512 signature the merchant can verify', async () => {
    receiver.set(ack);
    const q = await newQris(gw, c, '15000.00');
    await pay(gw, q.referenceNo, { payerName: 'SITI', payerIssuer: '93600014', payerRefId: '123456' });
    const r = await waitFor('the callback', () => receiver.received.find((x) => x.body.includes(q.referenceNo)));
    const [stored] = await gw.store.notificationsOf(q.referenceNo);
    assert.ok(stored);
    assert.equal(r.method, 'POST');
    assert.equal(r.url, '/shop/webhook/payment-qr-notification');
    assert.equal(r.body, stored.body, 'the stored bytes are the bytes sent');
    assert.equal(r.headers['content-type'], 'application/json');
    assert.equal(r.headers['x-partner-id'], 'PARTNER-DLV');
    assert.equal(r.headers['x-external-id'], stored.id);
    const ts = r.headers['x-timestamp'] as string;
    assert.match(ts, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);
    assert.ok(Math.abs((parseSnapTimestamp(ts) as number) - Date.now()) < 5000);
    // Verified here independently of the gateway's code.
    const hash = createHash('sha256').update(r.body).digest('hex');
    const expected = createHmac('sha512', m.clientSecret)
      .update(`POST:/shop/webhook/payment-qr-notification:PARTNER-DLV:${hash}:${ts}`)
      .digest('base64');
    assert.equal(r.headers['x-signature'], expected);
    const body = JSON.parse(r.body);
    assert.equal(body.latestTransactionStatus, '00');
    assert.deepEqual(body.amount, { value: '15000.00', currency: 'IDR' });
    assert.equal(body.additionalInfo.payerName, 'SITI');
    const n = await waitFor('delivered', async () =>
      (await gw.store.findNotification(stored.id))?.state === 'delivered'
        ? gw.store.findNotification(stored.id)
        : undefined,
    );
    assert.equal(n?.attemptCount, 1);
    const shown = await gw.admin('GET', `/notifications/${stored.id}`);
    assert.equal(shown.body.state, 'delivered');
    assert.equal(shown.body.attempts.length, 1);
    assert.equal(shown.body.attempts[0].responseStatus, 200);
    assert.equal(shown.body.attempts[0].responseBody, ACK);
    assert.equal(shown.body.attempts[0].requestBody, stored.body);
    assert.equal(shown.body.attempts[0].url, `${receiver.baseUrl}/shop/webhook/payment-qr-notification`);
  });

  it('sends VA payments to the VA path', async () => {
    receiver.set(ack);
    const v = await snapCall(gw.url, c, '/api/snap/v1.0/transfer-va/create-va', {
      virtualAccountName: 'A',
      trxId: ref(),
      totalAmount: { value: '100.00', currency: 'IDR' },
    });
    const vaNo = v.body.virtualAccountData.virtualAccountNo as string;
    await gw.admin('POST', `/sandbox/va/${encodeURIComponent(vaNo)}/pay`, {});
    const r = await waitFor('the VA callback', () =>
      receiver.received.find((x) => x.body.includes(v.body.virtualAccountData.trxId)),
    );
    assert.equal(r.url, '/shop/webhook/payment-va-notification');
  });

  for (const [name, failing] of [
    ['an HTTP 500', (_q: unknown, res: import('node:http').ServerResponse) => res.writeHead(500).end('oops')],
    [
      'a 200 with another responseCode',
      (_q: unknown, res: import('node:http').ServerResponse) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"responseCode":"5002600"}'),
    ],
    [
      'a 200 whose body is not JSON',
      (_q: unknown, res: import('node:http').ServerResponse) => res.writeHead(200).end('OK'),
    ],
    [
      'a redirect (never followed)',
      (_q: unknown, res: import('node:http').ServerResponse) => res.writeHead(302, { location: '/elsewhere' }).end(),
    ],
    [
      'a timeout',
      (_q: unknown, res: import('node:http').ServerResponse) =>
        void setTimeout(() => res.writeHead(200).end(ACK), 1000),
    ],
  ] as const) {
    it(`retries after ${name}, with the same X-EXTERNAL-ID and body bytes`, async () => {
      const q = await newQris(gw, c);
      let calls = 0;
      receiver.set((req, res, n) => {
        if (!req.body.includes(q.referenceNo)) return ack(req, res, n);
        calls++;
        return calls === 1 ? failing(req, res) : ack(req, res, n);
      });
      await pay(gw, q.referenceNo);
      const [n] = await gw.store.notificationsOf(q.referenceNo);
      await waitFor(
        'delivered after a retry',
        async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered',
      );
      const mine = receiver.received.filter((x) => x.body.includes(q.referenceNo));
      assert.ok(mine.length >= 2);
      assert.equal(new Set(mine.map((x) => x.headers['x-external-id'])).size, 1);
      assert.equal(new Set(mine.map((x) => x.body)).size, 1);
      assert.equal(
        receiver.received.some((x) => x.url === '/elsewhere'),
        false,
      );
      const attempts = await gw.store.attemptsOf(n?.id ?? '');
      assert.equal(attempts.at(-1)?.outcome, 'acknowledged');
      assert.notEqual(attempts[0]?.outcome, 'acknowledged');
    });
  }

  it('marks a notification dead after the last scheduled attempt', async () => {
    const q = await newQris(gw, c);
    receiver.set((req, res, n) =>
      req.body.includes(q.referenceNo) ? void res.writeHead(503).end() : ack(req, res, n),
    );
    await pay(gw, q.referenceNo);
    const [n] = await gw.store.notificationsOf(q.referenceNo);
    const dead = await waitFor('dead', async () => {
      const x = await gw.store.findNotification(n?.id ?? '');
      return x?.state === 'dead' ? x : undefined;
    });
    assert.equal(dead.attemptCount, 4, 'one attempt per schedule step');
    assert.equal(dead.nextAttemptAt, null);
    const report = await gw.admin('GET', `/reports/undelivered?merchantId=${m.id}`);
    assert.ok(
      report.body.items.some(
        (x: { referenceNo: string; state: string }) => x.referenceNo === q.referenceNo && x.state === 'dead',
      ),
    );

    receiver.set(ack);
    const since = new Date(Date.now() - 60_000).toISOString();
    const rec = await gw.admin('POST', `/merchants/${m.id}/recover`, { since });
    assert.equal(rec.status, 200);
    assert.ok(rec.body.recovered >= 1);
    await waitFor(
      'recovered and delivered',
      async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered',
    );
    const after = await gw.admin('GET', `/reports/undelivered?merchantId=${m.id}`);
    assert.equal(
      after.body.items.some((x: { referenceNo: string }) => x.referenceNo === q.referenceNo),
      false,
    );
  });

  it('replays a delivered notification with a fresh timestamp and signature and the same X-EXTERNAL-ID', async () => {
    receiver.set(ack);
    const q = await newQris(gw, c);
    await pay(gw, q.referenceNo);
    const [n] = await gw.store.notificationsOf(q.referenceNo);
    await waitFor('delivered', async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered');
    await new Promise((r) => setTimeout(r, 1100)); // X-TIMESTAMP has whole seconds: let one pass
    const r = await gw.admin('POST', `/notifications/${n?.id}/replay`);
    assert.equal(r.status, 202);
    const both = await waitFor('the replay', () => {
      const mine = receiver.received.filter((x) => x.body.includes(q.referenceNo));
      return mine.length >= 2 ? mine : undefined;
    });
    assert.equal(both[0]?.headers['x-external-id'], both[1]?.headers['x-external-id']);
    assert.equal(both[0]?.body, both[1]?.body);
    assert.notEqual(both[0]?.headers['x-timestamp'], both[1]?.headers['x-timestamp']);
    assert.notEqual(both[0]?.headers['x-signature'], both[1]?.headers['x-signature']);
    assert.equal((await gw.admin('POST', '/notifications/99999/replay')).status, 404);
  });

  it('latest wins: one attempt in flight per transaction, and never an older status after a newer', async () => {
    const q = await newQris(gw, c);
    let release: (() => void) | undefined;
    receiver.set((req, res, n) => {
      if (!req.body.includes(q.referenceNo)) return ack(req, res, n);
      const status = JSON.parse(req.body).latestTransactionStatus;
      if (status === '03') {
        // Hold the 03 in flight, then fail it.
        return new Promise<void>((resolve) => {
          release = () => {
            res.writeHead(500).end();
            resolve();
          };
        });
      }
      return ack(req, res, n);
    });
    await pay(gw, q.referenceNo, { status: '03' });
    await waitFor('03 in flight', () => release);
    await pay(gw, q.referenceNo, { status: '00' });
    // While the 03 is in flight, the 00 must wait.
    await new Promise((r) => setTimeout(r, 200));
    const seen = () =>
      receiver.received
        .filter((x) => x.body.includes(q.referenceNo))
        .map((x) => JSON.parse(x.body).latestTransactionStatus);
    assert.deepEqual(seen(), ['03']);
    release?.();
    await waitFor('00 delivered', async () =>
      (await stateOf(gw, q.referenceNo)).some(([s, st]) => s === '00' && st === 'delivered'),
    );
    assert.deepEqual(seen(), ['03', '00']);
    assert.deepEqual(await stateOf(gw, q.referenceNo), [
      ['03', 'superseded'],
      ['00', 'delivered'],
    ]);
    const old = (await gw.store.notificationsOf(q.referenceNo))[0];
    assert.equal(
      (await gw.admin('POST', `/notifications/${old?.id}/replay`)).status,
      409,
      'an older notification is not replayed',
    );
  });

  it('exports attempts by outcome, delivery latency and the backlog', async () => {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    assert.match(text, /snapgate_callback_attempts_total\{outcome="acknowledged"\} [1-9]/);
    assert.match(text, /snapgate_callback_attempts_total\{outcome="error"\} [1-9]/);
    assert.match(text, /snapgate_callback_delivery_seconds_count [1-9]/);
    assert.match(text, /snapgate_callback_backlog \d/);
    assert.match(text, /snapgate_callback_oldest_undelivered_age_seconds \d/);
  });
});

describe('a merchant that is down for a while', () => {
  let receiver: Receiver;
  let gw: TestGateway;
  before(async () => {
    ({ receiver, gw } = await setup({
      SNAPGATE_RETRY_SCHEDULE: '0s,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms',
    }));
  });
  after(async () => {
    await gw.close();
    await receiver.close();
  });

  it('retries after a refused connection, then delivers once the merchant is up', async () => {
    const port = await closedPort();
    const down = await gw.createMerchant({ callbackBaseUrl: `http://127.0.0.1:${port}` });
    const dc = await authenticate(gw.url, down);
    const q = await newQris(gw, dc);
    await pay(gw, q.referenceNo);
    const [n] = await gw.store.notificationsOf(q.referenceNo);
    await waitFor('a refused attempt', async () => (await gw.store.attemptsOf(n?.id ?? '')).length >= 1);
    const first = (await gw.store.attemptsOf(n?.id ?? ''))[0];
    assert.equal(first?.outcome, 'error');
    assert.match(first?.error ?? '', /ECONNREFUSED/);
    receiver.set(ack);
    await gw.admin('PATCH', `/merchants/${down.id}`, { callbackBaseUrl: receiver.baseUrl });
    await waitFor(
      'delivered',
      async () => (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered',
      15_000,
    );
  });

  it('latest wins while the merchant is down: only the newest status goes out', async () => {
    const port = await closedPort();
    const down = await gw.createMerchant({ callbackBaseUrl: `http://127.0.0.1:${port}` });
    const dc = await authenticate(gw.url, down);
    const q = await newQris(gw, dc);
    await pay(gw, q.referenceNo, { status: '02' });
    await pay(gw, q.referenceNo, { status: '03' });
    await pay(gw, q.referenceNo, { status: '00' });
    receiver.set(ack);
    await gw.admin('PATCH', `/merchants/${down.id}`, { callbackBaseUrl: receiver.baseUrl });
    await waitFor(
      '00 delivered',
      async () => (await stateOf(gw, q.referenceNo)).some(([s, st]) => s === '00' && st === 'delivered'),
      15_000,
    );
    const seen = receiver.received
      .filter((x) => x.body.includes(q.referenceNo))
      .map((x) => JSON.parse(x.body).latestTransactionStatus);
    assert.deepEqual(seen, ['00']);
  });
});

describe('rsa-sha256 callbacks', () => {
  it('signs with the gateway key whose public half is served at the well-known URL', async () => {
    const { receiver, gw } = await setup();
    try {
      const m = await gw.createMerchant({ callbackBaseUrl: receiver.baseUrl, callbackSignature: 'rsa-sha256' });
      const c = await authenticate(gw.url, m);
      const q = await newQris(gw, c);
      await pay(gw, q.referenceNo);
      const r = await waitFor('the callback', () => receiver.received.find((x) => x.body.includes(q.referenceNo)));
      const pemRes = await fetch(`${gw.url}/.well-known/snapgate/callback-public-key.pem`);
      assert.equal(pemRes.status, 200);
      const key = createPublicKey(await pemRes.text());
      const hash = createHash('sha256').update(r.body).digest('hex');
      const data = `POST:/webhook/payment-qr-notification:${hash}:${r.headers['x-timestamp']}`;
      assert.equal(
        verify('sha256', Buffer.from(data), key, Buffer.from(r.headers['x-signature'] as string, 'base64')),
        true,
      );
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});

describe('production mode', () => {
  it('refuses at send time a callback host that resolves to a loopback address (DNS rebinding)', async () => {
    const { receiver, gw } = await setup({ SNAPGATE_MODE: 'production' });
    try {
      // The operator's NMID: production issues no QRIS with one the gateway made up.
      const m = await gw.createMerchant({ callbackBaseUrl: 'https://merchant.example', nmid: 'ID1020021181745' });
      // As if the name now resolved to loopback: write the URL past the admin API's checks.
      await gw.store.updateMerchant(m.id, { callbackBaseUrl: `https://localhost:${receiver.port}` }, Date.now());
      const c = await authenticate(gw.url, m);
      const q = await newQris(gw, c);
      const txn = await gw.store.findTransaction(q.referenceNo);
      await gw.gateway.changer.change(
        txn as NonNullable<typeof txn>,
        { to: '00', providerId: 'test-acquirer' },
        Date.now(),
      );
      const [n] = await gw.store.notificationsOf(q.referenceNo);
      const attempts = await waitFor('a refused attempt', async () => {
        const a = await gw.store.attemptsOf(n?.id ?? '');
        return a.length > 0 ? a : undefined;
      });
      assert.equal(attempts[0]?.outcome, 'error');
      assert.match(attempts[0]?.error ?? '', /forbidden address/);
      assert.equal(receiver.received.length, 0);
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});

describe('claim at birth', () => {
  it('sends a new notification as its change commits: the change claims it, no claim of the loop hands it out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-birth-'));
    const store = new SqliteStore({ file: join(dir, 'snapgate.db') });
    // Watches the real store: every notification the claim loop hands out.
    const handedOut = new Set<string>();
    const claimDue = store.claimDueNotifications.bind(store);
    store.claimDueNotifications = async (...args) => {
      const claimed = await claimDue(...args);
      for (const n of claimed) handedOut.add(n.id);
      return claimed;
    };
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true, store, env: FAST });
    try {
      receiver.set(ack);
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const q = await newQris(gw, c);
      assert.equal((await pay(gw, q.referenceNo)).status, 200);
      const [n] = await gw.store.notificationsOf(q.referenceNo);
      assert.ok(n);
      const delivered = await waitFor('delivered', async () => {
        const found = await gw.store.findNotification(n.id);
        return found?.state === 'delivered' ? found : undefined;
      });
      assert.equal(delivered.attemptCount, 1);
      assert.equal((await gw.store.attemptsOf(n.id)).length, 1);
      assert.equal(handedOut.has(n.id), false, 'sent without a claim of its own');
      assert.equal(receiver.received.filter((r) => r.body.includes(q.referenceNo)).length, 1);
    } finally {
      await gw.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives back every place a change did not use: a lost race, a change the store refused', async () => {
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true, env: FAST });
    try {
      receiver.set(ack);
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const { changer } = gw.gateway;
      const stale = await gw.store.findTransaction((await newQris(gw, c)).referenceNo);
      assert.ok(stale);
      await changer.change(stale, { to: '00', providerId: 'test-acquirer' }, Date.now());
      // Decided on the row as read, which another change moved meanwhile: a lost race.
      await assert.rejects(
        changer.change(stale, { to: '00', decidedOnRead: true, providerId: 'test-acquirer' }, Date.now()),
        LostRace,
      );
      // Refused by the store: its idempotency record is taken already.
      const other = await gw.store.findTransaction((await newQris(gw, c)).referenceNo);
      assert.ok(other);
      const taken = {
        merchantId: m.id,
        day: '2026-01-01',
        externalId: '77',
        requestHash: 'h',
        httpStatus: 200,
        responseBody: '{}',
      };
      await gw.store.insertIdempotency(taken, Date.now());
      await assert.rejects(
        changer.change(other, { to: '00', idempotency: taken, providerId: 'test-acquirer' }, Date.now()),
        (e: unknown) => e instanceof UniqueViolation,
      );
      // A place never given back counts as in flight for ever: the dispatcher would never be idle.
      const idle = await Promise.race([
        gw.gateway.dispatcher.drain().then(() => 'idle'),
        new Promise((resolve) => setTimeout(() => resolve('still waiting for a place'), 5000)),
      ]);
      assert.equal(idle, 'idle');
    } finally {
      await gw.close();
      await receiver.close();
    }
  });

  it('does not send one whose lease a slow commit used up: it is claimed again once the lease runs out', async () => {
    const clock = createManualClock(Date.now());
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-birth-'));
    const store = new SqliteStore({ file: join(dir, 'snapgate.db') });
    const changeStatus = store.changeStatus.bind(store);
    let slowCommits = false;
    store.changeStatus = async (change) => {
      // The lease (5.3 s: a 300 ms callback timeout + 5 s) runs from the reservation: a commit
      // 4.5 s late leaves less than a whole attempt.
      if (slowCommits) clock.advance(4500);
      return changeStatus(change);
    };
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true, store, clock, env: FAST });
    try {
      receiver.set(ack);
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const txn = await gw.store.findTransaction((await newQris(gw, c)).referenceNo);
      assert.ok(txn);
      slowCommits = true;
      await gw.gateway.changer.change(txn, { to: '00', providerId: 'test-acquirer' }, clock.now());
      const [n] = await gw.store.notificationsOf(txn.referenceNo);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, 0, 'not sent on a lease that could run out mid-send');
      assert.deepEqual([n?.state, n?.claimedBy], ['delivering', gw.gateway.dispatcher.workerId]);
      clock.advance(2000);
      await waitFor('sent once its lease ran out', async () =>
        (await gw.store.findNotification(n?.id ?? ''))?.state === 'delivered' ? true : undefined,
      );
      assert.equal(receiver.received.length, 1);
    } finally {
      await gw.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('asks the store for no more work after a batch of acknowledgements alone (the poll looks for the rest)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-birth-'));
    const store = new SqliteStore({ file: join(dir, 'snapgate.db') });
    let claims = 0;
    const claimDue = store.claimDueNotifications.bind(store);
    store.claimDueNotifications = async (...args) => {
      const claimed = await claimDue(...args);
      claims++;
      return claimed;
    };
    const receiver = await startReceiver();
    // No poll within the test: every claim it sees is one the loop chose to make. No attempt times
    // out on a busy machine either (a failed attempt is a reason to claim).
    const gw = await startGateway({ dispatch: true, store, env: PATIENT, deliveryPollMs: 600_000 });
    try {
      receiver.set(ack);
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      await waitFor('the claim of the start', () => claims >= 1);
      const atStart = claims;
      for (let i = 0; i < 5; i++) {
        const q = await newQris(gw, c);
        assert.equal((await pay(gw, q.referenceNo)).status, 200);
        await waitFor('delivered', async () => (await stateOf(gw, q.referenceNo))[0]?.[1] === 'delivered');
      }
      assert.equal(claims, atStart, 'each payment was sent as its change committed, and recorded, with no claim');
    } finally {
      await gw.close();
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('claims a notification that waited behind its transaction’s attempt as that attempt ends, before any poll', async () => {
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true, env: PATIENT, deliveryPollMs: 600_000 });
    try {
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const q = await newQris(gw, c);
      let release: (() => void) | undefined;
      receiver.set((req, res, n) => {
        if (JSON.parse(req.body).latestTransactionStatus !== '03') return ack(req, res, n);
        // The 03 is held in flight, then acknowledged: the batch that records it is all acknowledgements.
        return new Promise<void>((resolve) => {
          release = () => {
            ack(req, res, n);
            resolve();
          };
        });
      });
      await pay(gw, q.referenceNo, { status: '03' });
      await waitFor('03 in flight', () => release);
      // Committed unclaimed: the 03 of its transaction is being sent. The wake's claim finds it blocked.
      await pay(gw, q.referenceNo, { status: '00' });
      assert.deepEqual(await stateOf(gw, q.referenceNo), [
        ['03', 'delivering'],
        ['00', 'pending'],
      ]);
      release?.();
      await waitFor('00 delivered', async () =>
        (await stateOf(gw, q.referenceNo)).some(([s, st]) => s === '00' && st === 'delivered'),
      );
      assert.deepEqual(
        receiver.received.map((x) => JSON.parse(x.body).latestTransactionStatus),
        ['03', '00'],
      );
    } finally {
      await gw.close();
      await receiver.close();
    }
  });

  it('is not claimed at birth when the first attempt waits (a first retry-schedule step above zero)', async () => {
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true, env: { ...FAST, SNAPGATE_RETRY_SCHEDULE: '1h,1h' } });
    try {
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const q = await newQris(gw, c);
      assert.equal((await pay(gw, q.referenceNo)).status, 200);
      const [n] = await gw.store.notificationsOf(q.referenceNo);
      assert.deepEqual([n?.state, n?.claimedBy], ['pending', null]);
    } finally {
      await gw.close();
      await receiver.close();
    }
  });

  it('a stopped dispatcher claims nothing at birth: the notification waits, pending, for the next one', async () => {
    const receiver = await startReceiver();
    const gw = await startGateway({ dispatch: true, env: FAST });
    try {
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const q = await newQris(gw, c);
      await gw.gateway.dispatcher.stop();
      assert.equal((await pay(gw, q.referenceNo)).status, 200);
      const [n] = await gw.store.notificationsOf(q.referenceNo);
      assert.deepEqual([n?.state, n?.claimedBy], ['pending', null]);
      assert.equal(receiver.received.length, 0);
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});

describe('stopping while a claim is on its way back from the store', () => {
  it('sends nothing after stop, gives the claims back, and the next start delivers each notification once', async () => {
    const receiver = await startReceiver();
    const gw = await startGateway({ env: FAST });
    try {
      receiver.set(ack);
      const m = await gw.createMerchant({ callbackBaseUrl: `${receiver.baseUrl}/shop` });
      const c = await authenticate(gw.url, m);
      const refs: string[] = [];
      for (let i = 0; i < 20; i++) {
        const q = await newQris(gw, c);
        assert.equal((await pay(gw, q.referenceNo)).status, 200);
        refs.push(q.referenceNo);
      }
      const { dispatcher } = gw.gateway;
      // The claim starts at once and is answered after its commit; stop() comes meanwhile.
      dispatcher.start();
      await new Promise((resolve) => setImmediate(resolve));
      await dispatcher.stop();
      for (const r of refs) assert.deepEqual(await stateOf(gw, r), [['00', 'pending']], r);
      dispatcher.start();
      await dispatcher.drain();
      for (const r of refs) {
        assert.deepEqual(await stateOf(gw, r), [['00', 'delivered']], r);
        const [n] = await gw.store.notificationsOf(r);
        assert.equal((await gw.store.attemptsOf(n?.id ?? '')).length, 1, r);
        assert.equal(receiver.received.filter((x) => x.body.includes(r)).length, 1, r);
      }
    } finally {
      await gw.close();
      await receiver.close();
    }
  });
});

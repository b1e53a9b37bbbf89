// Two gateway instances on one PostgreSQL database: a change committed by one reaches the pages
// waiting on the other (LISTEN/NOTIFY, sent by the change's own statement), only if it commits,
// and after the listener's connection is killed the instance reconnects and resyncs its pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { LiveChange } from '../../src/checkout/live.ts';
import { type IdempotencyRecord, UniqueViolation } from '../../src/records/records.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0';

describe('live status across two gateway instances on one PostgreSQL database', () => {
  let db: { url: string; drop: () => Promise<void> };
  let a: TestGateway;
  let b: TestGateway;
  let merchantAtA: SnapCaller;
  let seq = 0;

  before(async () => {
    db = await createTestDatabase();
    const open = async () => {
      const store = new PostgresStore({ connectionString: db.url });
      await store.migrate();
      return store;
    };
    a = await startGateway({ store: await open(), env: { SNAPGATE_RATE_LIMIT: 'off' } });
    b = await startGateway({ store: await open(), env: { SNAPGATE_RATE_LIMIT: 'off' } });
    merchantAtA = await authenticate(a.url, await a.createMerchant());
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  async function generateAtA(): Promise<string> {
    const r = await snapCall(a.url, merchantAtA, `${API}/qr/qr-mpm-generate`, {
      partnerReferenceNo: `TWO-${Date.now()}-${++seq}`,
      amount: { value: '10000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    return r.body.referenceNo as string;
  }

  const payAtA = async (ref: string) => {
    const r = await a.admin('POST', `/sandbox/qris/${ref}/pay`, {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
  };

  /** A client of the test's own that LISTENs like an instance: what the database announced. */
  async function listen(): Promise<{ heard: LiveChange[]; close: () => Promise<void> }> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const heard: LiveChange[] = [];
    c.on('notification', (n) => {
      // A list of the changes one instance committed in one turn of its event loop.
      for (const p of JSON.parse(n.payload ?? '[]') as Array<{ r: string; s: string; q: number; d?: string }>)
        heard.push({ referenceNo: p.r, status: p.s, statusDesc: p.d ?? null, seq: p.q });
    });
    await c.query('LISTEN snapgate_status');
    return { heard, close: () => c.end() };
  }

  it('tells a page on instance B of a payment made through instance A', async () => {
    const ref = await generateAtA();
    const seen: LiveChange[] = [];
    const stop = b.gateway.live.subscribe(ref, (c) => seen.push(c));
    await payAtA(ref);
    const change = await waitFor('the payment on B', () => seen[0]);
    assert.deepEqual(change, { referenceNo: ref, status: '00', statusDesc: 'Success', seq: 2 });
    stop();
  });

  it('tells a page on the committing instance once, though it hears the change locally and by NOTIFY', async () => {
    const ref = await generateAtA();
    const marker = await generateAtA();
    const seen: LiveChange[] = [];
    const stop = a.gateway.live.subscribe(ref, (c) => seen.push(c));
    const markers: LiveChange[] = [];
    const stopMarker = a.gateway.live.subscribe(marker, (c) => markers.push(c));
    await payAtA(ref);
    // Paid through B, the marker reaches A only by NOTIFY, after ref's own NOTIFY (commit order).
    const r = await b.admin('POST', `/sandbox/qris/${marker}/pay`, {});
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await waitFor("the marker's NOTIFY on A", () => markers.length > 0);
    assert.deepEqual(
      seen.map((c) => [c.status, c.seq]),
      [['00', 2]],
    );
    stop();
    stopMarker();
  });

  it('announces nothing for a change that lost its race or was refused, then the next committed one', async () => {
    const ref = await generateAtA();
    const txn = await a.store.findTransaction(ref);
    assert.ok(txn);
    const listener = await listen();
    try {
      const base = { referenceNo: ref, status: '05' as const, statusDesc: 'Cancelled', reason: null, at: Date.now() };
      // Lost race: another change already moved the seq on.
      assert.equal(await a.store.changeStatus({ ...base, expectedSeq: txn.seq + 7 }), undefined);
      // Refused: its idempotency record is taken, so the whole statement rolls back.
      const idempotency: IdempotencyRecord = {
        merchantId: txn.merchantId,
        day: '20260101',
        externalId: `X${Date.now()}`,
        requestHash: 'h',
        httpStatus: 200,
        responseBody: '{}',
      };
      await a.store.insertIdempotency(idempotency, Date.now());
      await assert.rejects(a.store.changeStatus({ ...base, expectedSeq: txn.seq, idempotency }), UniqueViolation);
      assert.equal((await a.store.findTransaction(ref))?.seq, txn.seq, 'the refused change wrote nothing');
      // The one that commits is announced; the database delivers in commit order, so the two before
      // would have arrived first.
      const done = await a.store.changeStatus({ ...base, expectedSeq: txn.seq });
      assert.equal(done?.txn.seq, txn.seq + 1);
      await waitFor('the committed change announced', () => listener.heard.some((c) => c.referenceNo === ref));
      assert.deepEqual(
        listener.heard.filter((c) => c.referenceNo === ref),
        [{ referenceNo: ref, status: '05', statusDesc: 'Cancelled', seq: txn.seq + 1 }],
      );
    } finally {
      await listener.close();
    }
  });

  it('reconnects after its listener connection is killed, resyncs its pages, and hears changes again', async () => {
    const ref = await generateAtA();
    const seen: LiveChange[] = [];
    let resyncs = 0;
    const stop = b.gateway.live.subscribe(ref, (c) => seen.push(c), { onResync: () => resyncs++ });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const listeners = async () =>
        (
          await admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'snapgate-listen'`,
          )
        ).rows.map((r) => r.pid);
      const before = await listeners();
      assert.equal(before.length, 2, 'one listener per instance');
      await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [before]);
      // After the gap the page is told the transaction's state as it is now (re-read), and onResync.
      const resynced = await waitFor('the resync on B', () => resyncs > 0 && seen[0]);
      assert.deepEqual(resynced, { referenceNo: ref, status: '01', statusDesc: 'Initiated', seq: 1 });
      await waitFor('both listeners back', async () => {
        const now = await listeners();
        return now.length === 2 && now.every((pid) => !before.includes(pid));
      });
      await payAtA(ref);
      await waitFor('the payment on B after the reconnect', () => seen.some((c) => c.status === '00'));
      assert.deepEqual(
        seen.map((c) => [c.status, c.seq]),
        [
          ['01', 1],
          ['00', 2],
        ],
      );
    } finally {
      stop();
      await admin.end();
    }
  });
});

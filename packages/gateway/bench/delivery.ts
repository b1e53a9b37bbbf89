// Callback delivery benchmark: raw undici POSTs against snapgate's delivery engine (status change
// committed → merchant's 200 recorded in the database), side by side in one run (STACK: repeat
// runs differ by 20–30 %, so only figures from the same run compare).
//
//   npm run bench:delivery                       # 10 s phases, embedded SQLite store
//   npm run bench:delivery -- --duration 3       # quick check
//   npm run bench:delivery -- --json             # also print the raw figures as JSON
//   npm run bench:delivery -- --store postgres   # needs SNAPGATE_DATABASE_URL; runs in a fresh database
//
// The merchant's receiver is a bare node:http server in a child process (this file with
// `--serve receiver`) on 127.0.0.1, so it does not share the gateway's event loop. The gateway
// (store, dispatcher and the code making status changes) runs in this process, as one snapgate
// instance would: a status change arrives on the same event loop the dispatcher runs on.
// Not a test: nothing asserts timings.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { TRANSACTION_STATUS } from '@snapgate/snap';
import pg from 'pg';
import { Pool } from 'undici';
import { assembleGateway, type Gateway } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { callbackHeaders, QRIS_CALLBACK_PATH } from '../src/delivery/callback-signing.ts';
import { isAcknowledgement } from '../src/delivery/send.ts';
import { createLogger } from '../src/logger.ts';
import { newBillNumber } from '../src/payments/ids.ts';
import { notificationBody } from '../src/payments/notification-body.ts';
import { openStore } from '../src/store/open-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { MerchantRecord, NotificationRecord, Store, TransactionRecord } from '../src/store/store.ts';

const HOST = '127.0.0.1';
const DEFAULT_DURATION_SEC = 10;
const WARMUP_SEC = 1;
/** The same pool shape and concurrency as the dispatcher: createSender's 64 connections, maxInFlight 512. */
const BASELINE_CONNECTIONS = 64;
const BASELINE_IN_FLIGHT = 512;
const LATENCY_RATE_PER_SEC = 500;
/** Status changes made per event-loop turn in the throughput phase (like requests arriving together). */
const PRODUCER_BATCH = 16;
/** Upper bound on status changes per second the throughput phase prepares transactions for. */
const PRODUCER_MAX_RATE = 6000;
const WARMUP_CHANGES = 1000;
const ACK_BODY = '{"responseCode":"2002600","responseMessage":"Success"}';
const PAYER = { payerName: 'Budi Santoso', payerIssuer: '93600014', payerRefId: '112233445566' };
const GOAL_ACKED_PER_SEC = 3000;
const GOAL_P99_MS = 100;

// ---------------------------------------------------------------------------------------
// Child: the merchant's receiver. Answers every request with the SNAP acknowledgement and
// reports its request count and CPU time when asked over the fork IPC channel.

interface ReceiverStats {
  requests: number;
  cpuUs: number;
}

async function runReceiver(): Promise<void> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(ACK_BODY);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new TypeError('receiver has no port');
  process.once('disconnect', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  process.on('message', () => {
    const cpu = process.cpuUsage();
    process.send?.({ requests, cpuUs: cpu.user + cpu.system } satisfies ReceiverStats);
  });
  process.send?.({ port: address.port });
}

interface ReceiverChild {
  baseUrl: string;
  stats(): Promise<ReceiverStats>;
  stop(): Promise<void>;
}

async function startReceiver(): Promise<ReceiverChild> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', 'receiver'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number }));
    child.once('exit', (code) => reject(new Error(`receiver exited with ${code} before listening`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    baseUrl: `http://${HOST}:${port}`,
    stats: () =>
      new Promise<ReceiverStats>((resolve) => {
        child.once('message', (m) => resolve(m as ReceiverStats));
        child.send('stats');
      }),
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

// ---------------------------------------------------------------------------------------
// Measuring helpers.

interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function percentiles(values: number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

const cpuNowUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

/** Time spent in one store verb; for SQLite all of it blocks the event loop (better-sqlite3 is synchronous). */
interface VerbTime {
  calls: number;
  rows: number;
  ms: number;
}

type TimedVerb = 'changeStatus' | 'claimDueNotifications' | 'recordAttempts';

interface Probe {
  verbs: Record<TimedVerb, VerbTime>;
  /** Acknowledgements committed by recordAttempts, by notification id, with the commit time. */
  recordedAt: Map<string, number>;
  reset(): void;
}

/** Wraps the store's delivery verbs on this instance to see where the time goes. No source changes. */
function probeStore(store: Store): Probe {
  const fresh = (): Record<TimedVerb, VerbTime> => ({
    changeStatus: { calls: 0, rows: 0, ms: 0 },
    claimDueNotifications: { calls: 0, rows: 0, ms: 0 },
    recordAttempts: { calls: 0, rows: 0, ms: 0 },
  });
  const probe: Probe = {
    verbs: fresh(),
    recordedAt: new Map(),
    reset() {
      probe.verbs = fresh();
    },
  };
  // better-sqlite3 does its work before the call returns; awaiting would also count the other
  // work that ran before this continuation. PostgreSQL's time is the awaited round trip.
  const isSync = store.kind === 'sqlite';
  async function timed<T>(verb: TimedVerb, call: () => Promise<T>, rows: (r: T) => number): Promise<T> {
    const t0 = performance.now();
    const pending = call();
    const returnedAt = performance.now();
    const r = await pending;
    const v = probe.verbs[verb];
    v.ms += (isSync ? returnedAt : performance.now()) - t0;
    v.calls++;
    v.rows += rows(r);
    return r;
  }
  const changeStatus = store.changeStatus.bind(store);
  store.changeStatus = (change) =>
    timed(
      'changeStatus',
      () => changeStatus(change),
      (r) => (r ? 1 : 0),
    );
  const claim = store.claimDueNotifications.bind(store);
  store.claimDueNotifications = (workerId, now, leaseMs, limit) =>
    timed(
      'claimDueNotifications',
      () => claim(workerId, now, leaseMs, limit),
      (r) => r.length,
    );
  const record = store.recordAttempts.bind(store);
  store.recordAttempts = async (attempts) => {
    const moved = await timed(
      'recordAttempts',
      () => record(attempts),
      () => attempts.length,
    );
    const committedAt = Date.now();
    for (const n of moved) if (n.state === 'delivered') probe.recordedAt.set(n.id, committedAt);
    return moved;
  };
  return probe;
}

// ---------------------------------------------------------------------------------------
// Phase 1: the baseline, raw undici POSTs of the same bytes to the same receiver.

interface BaselineFigures {
  ackedPerSec: number;
  acked: number;
  failed: number;
  elapsedSec: number;
  senderCpuUsPerRequest: number;
  receiverCpuUsPerRequest: number;
}

async function runBaseline(
  receiver: ReceiverChild,
  request: { path: string; headers: Record<string, string>; body: string },
  durationSec: number,
): Promise<BaselineFigures> {
  const pool = new Pool(receiver.baseUrl, { connections: BASELINE_CONNECTIONS });
  try {
    const postOnce = async (): Promise<boolean> => {
      const res = await pool.request({
        method: 'POST',
        path: request.path,
        headers: request.headers,
        body: request.body,
      });
      return isAcknowledgement(res.statusCode, await res.body.text());
    };
    if (!(await postOnce())) throw new Error('baseline: the receiver did not acknowledge a check request');
    const run = async (seconds: number) => {
      let acked = 0;
      let failed = 0;
      const startedAt = performance.now();
      const deadline = startedAt + seconds * 1000;
      const worker = async () => {
        while (performance.now() < deadline) {
          const ok = await postOnce().catch(() => false);
          if (performance.now() > deadline) break;
          if (ok) acked++;
          else failed++;
        }
      };
      await Promise.all(Array.from({ length: BASELINE_IN_FLIGHT }, worker));
      return { acked, failed, elapsedSec: (deadline - startedAt) / 1000 };
    };
    await run(WARMUP_SEC);
    const receiverBefore = await receiver.stats();
    const cpuBefore = cpuNowUs();
    const r = await run(durationSec);
    const cpuUs = cpuNowUs() - cpuBefore;
    const receiverAfter = await receiver.stats();
    const served = Math.max(1, receiverAfter.requests - receiverBefore.requests);
    return {
      ackedPerSec: r.acked / r.elapsedSec,
      acked: r.acked,
      failed: r.failed,
      elapsedSec: r.elapsedSec,
      senderCpuUsPerRequest: cpuUs / Math.max(1, r.acked + r.failed),
      receiverCpuUsPerRequest: (receiverAfter.cpuUs - receiverBefore.cpuUs) / served,
    };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------
// The gateway.

interface Bench {
  store: Store;
  gateway: Gateway;
  probe: Probe;
  receiver: ReceiverChild;
  adminToken: string;
  /** Deterministic, unique per run: newReferenceNo draws 12 random digits, which can collide at this volume. */
  nextRef: () => string;
}

async function createMerchant(b: Bench, name: string): Promise<MerchantRecord> {
  const res = await b.gateway.app.inject({
    method: 'POST',
    url: '/admin/v1/merchants',
    headers: { authorization: `Bearer ${b.adminToken}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ name, callbackBaseUrl: b.receiver.baseUrl }),
  });
  const body = res.json() as { id?: string };
  if (res.statusCode !== 201 || !body.id)
    throw new Error(`creating a merchant failed: HTTP ${res.statusCode} ${res.body}`);
  const merchant = await b.store.findMerchantById(body.id);
  if (!merchant) throw new Error('the merchant just created is not in the store');
  return merchant;
}

function newQrisTransaction(b: Bench, merchant: MerchantRecord, i: number, nowMs: number): TransactionRecord {
  // As qris-service.ts builds one; the QR content itself is not part of a notification.
  return {
    referenceNo: b.nextRef(),
    merchantId: merchant.id,
    kind: 'qris',
    partnerReferenceNo: `bench-${merchant.id.slice(-6)}-${i}`,
    status: '01',
    statusDesc: TRANSACTION_STATUS['01'],
    seq: 1,
    amount: '150000.00',
    currency: 'IDR',
    paidAmount: null,
    refundedAmount: '0.00',
    feeAmount: '0.00',
    virtualAccountNo: null,
    billNumber: newBillNumber(),
    expiresAt: nowMs + 3_600_000,
    paidAt: null,
    details: { qrContent: '00020101021226', terminalId: 'T001', storeId: 'S001' },
    createdAt: nowMs,
    updatedAt: nowMs,
  };
}

/** Setup, not measured: SQLite inserts go in group commits of 2,000 (a nested transaction is a savepoint). */
async function insertTransactions(b: Bench, merchant: MerchantRecord, count: number): Promise<TransactionRecord[]> {
  const now = Date.now();
  const txns = Array.from({ length: count }, (_, i) => newQrisTransaction(b, merchant, i, now));
  const store = b.store;
  for (let i = 0; i < txns.length; i += 2000) {
    const chunk = txns.slice(i, i + 2000);
    if (store instanceof SqliteStore) {
      const pending: Promise<void>[] = [];
      store.db.transaction(() => {
        for (const t of chunk) pending.push(store.insertTransaction(t));
      })();
      await Promise.all(pending);
    } else {
      for (let j = 0; j < chunk.length; j += 32) {
        await Promise.all(chunk.slice(j, j + 32).map((t) => store.insertTransaction(t)));
      }
    }
    await nextTurn();
  }
  return txns;
}

/** The production path: the change, its history row and its notification in one transaction; wakes the dispatcher. */
function pay(b: Bench, txn: TransactionRecord): Promise<TransactionRecord> {
  const nowMs = Date.now();
  return b.gateway.changer.change(
    txn,
    {
      to: '00',
      reason: 'bench payment',
      patch: () => ({ paidAmount: txn.amount, paidAt: nowMs, details: { ...txn.details, payer: PAYER } }),
    },
    nowMs,
  );
}

async function waitForAcks(b: Bench, expected: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (b.probe.recordedAt.size >= expected) return true;
    await sleep(10);
  }
  return b.probe.recordedAt.size >= expected;
}

async function notificationsOfMerchant(store: Store, merchantId: string): Promise<NotificationRecord[]> {
  const out: NotificationRecord[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const p = await store.listNotifications({ merchantId }, { limit: 500, cursor });
    out.push(...p.items);
    if (!p.nextCursor) break;
    cursor = p.nextCursor;
  }
  return out;
}

interface GatewayFigures {
  name: string;
  changes: number;
  /** Status changes committed per second while they were being made. */
  commitsPerSec: number;
  delivered: number;
  notDelivered: number;
  /** Delivered per second, from the first notification's created_at to the last delivered_at. */
  ackedPerSec: number;
  spanSec: number;
  firstCreatedAt: number;
  lastDeliveredAt: number;
  /** Set when the dispatcher was started only after the changes were made. */
  dispatcherStartedAt: number | undefined;
  attemptsPerDelivered: number;
  /** created_at → delivered_at (the 200 received, as stored), ms. */
  latencyMs: Percentiles;
  /** created_at → the transaction recording the acknowledgement committed, ms. */
  recordedLatencyMs: Percentiles;
  receiverRequests: number;
  gatewayCpuUsPerCallback: number;
  receiverCpuUsPerCallback: number;
  eventLoopDelayP99Ms: number;
  storeMs: Record<TimedVerb, VerbTime>;
}

interface PhaseRun {
  name: string;
  merchant: MerchantRecord;
  /** Makes the status changes; resolves with how many it made and how long it took. */
  produce: () => Promise<{ changes: number; commitSec: number }>;
  /** Starts the dispatcher after the changes are made (the backlog phase) instead of before. */
  startDispatcherAfter?: boolean;
  boundMs: number;
}

async function runPhase(b: Bench, run: PhaseRun): Promise<GatewayFigures> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  b.probe.recordedAt.clear();
  if (run.startDispatcherAfter) await b.gateway.dispatcher.stop();
  const receiverBefore = await b.receiver.stats();
  b.probe.reset();
  const cpuBefore = cpuNowUs();
  loop.enable();
  const { changes, commitSec } = await run.produce();
  let dispatcherStartedAt: number | undefined;
  if (run.startDispatcherAfter) {
    dispatcherStartedAt = Date.now();
    b.gateway.dispatcher.start();
  }
  const isComplete = await waitForAcks(b, changes, run.boundMs);
  loop.disable();
  const cpuUs = cpuNowUs() - cpuBefore;
  const storeMs = b.probe.verbs;
  const receiverAfter = await b.receiver.stats();
  if (!isComplete) process.stderr.write(`${run.name}: not every notification was acknowledged in time\n`);

  const rows = await notificationsOfMerchant(b.store, run.merchant.id);
  const delivered = rows.filter((n) => n.state === 'delivered' && n.deliveredAt !== null);
  const firstCommit = rows.reduce((m, n) => Math.min(m, n.createdAt), Number.POSITIVE_INFINITY);
  const lastDelivered = delivered.reduce((m, n) => Math.max(m, n.deliveredAt as number), 0);
  const spanSec = (lastDelivered - firstCommit) / 1000;
  const recorded = delivered.map((n) => (b.probe.recordedAt.get(n.id) ?? NaN) - n.createdAt);
  return {
    name: run.name,
    changes,
    commitsPerSec: changes / commitSec,
    delivered: delivered.length,
    notDelivered: rows.length - delivered.length,
    ackedPerSec: delivered.length / Math.max(spanSec, 0.001),
    spanSec,
    firstCreatedAt: firstCommit,
    lastDeliveredAt: lastDelivered,
    dispatcherStartedAt,
    attemptsPerDelivered: delivered.reduce((s, n) => s + n.attemptCount, 0) / Math.max(1, delivered.length),
    latencyMs: percentiles(delivered.map((n) => (n.deliveredAt as number) - n.createdAt)),
    recordedLatencyMs: percentiles(recorded.filter((x) => Number.isFinite(x))),
    receiverRequests: receiverAfter.requests - receiverBefore.requests,
    gatewayCpuUsPerCallback: cpuUs / Math.max(1, delivered.length),
    receiverCpuUsPerCallback: (receiverAfter.cpuUs - receiverBefore.cpuUs) / Math.max(1, delivered.length),
    eventLoopDelayP99Ms: loop.percentile(99) / 1e6,
    storeMs,
  };
}

/**
 * As fast as one event loop allows: PRODUCER_BATCH concurrent changes per turn (like requests
 * arriving together), then the dispatcher gets its turn.
 */
function asFastAsPossible(b: Bench, txns: TransactionRecord[], durationSec: number) {
  return async () => {
    const startedAt = performance.now();
    const deadline = startedAt + durationSec * 1000;
    let made = 0;
    while (made < txns.length && performance.now() < deadline) {
      const batch = txns.slice(made, made + PRODUCER_BATCH);
      await Promise.all(batch.map((t) => pay(b, t)));
      made += batch.length;
      await nextTurn();
    }
    return { changes: made, commitSec: (performance.now() - startedAt) / 1000 };
  };
}

/** Open loop at a fixed rate: changes are made when due, whatever the dispatcher is doing. */
function atFixedRate(b: Bench, txns: TransactionRecord[], ratePerSec: number) {
  return async () => {
    const startedAt = performance.now();
    const changes: Promise<TransactionRecord>[] = [];
    while (changes.length < txns.length) {
      const due = Math.min(txns.length, Math.floor(((performance.now() - startedAt) / 1000) * ratePerSec) + 1);
      while (changes.length < due) changes.push(pay(b, txns[changes.length] as TransactionRecord));
      await sleep(1);
    }
    await Promise.all(changes);
    return { changes: changes.length, commitSec: (performance.now() - startedAt) / 1000 };
  };
}

// ---------------------------------------------------------------------------------------
// Options and output.

interface Options {
  durationSec: number;
  isJson: boolean;
  store: 'sqlite' | 'postgres';
}

function parseArgs(argv: string[]): Options {
  const options: Options = { durationSec: DEFAULT_DURATION_SEC, isJson: false, store: 'sqlite' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.isJson = true;
    else if (arg === '--duration') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 600)
        throw new TypeError('--duration takes a whole number of seconds, 1 to 600');
      options.durationSec = n;
    } else if (arg === '--store') {
      const s = argv[++i];
      if (s !== 'sqlite' && s !== 'postgres') throw new TypeError('--store takes sqlite or postgres');
      options.store = s;
    } else throw new TypeError(`unknown option ${arg}; use --duration N, --json and --store sqlite|postgres`);
  }
  return options;
}

const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '—';

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A fresh database (or, without the right to create one, a fresh schema) for this run. */
async function freshPostgres(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `snapgate_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: baseUrl });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
      },
    };
  } catch {
    await admin.query(`CREATE SCHEMA ${name}`);
    const url = new URL(baseUrl);
    url.searchParams.set('options', `-c search_path=${name}`);
    return {
      url: url.toString(),
      async drop() {
        const c = new pg.Client({ connectionString: baseUrl });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`).finally(() => c.end());
      },
    };
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench:delivery: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const databaseUrl = process.env.SNAPGATE_DATABASE_URL;
  if (options.store === 'postgres' && !databaseUrl) {
    process.stderr.write(
      'bench:delivery --store postgres needs SNAPGATE_DATABASE_URL (postgres://user@127.0.0.1:5432/db);\n' +
        'the bench creates a fresh database (or schema) there for the run and drops it afterwards.\n',
    );
    process.exitCode = 2;
    return;
  }
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const receiver = await startReceiver();
    cleanups.unshift(() => receiver.stop());

    const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-delivery-'));
    cleanups.unshift(async () => rmSync(dir, { recursive: true, force: true }));
    let pgUrl: string | undefined;
    if (options.store === 'postgres' && databaseUrl) {
      const fresh = await freshPostgres(databaseUrl);
      cleanups.unshift(fresh.drop);
      pgUrl = fresh.url;
    }
    const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
    const config = loadConfig({
      SNAPGATE_MODE: 'sandbox',
      SNAPGATE_RATE_LIMIT: 'off',
      SNAPGATE_LOG_LEVEL: 'warn',
      SNAPGATE_ADMIN_TOKEN: adminToken,
      SNAPGATE_RETRY_SCHEDULE: '0s,1s,5s',
      SNAPGATE_DB: join(dir, 'snapgate.db'),
      SNAPGATE_DATABASE_URL: pgUrl,
    });
    let store: Store;
    try {
      store = await openStore(config);
    } catch (e) {
      if (options.store !== 'postgres') throw e;
      process.stdout.write(`bench:delivery: the PostgreSQL store could not be opened: ${(e as Error).message}\n`);
      return;
    }
    cleanups.unshift(() => store.close());
    await store.migrate();
    const probe = probeStore(store);
    const { gateway, boot } = await assembleGateway({
      config,
      store,
      clock: systemClock,
      logger: createLogger(config.logLevel),
    });
    cleanups.unshift(() => gateway.app.close());
    const refPrefix = `${new Date(Date.now() + 7 * 3600_000).toISOString().slice(2, 10).replaceAll('-', '')}`;
    let refCounter = 0;
    const b: Bench = {
      store,
      gateway,
      probe,
      receiver,
      adminToken,
      nextRef: () => `${refPrefix}${String(++refCounter).padStart(12, '0')}`,
    };

    // The baseline posts the bytes a callback carries: a real notification body and its signed headers.
    const sampleMerchant = await createMerchant(b, 'bench sample');
    const sampleTxn = newQrisTransaction(b, sampleMerchant, 0, Date.now());
    const paidSample: TransactionRecord = {
      ...sampleTxn,
      status: '00',
      paidAmount: sampleTxn.amount,
      details: { ...sampleTxn.details, payer: PAYER },
    };
    const sampleBody = notificationBody(paidSample, Date.now());
    const sampleHeaders = callbackHeaders({
      merchant: sampleMerchant,
      url: new URL(`${receiver.baseUrl}${QRIS_CALLBACK_PATH}`),
      body: sampleBody,
      notificationId: '17637000000001234567',
      nowMs: Date.now(),
      gatewayPrivateKey: boot.callbackPrivateKey,
    });
    const headerBytes = Object.entries(sampleHeaders).reduce((s, [k, v]) => s + k.length + v.length + 4, 0);

    const d = options.durationSec;
    process.stderr.write(`baseline: raw undici POSTs (${WARMUP_SEC} s warm-up + ${d} s)…\n`);
    const baseline = await runBaseline(
      receiver,
      { path: QRIS_CALLBACK_PATH, headers: sampleHeaders, body: sampleBody },
      d,
    );

    // Every phase has its own merchant, so its notifications are read back by merchant id.
    process.stderr.write('preparing transactions…\n');
    const warmMerchant = await createMerchant(b, 'bench warm-up');
    const warmTxns = await insertTransactions(b, warmMerchant, WARMUP_CHANGES);
    const tpMerchant = await createMerchant(b, 'bench throughput');
    const tpTxns = await insertTransactions(b, tpMerchant, d * PRODUCER_MAX_RATE);
    const backlogMerchant = await createMerchant(b, 'bench backlog');
    const backlogTxns = await insertTransactions(b, backlogMerchant, d * GOAL_ACKED_PER_SEC);
    const latMerchant = await createMerchant(b, 'bench latency');
    const latTxns = await insertTransactions(b, latMerchant, d * LATENCY_RATE_PER_SEC);

    gateway.dispatcher.start();
    // Bounds on waiting for the last acknowledgement of a phase; a slower run is reported, not awaited forever.
    const boundMs = Math.max(60_000, d * 12_000);
    process.stderr.write('warm-up…\n');
    await runPhase(b, {
      name: 'warm-up',
      merchant: warmMerchant,
      produce: asFastAsPossible(b, warmTxns, d),
      boundMs,
    });

    const phases: GatewayFigures[] = [];
    process.stderr.write(`throughput: status changes as fast as possible for ${d} s, delivered meanwhile…\n`);
    phases.push(
      await runPhase(b, {
        name: 'snapgate, changes + delivery together',
        merchant: tpMerchant,
        produce: asFastAsPossible(b, tpTxns, d),
        boundMs,
      }),
    );
    process.stderr.write(`backlog: ${backlogTxns.length} changes committed, then the dispatcher alone…\n`);
    phases.push(
      await runPhase(b, {
        name: 'snapgate, committed backlog, then delivery',
        merchant: backlogMerchant,
        produce: asFastAsPossible(b, backlogTxns, d * 10),
        startDispatcherAfter: true,
        boundMs,
      }),
    );
    process.stderr.write(`latency: ${LATENCY_RATE_PER_SEC} status changes per second for ${d} s…\n`);
    phases.push(
      await runPhase(b, {
        name: `snapgate, ${LATENCY_RATE_PER_SEC} changes/s offered`,
        merchant: latMerchant,
        produce: atFixedRate(b, latTxns, LATENCY_RATE_PER_SEC),
        boundMs,
      }),
    );
    const [together, backlog, fixed] = phases as [GatewayFigures, GatewayFigures, GatewayFigures];
    // The backlog phase, split: how fast changes commit alone, and how fast the dispatcher drains alone.
    const backlogCommitSec = backlog.changes / backlog.commitsPerSec;
    const drainSec = (backlog.lastDeliveredAt - (backlog.dispatcherStartedAt ?? backlog.firstCreatedAt)) / 1000;
    const drainPerSec = backlog.delivered / drainSec;

    const environment = {
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      store: store.kind,
      durationSec: d,
    };
    const ratio = together.ackedPerSec / baseline.ackedPerSec;
    const goals = [
      {
        goal: 'acked/s, changes + delivery',
        value: together.ackedPerSec,
        target: `≥ ${fmt(GOAL_ACKED_PER_SEC)}`,
        isMet: together.ackedPerSec >= GOAL_ACKED_PER_SEC,
      },
      {
        goal: `p99 ms at ${LATENCY_RATE_PER_SEC}/s`,
        value: fixed.latencyMs.p99,
        target: `< ${GOAL_P99_MS}`,
        isMet: fixed.latencyMs.p99 < GOAL_P99_MS,
      },
    ];
    const storeDescription =
      store.kind === 'sqlite' ? 'embedded SQLite (better-sqlite3, WAL, synchronous=FULL)' : 'PostgreSQL (pg pool)';
    const rowsOut = [
      [
        `raw undici Pool, ${BASELINE_CONNECTIONS} conns, ${BASELINE_IN_FLIGHT} in flight`,
        '—',
        fmt(baseline.ackedPerSec),
        '—',
        '—',
        '—',
        '1.00',
        fmt(baseline.senderCpuUsPerRequest),
        fmt(baseline.receiverCpuUsPerRequest),
      ],
      ...phases.map((p) => [
        p.name,
        fmt(p.commitsPerSec),
        fmt(p.ackedPerSec),
        fmt(p.latencyMs.p50),
        fmt(p.latencyMs.p95),
        fmt(p.latencyMs.p99),
        fmt(p.attemptsPerDelivered, 2),
        fmt(p.gatewayCpuUsPerCallback),
        fmt(p.receiverCpuUsPerCallback),
      ]),
    ];
    const verbRows = phases.map((p) => {
      const cell = (v: VerbTime) => `${fmt(v.ms)} ms / ${fmt(v.calls)} (${fmt(v.rows / Math.max(1, v.calls), 1)})`;
      return [
        p.name,
        fmt(p.spanSec, 2),
        cell(p.storeMs.changeStatus),
        cell(p.storeMs.claimDueNotifications),
        cell(p.storeMs.recordAttempts),
        fmt(p.eventLoopDelayP99Ms, 1),
      ];
    });
    const out = [
      `Callback delivery benchmark — ${d} s phases, store: ${storeDescription}`,
      `Node ${environment.node}, ${environment.cpus} CPUs (${environment.cpuModel}); 127.0.0.1 only.`,
      'Receiver: bare node:http in a child process, answering 200 {"responseCode":"2002600",…} to every POST.',
      'Gateway: store, dispatcher (defaults: maxInFlight 512, claimBatch 200, undici Pool of 64) and the code',
      'making the status changes run in this process, as in one snapgate instance; the receiver has its own.',
      `Each callback: a ${sampleBody.length}-byte notification body + ${headerBytes} bytes of signed headers (hmac-sha512);`,
      'the baseline posts those same bytes with the same Pool shape and concurrency.',
      '',
      table(
        [
          'Run',
          'changes/s',
          'acked/s',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'attempts/ack',
          'sender CPU µs/cb',
          'receiver CPU µs/cb',
        ],
        rowsOut,
      ),
      '',
      'changes/s: status changes committed per second while they were made (each its own transaction).',
      'sender CPU: this process per callback (for snapgate: the status changes, store, dispatcher and HTTP client).',
      'acked/s: delivered notifications ÷ (last delivered_at − first created_at), read from the database.',
      'Latency: created_at (the change, committed with its notification) → delivered_at (the 200 received, as',
      'stored with the acknowledgement), per notification.',
      `The backlog run committed ${fmt(backlog.changes)} changes in ${fmt(backlogCommitSec, 2)} s with the dispatcher stopped, then`,
      `the dispatcher alone delivered them in ${fmt(drainSec, 2)} s: ${fmt(drainPerSec)} acked/s.`,
      `At ${LATENCY_RATE_PER_SEC}/s, created_at → commit of the acknowledgement's transaction: p50 ${fmt(fixed.recordedLatencyMs.p50)},` +
        ` p99 ${fmt(fixed.recordedLatencyMs.p99)}, max ${fmt(fixed.recordedLatencyMs.max)} ms; delivered_at max ${fmt(fixed.latencyMs.max)} ms.`,
      '',
      `Where the gateway's time goes: store verb time (${store.kind === 'sqlite' ? 'synchronous: it blocks the event loop' : 'awaited round trips'}) / calls (rows per call)`,
      table(['Run', 'span s', 'changeStatus', 'claimDueNotifications', 'recordAttempts', 'loop p99 ms'], verbRows),
      '',
      `snapgate / raw undici acked/s      ${fmt(ratio, 2).padStart(7)}`,
      ...goals.map(
        (g) =>
          `${g.goal.padEnd(34)}${fmt(g.value, 0).padStart(7)}   goal ${g.target.padEnd(7)} ${g.isMet ? 'met' : 'NOT MET'}`,
      ),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    const incomplete = phases.filter((p) => p.notDelivered > 0);
    if (incomplete.length > 0) {
      process.stdout.write(`\nNOT every notification was delivered in: ${incomplete.map((p) => p.name).join(', ')}\n`);
      process.exitCode = 1;
    }
    if (options.isJson) {
      process.stdout.write(
        `${JSON.stringify({ environment, baseline, phases, drainPerSec, ratio, goals, bodyBytes: sampleBody.length, headerBytes }, null, 2)}\n`,
      );
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

const serveAt = process.argv.indexOf('--serve');
if (serveAt !== -1) {
  await runReceiver();
} else {
  await main();
}

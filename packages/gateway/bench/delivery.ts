// Callback delivery benchmark: raw undici POSTs against snapgate's delivery engine (status change
// committed → merchant's 200 recorded in the database), side by side in one run (repeat
// runs differ by 20–30 %, so only figures from the same run compare).
//
//   npm run bench:delivery                       # 10 s phases, embedded SQLite store
//   npm run bench:delivery -- --duration 3       # quick check
//   npm run bench:delivery -- --json             # also print the raw figures as JSON
//   npm run bench:delivery -- --in-flight 64     # 64 status changes in flight together instead of 16
//   npm run bench:delivery -- --backlog 30000    # the drain phase's backlog (default duration × 3,000)
//   SNAPGATE_SQLITE_WRITER=inline npm run bench:delivery   # the writes on the main thread (the baseline)
//   npm run bench:delivery -- --store postgres   # needs SNAPGATE_DATABASE_URL; runs in a fresh database,
//                                                # then the scale-out: 1, then 2 gateway processes
//   npm run bench:delivery -- --store postgres --scale-only --processes 3 --notifications 20000
//
// With --store postgres, after the in-process phases, the same committed backlog (default
// duration × 2,000 notifications) is drained by 1, 2, … --processes real gateway processes
// (`src/main.ts`), each run on its own copy of one template database (see runScaleOut).
//
// The merchant's receiver is a bare node:http server in a child process (this file with
// `--serve receiver`) on 127.0.0.1, so it does not share the gateway's event loop. The gateway
// (store, dispatcher and the code making status changes) runs in this process, as one snapgate
// instance would: a status change arrives on the same event loop the dispatcher runs on.
// Not a test: nothing asserts timings.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
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
import type { MerchantRecord, NotificationRecord, QrisTransaction, TransactionRecord } from '../src/records/records.ts';
import { openStore } from '../src/store/open-store.ts';
import type { PostgresStore } from '../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { ThreadWriter } from '../src/store/sqlite/sqlite-writer.ts';
import type { Store } from '../src/store/store.ts';
import { spawnGateway } from '../test/helpers/process.ts';
import {
  type AckReceiverChild,
  type AckReceiverStats,
  cpuNowUs,
  fmt,
  forkReceiver,
  freshPostgres,
  HOST,
  machineTicks,
  PAYER,
  type Percentiles,
  percentiles,
  procTicks,
  profilePhase,
  serveAckReceiverChild,
  servedKind,
  stopGateway,
  TICK_MS,
  table,
} from './bench-kit.ts';

const DEFAULT_DURATION_SEC = 10;
const WARMUP_SEC = 1;
/** The same pool shape and concurrency as the dispatcher: createSender's 64 connections, maxInFlight 512. */
const BASELINE_CONNECTIONS = 64;
const BASELINE_IN_FLIGHT = 512;
const LATENCY_RATE_PER_SEC = 1000;
/** Status changes made per event-loop turn in the throughput phase (like requests arriving together). */
const DEFAULT_IN_FLIGHT_CHANGES = 16;
/** Upper bound on status changes per second the throughput phase prepares transactions for. */
const PRODUCER_MAX_RATE = 12000;
const WARMUP_CHANGES = 1000;
const GOAL_ACKED_PER_SEC = 8000;
const GOAL_CPU_US_PER_CALLBACK = 110;
const GOAL_P99_MS = 50;
/** Committed changes per second of --duration in the backlog phase. */
const BACKLOG_PER_SEC = 3000;

// ---------------------------------------------------------------------------------------
// Child: the merchant's receiver. Answers every request with the SNAP acknowledgement and
// reports its request count and CPU time when asked over the fork IPC channel.

// ---------------------------------------------------------------------------------------
// Measuring helpers.

/** Time from a store verb's call to its answer (SQLite: the wait for the turn's group commit and the commit). */
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
  // Call → answer: SQLite answers after the turn's group commit, PostgreSQL after the round trip;
  // either way it also counts other work that ran before this continuation.
  async function timed<T>(verb: TimedVerb, call: () => Promise<T>, rows: (r: T) => number): Promise<T> {
    const t0 = performance.now();
    const r = await call();
    const v = probe.verbs[verb];
    v.ms += performance.now() - t0;
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
  receiver: AckReceiverChild,
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
  receiver: AckReceiverChild;
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

function newQrisTransaction(b: Bench, merchant: MerchantRecord, i: number, nowMs: number): QrisTransaction {
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

/** Setup, not measured: inserts of one turn go in one group commit (SQLite: 2,000 at a time). */
async function insertTransactions(b: Bench, merchant: MerchantRecord, count: number): Promise<TransactionRecord[]> {
  const now = Date.now();
  const txns = Array.from({ length: count }, (_, i) => newQrisTransaction(b, merchant, i, now));
  const store = b.store;
  const chunkSize = store.kind === 'sqlite' ? 2000 : 32;
  for (let i = 0; i < txns.length; i += chunkSize) {
    await Promise.all(txns.slice(i, i + chunkSize).map((t) => store.insertTransaction(t)));
    if (store.kind === 'sqlite') await nextTurn();
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
      providerId: 'bench-acquirer',
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
  /** Share of the phase the main thread's event loop was busy, and the SQLite writer thread's (when there is one). */
  mainBusy: number;
  writerBusy: number | undefined;
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
  const stopProfile = await profilePhase(`delivery-${b.store.kind}-${run.name}`);
  const cpuBefore = cpuNowUs();
  const writer =
    b.store instanceof SqliteStore && b.store.writer instanceof ThreadWriter ? b.store.writer.worker : undefined;
  const mainBefore = performance.eventLoopUtilization();
  const writerBefore = writer?.performance.eventLoopUtilization();
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
  const mainBusy = performance.eventLoopUtilization(mainBefore).utilization;
  const writerBusy =
    writer && writerBefore ? writer.performance.eventLoopUtilization(writerBefore).utilization : undefined;
  await stopProfile();
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
    mainBusy,
    writerBusy,
    storeMs,
  };
}

/**
 * As fast as one event loop allows: `inFlight` (--in-flight) concurrent changes per turn (like requests
 * arriving together), then the dispatcher gets its turn.
 */
function asFastAsPossible(b: Bench, txns: TransactionRecord[], durationSec: number, inFlight: number) {
  return async () => {
    const startedAt = performance.now();
    const deadline = startedAt + durationSec * 1000;
    let made = 0;
    while (made < txns.length && performance.now() < deadline) {
      const batch = txns.slice(made, made + inFlight);
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
// PostgreSQL scale-out: the same committed backlog drained by 1 and by K gateway processes.
//
// The workload is committed once, through the production status-change path, into a template
// database with every notification due far in the future. Each run gets its own fresh copy
// (CREATE DATABASE … TEMPLATE), starts K real gateways (`src/main.ts`, as `npm start` would) on
// it, makes a warm-up set due and waits for it, then makes the measured set due with one UPDATE
// and times how long the K processes take to drive every row to `delivered`.

const SCALE_WARMUP = 3000;
/** next_attempt_at while loaded: far enough that no gateway claims a row before it is made due. */
const FAR_FUTURE_MS = 8_000_000_000_000;
const POLL_MS = 50;

interface Ticks {
  /** utime + stime of the process, in clock ticks. */
  byPid: Map<number, number>;
}

/** CPU ticks of every process named `postgres` (the server, its backends and background workers). */
function postgresTicks(): Ticks {
  const byPid = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return { byPid };
  }
  for (const e of entries.slice(0, 100_000)) {
    const pid = Number(e);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const t = procTicks(pid);
    if (t !== undefined) byPid.set(pid, t);
  }
  return { byPid };
}

/** Ticks spent between two snapshots; a process started in between counts from zero. */
function ticksBetween(before: Ticks, after: Ticks): number {
  let sum = 0;
  for (const [pid, t] of after.byPid) sum += t - (before.byPid.get(pid) ?? 0);
  return sum;
}

interface GatewayChild {
  pid: number;
  stop(): Promise<void>;
}

/** `src/main.ts` as its own process on `databaseUrl` (the tests' spawnGateway), stopped by SIGTERM. */
async function startGatewayProcess(databaseUrl: string, adminToken: string): Promise<GatewayChild> {
  const g = await spawnGateway(
    {
      SNAPGATE_DATABASE_URL: databaseUrl,
      SNAPGATE_HOST: HOST,
      SNAPGATE_ADMIN_TOKEN: adminToken,
      SNAPGATE_RATE_LIMIT: 'off',
      SNAPGATE_MODE: 'sandbox',
    },
    30_000,
  );
  const pid = g.child.pid;
  if (pid === undefined) throw new Error('a gateway process could not be spawned');
  return { pid, stop: () => stopGateway(g) };
}

async function createDatabase(
  baseUrl: string,
  template?: string,
): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `snapgate_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    // A template must have no sessions; the store's backends can take a moment to go away.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
        break;
      } catch (e) {
        if (!template || attempt >= 20) throw e;
        await sleep(250);
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => c.end());
    },
  };
}

interface ScaleWorkload {
  template: string;
  warmMerchantId: string;
  merchantId: string;
  notifications: number;
  loadSec: number;
}

/** Commits the warm-up and measured payments into a new template database; nothing is due yet. */
async function loadScaleWorkload(
  baseUrl: string,
  receiver: AckReceiverChild,
  adminToken: string,
  notifications: number,
): Promise<ScaleWorkload & { drop: () => Promise<void> }> {
  const startedAt = performance.now();
  const db = await createDatabase(baseUrl);
  try {
    const config = loadConfig({
      SNAPGATE_MODE: 'sandbox',
      SNAPGATE_RATE_LIMIT: 'off',
      SNAPGATE_LOG_LEVEL: 'warn',
      SNAPGATE_ADMIN_TOKEN: adminToken,
      SNAPGATE_DATABASE_URL: db.url,
    });
    const store = await openStore(config);
    let merchantIds: [string, string];
    try {
      // Its dispatcher is never started: this gateway only bootstraps (keys, settings) and makes the changes.
      const { gateway } = await assembleGateway({ config, store, clock: systemClock, logger: createLogger('warn') });
      try {
        const refPrefix = `${new Date(Date.now() + 7 * 3600_000).toISOString().slice(2, 10).replaceAll('-', '')}`;
        let refCounter = 0;
        const b: Bench = {
          store,
          gateway,
          probe: probeStore(store),
          receiver,
          adminToken,
          nextRef: () => `${refPrefix}${String(++refCounter).padStart(12, '0')}`,
        };
        const warm = await createMerchant(b, 'bench scale-out warm-up');
        const measured = await createMerchant(b, 'bench scale-out');
        for (const [merchant, count] of [
          [warm, SCALE_WARMUP],
          [measured, notifications],
        ] as const) {
          const txns = await insertTransactions(b, merchant, count);
          for (let i = 0; i < txns.length; i += 64) {
            await Promise.all(txns.slice(i, i + 64).map((t) => pay(b, t)));
          }
        }
        merchantIds = [warm.id, measured.id];
      } finally {
        await gateway.app.close();
      }
      const moved = await (store as PostgresStore).pool.query(
        `UPDATE notifications SET next_attempt_at = $1 WHERE state = 'pending'`,
        [FAR_FUTURE_MS],
      );
      if (moved.rowCount !== SCALE_WARMUP + notifications)
        throw new Error(`expected ${SCALE_WARMUP + notifications} pending notifications, found ${moved.rowCount}`);
    } finally {
      await store.close();
    }
    return {
      template: db.name,
      warmMerchantId: merchantIds[0],
      merchantId: merchantIds[1],
      notifications,
      loadSec: (performance.now() - startedAt) / 1000,
      drop: db.drop,
    };
  } catch (e) {
    await db.drop().catch(() => undefined);
    throw e;
  }
}

interface ScaleFigures {
  processes: number;
  delivered: number;
  notDelivered: number;
  ackedPerSec: number;
  spanSec: number;
  /** The flip's commit → the first attempt's start: the dispatchers' poll (250 ms) and first claim. */
  firstAttemptMs: number;
  attemptsPerDelivered: number;
  /** Delivered notifications per process, in start order. */
  split: number[];
  /** Per process, % of one core over the window (the flip → all delivered seen). */
  gatewayCpuPct: number[];
  gatewayCpuUsPerCallback: number;
  postgresCpuPct: number;
  postgresCpuUsPerCallback: number;
  receiverCpuPct: number;
  receiverCpuUsPerCallback: number;
  benchCpuPct: number;
  /** All CPUs busy, % of the machine's capacity over the window. */
  machineBusyPct: number;
  /** Busy CPU not accounted for by the processes above (other work on the machine), % of one core. */
  otherCpuPct: number;
  /** 1-minute load average when the window started. */
  loadAverage: number;
  windowSec: number;
}

async function waitDelivered(
  client: pg.Client,
  merchantId: string,
  expected: number,
  boundMs: number,
): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    const r = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM notifications WHERE merchant_id = $1 AND state = 'delivered'`,
      [merchantId],
    );
    if (Number(r.rows[0]?.n) >= expected) return true;
    await sleep(POLL_MS);
  }
  return false;
}

async function runScaleOut(
  baseUrl: string,
  w: ScaleWorkload,
  receiver: AckReceiverChild,
  adminToken: string,
  processes: number,
  boundMs: number,
): Promise<ScaleFigures> {
  const db = await createDatabase(baseUrl, w.template);
  const gateways: GatewayChild[] = [];
  const client = new pg.Client({ connectionString: db.url });
  try {
    for (let i = 0; i < processes; i++) gateways.push(await startGatewayProcess(db.url, adminToken));
    await client.connect();
    // Warm-up: JIT, pools and connections of every process, on rows not measured.
    await client.query(`UPDATE notifications SET next_attempt_at = 0 WHERE merchant_id = $1`, [w.warmMerchantId]);
    if (!(await waitDelivered(client, w.warmMerchantId, SCALE_WARMUP, boundMs)))
      throw new Error(`${processes} process(es): the warm-up was not delivered in time`);
    await sleep(500);

    const pgBefore = postgresTicks();
    const gwBefore = gateways.map((g) => procTicks(g.pid) ?? NaN);
    const receiverBefore = await receiver.stats();
    const machineBefore = machineTicks();
    const loadAverage = loadavg()[0] ?? NaN;
    const benchBefore = cpuNowUs();
    const windowStart = performance.now();
    await client.query(`UPDATE notifications SET next_attempt_at = 0 WHERE merchant_id = $1`, [w.merchantId]);
    const flipAt = Date.now();
    const isComplete = await waitDelivered(client, w.merchantId, w.notifications, boundMs);
    const windowMs = performance.now() - windowStart;
    const benchUs = cpuNowUs() - benchBefore;
    const machineAfter = machineTicks();
    const receiverAfter = await receiver.stats();
    const gwTicks = gateways.map((g, i) => (procTicks(g.pid) ?? NaN) - (gwBefore[i] as number));
    const pgTicks = ticksBetween(pgBefore, postgresTicks());
    if (!isComplete) process.stderr.write(`${processes} process(es): not every notification was delivered in time\n`);

    const summary = await client.query<{ delivered: string; total: string; attempts: string; last: string | null }>(
      `SELECT count(*) FILTER (WHERE state = 'delivered') AS delivered, count(*) AS total,
              sum(attempt_count) FILTER (WHERE state = 'delivered') AS attempts, max(delivered_at) AS last
       FROM notifications WHERE merchant_id = $1`,
      [w.merchantId],
    );
    const s = summary.rows[0];
    const delivered = Number(s?.delivered ?? 0);
    const byWorker = await client.query<{ worker_id: string; n: string; first: string }>(
      `SELECT a.worker_id, count(*) FILTER (WHERE a.outcome = 'acknowledged') AS n, min(a.started_at) AS first
       FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id
       WHERE n.merchant_id = $1 GROUP BY a.worker_id`,
      [w.merchantId],
    );
    // Worker ids are `host:pid:random`: match them to the processes started.
    const split = gateways.map((g) =>
      byWorker.rows.filter((r) => r.worker_id.split(':')[1] === String(g.pid)).reduce((sum, r) => sum + Number(r.n), 0),
    );
    const firstAttempt = byWorker.rows.reduce((m, r) => Math.min(m, Number(r.first)), Number.POSITIVE_INFINITY);
    const spanSec = (Number(s?.last ?? NaN) - flipAt) / 1000;
    const pct = (ticks: number) => (ticks * TICK_MS * 100) / windowMs;
    const usPerCb = (ticks: number) => (ticks * TICK_MS * 1000) / Math.max(1, delivered);
    const gwTotal = gwTicks.reduce((sum, t) => sum + t, 0);
    const machineBusyPct =
      ((machineAfter.busy - machineBefore.busy) * 100) / (machineAfter.total - machineBefore.total);
    return {
      processes,
      delivered,
      notDelivered: Number(s?.total ?? 0) - delivered,
      ackedPerSec: delivered / Math.max(spanSec, 0.001),
      spanSec,
      firstAttemptMs: firstAttempt - flipAt,
      attemptsPerDelivered: Number(s?.attempts ?? 0) / Math.max(1, delivered),
      split,
      gatewayCpuPct: gwTicks.map(pct),
      gatewayCpuUsPerCallback: usPerCb(gwTotal),
      postgresCpuPct: pct(pgTicks),
      postgresCpuUsPerCallback: usPerCb(pgTicks),
      receiverCpuPct: (receiverAfter.cpuUs - receiverBefore.cpuUs) / 10 / windowMs,
      receiverCpuUsPerCallback: (receiverAfter.cpuUs - receiverBefore.cpuUs) / Math.max(1, delivered),
      benchCpuPct: benchUs / 10 / windowMs,
      machineBusyPct,
      otherCpuPct:
        machineBusyPct * availableParallelism() -
        pct(gwTotal + pgTicks) -
        (receiverAfter.cpuUs - receiverBefore.cpuUs + benchUs) / 10 / windowMs,
      loadAverage,
      windowSec: windowMs / 1000,
    };
  } finally {
    await client.end().catch(() => undefined);
    await Promise.all(gateways.map((g) => g.stop()));
    await db.drop().catch(() => undefined);
  }
}

const SCALE_GOAL_RATIO = 1.5;

function scaleOutReport(w: ScaleWorkload, runs: ScaleFigures[], baseline: BaselineFigures): string[] {
  const one = runs[0];
  const cells = (xs: number[]) => xs.map((x) => fmt(x)).join(' + ');
  const rows = runs.map((r) => [
    `snapgate, ${r.processes} gateway process${r.processes === 1 ? '' : 'es'}`,
    fmt(r.ackedPerSec),
    fmt(r.ackedPerSec / (one?.ackedPerSec ?? NaN), 2),
    fmt(r.spanSec, 2),
    fmt(r.firstAttemptMs),
    fmt(r.attemptsPerDelivered, 2),
    cells(r.split),
    cells(r.gatewayCpuPct),
    fmt(r.postgresCpuPct),
    fmt(r.receiverCpuPct),
    fmt(r.benchCpuPct),
    fmt(r.otherCpuPct),
    fmt(r.machineBusyPct),
    fmt(r.loadAverage, 2),
  ]);
  const usRows = runs.map((r) => [
    `snapgate, ${r.processes} gateway process${r.processes === 1 ? '' : 'es'}`,
    fmt(r.gatewayCpuUsPerCallback),
    fmt(r.postgresCpuUsPerCallback),
    fmt(r.receiverCpuUsPerCallback),
  ]);
  const lines = [
    `PostgreSQL scale-out — ${fmt(w.notifications)} notifications drained by ${runs.map((r) => r.processes).join(', then ')} gateway process(es), same run`,
    `Workload: ${fmt(SCALE_WARMUP + w.notifications)} QRIS payments committed once through changer.change (the production path) into a template`,
    `database in ${fmt(w.loadSec, 1)} s, every notification due far in the future. Each run: a fresh copy (CREATE DATABASE … TEMPLATE),`,
    'K gateways started as `node --import tsx src/main.ts` child processes on it (pg pool 16, dispatcher defaults:',
    `maxInFlight 512, claimBatch 200, poll 250 ms), ${fmt(SCALE_WARMUP)} warm-up notifications made due and delivered, then the`,
    `${fmt(w.notifications)} measured ones made due by one UPDATE. acked/s = delivered ÷ (last delivered_at − the UPDATE's commit).`,
    `Machine: ${availableParallelism()} CPUs shared by PostgreSQL, the gateway processes, the receiver and this process (polling`,
    'the count every 50 ms). This replaces nothing: the in-process phases above (if run) are one gateway in this process.',
    '',
    table(
      [
        'Run',
        'acked/s',
        '× 1 proc',
        'span s',
        '1st attempt ms',
        'attempts/ack',
        'acked by process',
        'gateway CPU %',
        'postgres CPU %',
        'receiver CPU %',
        'bench CPU %',
        'other CPU %',
        'machine busy %',
        'load 1m',
      ],
      rows,
    ),
    '',
    'CPU %: of one core over the window (the UPDATE → every row seen delivered), from /proc/<pid>/stat (gateways,',
    `every process named postgres) and process.cpuUsage() (receiver, bench); machine busy %: all ${availableParallelism()} CPUs, /proc/stat;`,
    'other CPU %: busy time no process above accounts for (other work on the machine); load 1m: at the window’s start.',
    '1st attempt ms: the UPDATE’s commit → the first attempt’s start (the dispatchers find due rows by polling).',
    '',
    table(
      ['CPU per callback, µs', 'gateways', 'postgres', 'receiver'],
      [
        ...usRows,
        [
          `raw undici Pool (baseline, sender = this process)`,
          fmt(baseline.senderCpuUsPerRequest),
          '—',
          fmt(baseline.receiverCpuUsPerRequest),
        ],
      ],
    ),
    '',
    `raw undici baseline acked/s      ${fmt(baseline.ackedPerSec).padStart(7)}`,
  ];
  for (const r of runs.slice(1)) {
    const ratio = r.ackedPerSec / (one?.ackedPerSec ?? NaN);
    lines.push(
      `${r.processes} processes / 1 process acked/s ${fmt(ratio, 2).padStart(7)}   goal ≥ ${fmt(SCALE_GOAL_RATIO, 2)}${r.processes === 2 ? `  ${ratio >= SCALE_GOAL_RATIO ? 'met' : 'NOT MET'}` : ''}`,
    );
  }
  return lines;
}

// ---------------------------------------------------------------------------------------
// Options and output.

interface Options {
  durationSec: number;
  isJson: boolean;
  store: 'sqlite' | 'postgres';
  /** PostgreSQL only: the scale-out runs 1, 2, … up to this many gateway processes. */
  processes: number;
  /** PostgreSQL only: measured notifications per scale-out run; default durationSec × 2,000. */
  notifications: number | undefined;
  /** PostgreSQL only: the baseline and the scale-out, without the in-process phases. */
  isScaleOnly: boolean;
  /** Status changes made together, and awaited, per round of the throughput phase (like requests arriving together). */
  inFlight: number;
  /** Changes committed before the dispatcher drains them alone; default durationSec × 3,000. */
  backlog: number | undefined;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    durationSec: DEFAULT_DURATION_SEC,
    isJson: false,
    store: 'sqlite',
    processes: 2,
    notifications: undefined,
    isScaleOnly: false,
    inFlight: DEFAULT_IN_FLIGHT_CHANGES,
    backlog: undefined,
  };
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
    } else if (arg === '--processes') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 2 || n > 4) throw new TypeError('--processes takes 2, 3 or 4');
      options.processes = n;
    } else if (arg === '--notifications') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1000 || n > 500_000)
        throw new TypeError('--notifications takes a whole number, 1,000 to 500,000');
      options.notifications = n;
    } else if (arg === '--in-flight') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 1024)
        throw new TypeError('--in-flight takes a whole number, 1 to 1,024');
      options.inFlight = n;
    } else if (arg === '--backlog') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1000 || n > 1_000_000)
        throw new TypeError('--backlog takes a whole number, 1,000 to 1,000,000');
      options.backlog = n;
    } else if (arg === '--scale-only') options.isScaleOnly = true;
    else
      throw new TypeError(
        `unknown option ${arg}; use --duration N, --in-flight N, --backlog N, --json, --store sqlite|postgres, --processes N, --notifications N and --scale-only`,
      );
  }
  if (options.store !== 'postgres' && (options.isScaleOnly || options.notifications !== undefined))
    throw new TypeError('--scale-only and --notifications need --store postgres');
  return options;
}

/** A fresh database (or, without the right to create one, a fresh schema) for this run. */

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
    const receiver = await forkReceiver<AckReceiverStats>(import.meta.url);
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
      // inline: the writes on the main thread, as before the writer thread (one sitting, both ways).
      SNAPGATE_SQLITE_WRITER: process.env.SNAPGATE_SQLITE_WRITER,
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

    if (!options.isScaleOnly) {
      // Every phase has its own merchant, so its notifications are read back by merchant id.
      process.stderr.write('preparing transactions…\n');
      const warmMerchant = await createMerchant(b, 'bench warm-up');
      const warmTxns = await insertTransactions(b, warmMerchant, WARMUP_CHANGES);
      const tpMerchant = await createMerchant(b, 'bench throughput');
      const tpTxns = await insertTransactions(b, tpMerchant, d * PRODUCER_MAX_RATE);
      const backlogMerchant = await createMerchant(b, 'bench backlog');
      const backlogTxns = await insertTransactions(b, backlogMerchant, options.backlog ?? d * BACKLOG_PER_SEC);
      const latMerchant = await createMerchant(b, 'bench latency');
      const latTxns = await insertTransactions(b, latMerchant, d * LATENCY_RATE_PER_SEC);

      gateway.dispatcher.start();
      // Bounds on waiting for the last acknowledgement of a phase; a slower run is reported, not awaited forever.
      const boundMs = Math.max(60_000, d * 12_000);
      process.stderr.write('warm-up…\n');
      await runPhase(b, {
        name: 'warm-up',
        merchant: warmMerchant,
        produce: asFastAsPossible(b, warmTxns, d, options.inFlight),
        boundMs,
      });

      const phases: GatewayFigures[] = [];
      process.stderr.write(`throughput: status changes as fast as possible for ${d} s, delivered meanwhile…\n`);
      phases.push(
        await runPhase(b, {
          name: 'snapgate, changes + delivery together',
          merchant: tpMerchant,
          produce: asFastAsPossible(b, tpTxns, d, options.inFlight),
          boundMs,
        }),
      );
      process.stderr.write(`backlog: ${backlogTxns.length} changes committed, then the dispatcher alone…\n`);
      phases.push(
        await runPhase(b, {
          name: 'snapgate, committed backlog, then delivery',
          merchant: backlogMerchant,
          produce: asFastAsPossible(b, backlogTxns, d * 10, options.inFlight),
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
          goal: 'gateway CPU µs per callback, changes + delivery',
          value: together.gatewayCpuUsPerCallback,
          target: `≤ ${GOAL_CPU_US_PER_CALLBACK}`,
          isMet: together.gatewayCpuUsPerCallback <= GOAL_CPU_US_PER_CALLBACK,
        },
        {
          goal: `p99 ms at ${LATENCY_RATE_PER_SEC}/s`,
          value: fixed.latencyMs.p99,
          target: `< ${GOAL_P99_MS}`,
          isMet: fixed.latencyMs.p99 < GOAL_P99_MS,
        },
      ];
      const storeDescription =
        store instanceof SqliteStore
          ? `embedded SQLite (better-sqlite3, WAL, synchronous=FULL; writes on ${store.writer.kind === 'thread' ? 'the writer thread' : 'the main thread (SNAPGATE_SQLITE_WRITER=inline)'})`
          : 'PostgreSQL (pg pool)';
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
          `${fmt(p.mainBusy * 100)} %`,
          p.writerBusy === undefined ? '—' : `${fmt(p.writerBusy * 100)} %`,
        ];
      });
      const out = [
        `Callback delivery benchmark — ${d} s phases, store: ${storeDescription}`,
        `Node ${environment.node}, ${environment.cpus} CPUs (${environment.cpuModel}); 127.0.0.1 only.`,
        'Receiver: bare node:http in a child process, answering 200 {"responseCode":"2002600",…} to every POST.',
        'Gateway: store, dispatcher (defaults: maxInFlight 512, claimBatch 200, undici Pool of 64) and the code',
        'making the status changes run in this process, as in one snapgate instance; the receiver has its own.',
        `Throughput phases: ${options.inFlight} status changes made together and awaited, round after round (--in-flight).`,
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
        `Where the gateway's time goes: store verb time, call → answer (${store.kind === 'sqlite' ? 'the wait for the turn’s group commit and the commit' : 'awaited round trips'}) / calls (rows per call)`,
        table(
          [
            'Run',
            'span s',
            'changeStatus',
            'claimDueNotifications',
            'recordAttempts',
            'loop p99 ms',
            'main busy',
            'writer busy',
          ],
          verbRows,
        ),
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
        process.stdout.write(
          `\nNOT every notification was delivered in: ${incomplete.map((p) => p.name).join(', ')}\n`,
        );
        process.exitCode = 1;
      }
      if (options.isJson) {
        process.stdout.write(
          `${JSON.stringify({ environment, baseline, phases, drainPerSec, ratio, goals, bodyBytes: sampleBody.length, headerBytes }, null, 2)}\n`,
        );
      }
    } else {
      const baselineOut = [
        `Callback delivery benchmark — PostgreSQL scale-out only (--scale-only); baseline ${d} s`,
        `Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}); 127.0.0.1 only.`,
        'Receiver: bare node:http in a child process, answering 200 {"responseCode":"2002600",…} to every POST.',
        `Each callback: a ${sampleBody.length}-byte notification body + ${headerBytes} bytes of signed headers (hmac-sha512).`,
        '',
        table(
          ['Run', 'acked/s', 'sender CPU µs/cb', 'receiver CPU µs/cb'],
          [
            [
              `raw undici Pool, ${BASELINE_CONNECTIONS} conns, ${BASELINE_IN_FLIGHT} in flight`,
              fmt(baseline.ackedPerSec),
              fmt(baseline.senderCpuUsPerRequest),
              fmt(baseline.receiverCpuUsPerRequest),
            ],
          ],
        ),
      ];
      process.stdout.write(`${baselineOut.join('\n')}\n`);
      if (options.isJson) process.stdout.write(`${JSON.stringify({ baseline }, null, 2)}\n`);
    }

    if (options.store === 'postgres' && databaseUrl) {
      // The in-process gateway and its database are done with: only the receiver is shared.
      await gateway.dispatcher.stop();
      await gateway.app.close();
      const notifications = options.notifications ?? d * 2000;
      process.stderr.write(
        `scale-out: committing ${fmt(SCALE_WARMUP + notifications)} payments into a template database…\n`,
      );
      const workload = await loadScaleWorkload(databaseUrl, receiver, adminToken, notifications);
      cleanups.unshift(workload.drop);
      const scale: ScaleFigures[] = [];
      const boundMs = Math.max(120_000, notifications * 10);
      for (let k = 1; k <= options.processes; k++) {
        process.stderr.write(`scale-out: ${k} gateway process(es) draining ${fmt(notifications)} notifications…\n`);
        scale.push(await runScaleOut(databaseUrl, workload, receiver, adminToken, k, boundMs));
      }
      process.stdout.write(`\n${scaleOutReport(workload, scale, baseline).join('\n')}\n`);
      if (scale.some((f) => f.notDelivered > 0)) {
        process.stdout.write('\nNOT every notification was delivered in the scale-out runs\n');
        process.exitCode = 1;
      }
      if (options.isJson) process.stdout.write(`${JSON.stringify({ scaleOut: { workload, runs: scale } }, null, 2)}\n`);
    }
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

if (servedKind() !== undefined) {
  await serveAckReceiverChild();
} else {
  await main();
}

// Memory benchmark: a committed backlog of undelivered notifications (default 1,000,000, all due)
// drained by one real gateway process (`src/main.ts`, as `npm start` runs it) on the embedded
// SQLite store, with a merchant receiver acknowledging every callback. Once a second this process
// samples the gateway's RSS (/proc/<pid>/status) and its heap (the gateway's /metrics), and prints
// the curve and whether it stayed flat.
//
//   npm run bench:backlog                           # 1,000,000 notifications
//   npm run bench:backlog -- --notifications 20000  # quick check
//   npm run bench:backlog -- --json                 # also print the samples as JSON
//
// The backlog is written straight into the database file with the gateway stopped (bulk SQL in big
// transactions, rows as the store writes them for a QRIS payment: the transaction, its two
// status_history rows, its notification), then the gateway is started on it and drains it.
// Not a test: nothing asserts memory or timings.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TRANSACTION_STATUS } from '@snapgate/snap';
import Database from 'better-sqlite3';
import { newBillNumber } from '../src/payments/ids.ts';
import { notificationBody } from '../src/payments/notification-body.ts';
import type { CallbackJson, TransactionRecord } from '../src/records/records.ts';
import { transactionToRow } from '../src/store/rows.ts';
import { type GatewayProcess, spawnGateway } from '../test/helpers/process.ts';
import {
  type AckReceiverChild,
  type AckReceiverStats,
  createWithAdmin,
  fmt,
  forkReceiver,
  HOST,
  PAYER,
  procTicks,
  serveAckReceiverChild,
  servedKind,
  stopGateway,
  TICK_MS,
  table,
} from './bench-kit.ts';

const DEFAULT_NOTIFICATIONS = 1_000_000;
const MIN_NOTIFICATIONS = 10_000;
const MAX_NOTIFICATIONS = 5_000_000;
/** Payments written per transaction while filling. */
const FILL_CHUNK = 25_000;
const SAMPLE_MS = 1000;
/** RSS after this many seconds of draining is the baseline the flatness rule compares against. */
const SETTLE_SEC = 10;
const FLAT_LIMIT_MIB = 64;
/** Seconds still sampled after the last notification is delivered (does the memory come back?). */
const TAIL_SEC = 5;
/** Gives up when nothing more is delivered for this long. */
const STALL_SEC = 60;
const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------------------
// Child: the merchant's receiver, acknowledging every callback (as bench/delivery.ts's).

// ---------------------------------------------------------------------------------------
// The gateway process and its merchant.

interface Merchant {
  id: string;
  callbackJson: CallbackJson;
}

/** POST /admin/v1/merchants on a running gateway. */
async function createMerchant(g: GatewayProcess, adminToken: string, callbackBaseUrl: string): Promise<Merchant> {
  const body = await createWithAdmin(g.url, adminToken, '/merchants', { name: 'bench backlog', callbackBaseUrl });
  return { id: String(body.id), callbackJson: (body.callbackJson as CallbackJson | undefined) ?? 'standard' };
}

// ---------------------------------------------------------------------------------------
// The backlog, written into the stopped gateway's database.

interface Fill {
  seconds: number;
  bodyBytes: number;
  dbMiB: number;
}

/**
 * For each payment, the rows a QRIS payment leaves: insertTransaction (status 01, seq 1, its
 * history row), then changeStatus to 00 (seq 2, its history row, its notification, due now).
 */
function fillBacklog(file: string, merchant: Merchant, count: number): Fill {
  const startedAt = performance.now();
  const db = new Database(file);
  try {
    // Fill only: the gateway sets synchronous = FULL again when it opens the file.
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = ON');
    db.pragma('cache_size = -262144');
    const txnColumns = Object.keys(transactionToRow({ details: {} } as TransactionRecord));
    const insertTxn = db.prepare(
      `INSERT INTO transactions (${txnColumns.join(', ')}) VALUES (${txnColumns.map((k) => `@${k}`).join(', ')})`,
    );
    const insertHistory = db.prepare(
      'INSERT INTO status_history (reference_no, seq, status, status_desc, reason, changed_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const insertNotification = db.prepare(
      `INSERT INTO notifications (id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state,
         attempt_count, next_attempt_at, created_at, updated_at, request_id)
       VALUES (@id, @referenceNo, @merchantId, @kind, @txnSeq, @latestStatus, @body, 'pending', 0, @nextAttemptAt,
         @at, @at, @requestId)`,
    );
    // One payment a millisecond, ending now: every notification is due (first retry delay 0 s).
    const firstAt = Date.now() - count;
    const refPrefix = new Date(firstAt + 7 * 3600_000).toISOString().slice(2, 10).replaceAll('-', '');
    let bodyBytes = 0;
    const writeChunk = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const at = firstAt + i;
        const created: TransactionRecord = {
          referenceNo: `${refPrefix}${String(i + 1).padStart(12, '0')}`,
          merchantId: merchant.id,
          kind: 'qris',
          partnerReferenceNo: `backlog-${i}`,
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
          expiresAt: at + 3_600_000,
          paidAt: null,
          details: { qrContent: '00020101021226', terminalId: 'T001', storeId: 'S001' },
          createdAt: at,
          updatedAt: at,
        };
        const paid: TransactionRecord = {
          ...created,
          status: '00',
          statusDesc: TRANSACTION_STATUS['00'],
          seq: 2,
          paidAmount: created.amount,
          paidAt: at,
          details: { ...created.details, payer: PAYER },
          updatedAt: at,
        };
        const body = notificationBody(paid, at, merchant);
        bodyBytes += body.length;
        insertTxn.run(transactionToRow(paid));
        insertHistory.run(paid.referenceNo, 1, '01', TRANSACTION_STATUS['01'], null, at);
        insertHistory.run(paid.referenceNo, 2, '00', TRANSACTION_STATUS['00'], 'notified by acquirer bench', at);
        insertNotification.run({
          id: `${String(at).padStart(13, '0')}${String(i % 10_000_000).padStart(7, '0')}`,
          referenceNo: paid.referenceNo,
          merchantId: merchant.id,
          kind: paid.kind,
          txnSeq: paid.seq,
          latestStatus: paid.status,
          body,
          nextAttemptAt: at,
          at,
          requestId: randomUUID(),
        });
      }
    });
    for (let from = 0; from < count; from += FILL_CHUNK) {
      writeChunk.immediate(from, Math.min(count, from + FILL_CHUNK));
      if ((from / FILL_CHUNK) % 8 === 7) process.stderr.write(`  ${fmt(from + FILL_CHUNK)} written…\n`);
    }
    db.pragma('wal_checkpoint(TRUNCATE)');
    return { seconds: (performance.now() - startedAt) / 1000, bodyBytes: bodyBytes / count, dbMiB: fileMiB(file) };
  } finally {
    db.close();
  }
}

function fileMiB(file: string): number {
  let bytes = 0;
  for (const f of [file, `${file}-wal`]) {
    try {
      bytes += statSync(f).size;
    } catch {
      // no -wal file
    }
  }
  return bytes / MIB;
}

// ---------------------------------------------------------------------------------------
// Sampling.

/** VmRSS and VmHWM (peak) of a process, in MiB; NaN where it cannot be read. */
function procMemory(pid: number): { rssMiB: number; hwmMiB: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 };
  } catch {
    return { rssMiB: NaN, hwmMiB: NaN };
  }
}

interface GatewayMetrics {
  heapUsedMiB: number;
  externalMiB: number;
  /** Event-loop delay since the previous scrape (prom-client resets its histogram on every scrape). */
  loopMaxMs: number;
  acknowledged: number;
}

/** The gateway's /metrics (open in sandbox mode); NaN figures where it did not answer in time. */
async function scrapeMetrics(url: string): Promise<GatewayMetrics> {
  let text = '';
  try {
    const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SAMPLE_MS * 2) });
    text = await res.text();
  } catch {
    // a busy or stopping gateway: figures are NaN
  }
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    heapUsedMiB: value('snapgate_nodejs_heap_size_used_bytes') / MIB,
    externalMiB: value('snapgate_nodejs_external_memory_bytes') / MIB,
    loopMaxMs: value('snapgate_nodejs_eventloop_lag_max_seconds') * 1000,
    acknowledged: value('snapgate_callback_attempts_total\\{outcome="acknowledged"\\}'),
  };
}

interface Sample {
  /** Seconds since the gateway printed its address (its dispatcher had started). */
  t: number;
  delivered: number;
  ackedPerSec: number;
  rssMiB: number;
  heapUsedMiB: number;
  externalMiB: number;
  loopMaxMs: number;
  /** Of one core, over the interval. */
  cpuPct: number;
  isTail: boolean;
}

/** A read-only connection beside the gateway's; the count walks notifications_by_state (state, created_at). */
function deliveredCounter(file: string): { count: () => number; close: () => void; plan: string } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const sql = `SELECT count(*) AS n FROM notifications WHERE state = 'delivered'`;
  const stmt = db.prepare(sql);
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join('; ');
  return { count: () => (stmt.get() as { n: number }).n, close: () => db.close(), plan };
}

/** The SQL of SqliteStore.deliveryBacklog, which the dispatcher runs once a second on its event loop. */
function timeBacklogQuery(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const stmt = db.prepare(
      `SELECT count(*) AS n, min(created_at) AS oldest FROM notifications
       WHERE state IN ('pending', 'retrying', 'delivering')`,
    );
    stmt.get();
    const t0 = performance.now();
    for (let i = 0; i < 3; i++) stmt.get();
    return (performance.now() - t0) / 3;
  } finally {
    db.close();
  }
}

interface Drain {
  samples: Sample[];
  isComplete: boolean;
  /** Mean time of the parent's delivered count, ms. */
  countMs: number;
  /** Its query plan. */
  countPlan: string;
  peakRssMiB: number;
}

async function sampleDrain(g: GatewayProcess, pid: number, file: string, expected: number): Promise<Drain> {
  const counter = deliveredCounter(file);
  const samples: Sample[] = [];
  const startedAt = performance.now();
  let countMs = 0;
  let counts = 0;
  let lastTicks = procTicks(pid) ?? NaN;
  let lastDelivered = 0;
  let lastAt = startedAt;
  let progressAt = startedAt;
  let drainedAt: number | undefined;
  let isComplete = false;
  let peakRssMiB = NaN;
  try {
    for (let k = 0; ; k++) {
      const due = startedAt + k * SAMPLE_MS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const at = performance.now();
      const mem = procMemory(pid);
      const ticks = procTicks(pid) ?? NaN;
      const metrics = await scrapeMetrics(g.url);
      const c0 = performance.now();
      const delivered = counter.count();
      countMs += performance.now() - c0;
      counts++;
      const intervalSec = k === 0 ? NaN : (at - lastAt) / 1000;
      if (Number.isFinite(mem.hwmMiB)) peakRssMiB = mem.hwmMiB;
      samples.push({
        t: (at - startedAt) / 1000,
        delivered,
        ackedPerSec: (delivered - lastDelivered) / intervalSec,
        rssMiB: mem.rssMiB,
        heapUsedMiB: metrics.heapUsedMiB,
        externalMiB: metrics.externalMiB,
        loopMaxMs: metrics.loopMaxMs,
        cpuPct: ((ticks - lastTicks) * TICK_MS * 100) / (at - lastAt),
        isTail: drainedAt !== undefined,
      });
      if (delivered > lastDelivered) progressAt = at;
      lastTicks = ticks;
      lastDelivered = delivered;
      lastAt = at;
      if (k % 10 === 0 || delivered >= expected)
        process.stderr.write(
          `  ${fmt(samples.at(-1)?.t, 0)} s: ${fmt(delivered)} delivered, RSS ${fmt(mem.rssMiB)} MiB\n`,
        );
      if (drainedAt === undefined && delivered >= expected) {
        drainedAt = at;
        isComplete = true;
      }
      if (drainedAt !== undefined && at - drainedAt >= TAIL_SEC * 1000) break;
      if (drainedAt === undefined && at - progressAt > STALL_SEC * 1000) break;
      if (g.child.exitCode !== null || g.child.signalCode !== null) break;
    }
  } finally {
    counter.close();
  }
  return { samples, isComplete, countMs: countMs / Math.max(1, counts), countPlan: counter.plan, peakRssMiB };
}

// ---------------------------------------------------------------------------------------
// Summary.

interface Summary {
  rssStartMiB: number;
  rssMaxMiB: number;
  rssMaxAtSec: number;
  rssEndMiB: number;
  rssMaxMinusStartMiB: number;
  rssAfterSettleMiB: number;
  /** Max RSS from SETTLE_SEC on, minus RSS at SETTLE_SEC. */
  growthAfterSettleMiB: number;
  /** Least-squares slope of RSS over delivered notifications, from SETTLE_SEC on. */
  mibPer100kDelivered: number;
  rssAfterTailMiB: number;
  heapStartMiB: number;
  heapMaxMiB: number;
  heapEndMiB: number;
  drainSec: number;
  ackedPerSec: number;
  /** undefined: the drain was too short to judge. */
  isFlat: boolean | undefined;
}

function summarize(samples: Sample[], expected: number): Summary {
  const draining = samples.filter((s) => !s.isTail);
  const first = draining[0];
  const last = draining.at(-1);
  const settled = draining.filter((s) => s.t >= SETTLE_SEC);
  const max = (xs: Sample[], f: (s: Sample) => number) =>
    xs.reduce<Sample | undefined>((m, s) => (m === undefined || f(s) > f(m) ? s : m), undefined);
  const rssMax = max(draining, (s) => s.rssMiB);
  const settleBase = settled[0];
  const settledMax = max(settled, (s) => s.rssMiB);
  const growthAfterSettleMiB = (settledMax?.rssMiB ?? NaN) - (settleBase?.rssMiB ?? NaN);
  // Judged only with at least as long again after the settling time.
  const isJudged = last !== undefined && last.t >= 2 * SETTLE_SEC;
  const drainSec = last && last.delivered >= expected ? last.t : NaN;
  return {
    rssStartMiB: first?.rssMiB ?? NaN,
    rssMaxMiB: rssMax?.rssMiB ?? NaN,
    rssMaxAtSec: rssMax?.t ?? NaN,
    rssEndMiB: last?.rssMiB ?? NaN,
    rssMaxMinusStartMiB: (rssMax?.rssMiB ?? NaN) - (first?.rssMiB ?? NaN),
    rssAfterSettleMiB: settleBase?.rssMiB ?? NaN,
    growthAfterSettleMiB,
    mibPer100kDelivered: slope(settled.map((s) => [s.delivered, s.rssMiB])) * 100_000,
    rssAfterTailMiB: samples.at(-1)?.rssMiB ?? NaN,
    heapStartMiB: first?.heapUsedMiB ?? NaN,
    heapMaxMiB: max(draining, (s) => s.heapUsedMiB)?.heapUsedMiB ?? NaN,
    heapEndMiB: last?.heapUsedMiB ?? NaN,
    drainSec,
    ackedPerSec: (last?.delivered ?? NaN) / (last?.t ?? NaN),
    isFlat: isJudged ? growthAfterSettleMiB < FLAT_LIMIT_MIB : undefined,
  };
}

/** Least-squares slope of y over x; NaN for fewer than 3 points. */
function slope(points: Array<[number, number]>): number {
  const ok = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (ok.length < 3) return NaN;
  const mx = ok.reduce((s, [x]) => s + x, 0) / ok.length;
  const my = ok.reduce((s, [, y]) => s + y, 0) / ok.length;
  const sxy = ok.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = ok.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? NaN : sxy / sxx;
}

interface Totals {
  delivered: number;
  notDelivered: number;
  attemptsPerDelivered: number;
  attemptRows: number;
  dbMiB: number;
}

function totalsOf(file: string): Totals {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const r = db
      .prepare(
        `SELECT count(*) AS total, sum(state = 'delivered') AS delivered,
                sum(CASE WHEN state = 'delivered' THEN attempt_count ELSE 0 END) AS attempts FROM notifications`,
      )
      .get() as { total: number; delivered: number | null; attempts: number | null };
    const a = db.prepare('SELECT count(*) AS n FROM notification_attempts').get() as { n: number };
    const delivered = r.delivered ?? 0;
    return {
      delivered,
      notDelivered: r.total - delivered,
      attemptsPerDelivered: (r.attempts ?? 0) / Math.max(1, delivered),
      attemptRows: a.n,
      dbMiB: fileMiB(file),
    };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------------------
// Options and output.

interface Options {
  notifications: number;
  isJson: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { notifications: DEFAULT_NOTIFICATIONS, isJson: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.isJson = true;
    else if (arg === '--notifications') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < MIN_NOTIFICATIONS || n > MAX_NOTIFICATIONS)
        throw new TypeError(
          `--notifications takes a whole number, ${fmt(MIN_NOTIFICATIONS)} to ${fmt(MAX_NOTIFICATIONS)}`,
        );
      options.notifications = n;
    } else throw new TypeError(`unknown option ${arg}; use --notifications N and --json`);
  }
  return options;
}

function report(
  o: Options,
  fill: Fill,
  backlogQueryMs: number,
  drain: Drain,
  s: Summary,
  totals: Totals,
  receiverRequests: number,
): string[] {
  const rows = drain.samples.map((x) => [
    `${fmt(x.t, 0)}${x.isTail ? ' (drained)' : ''}`,
    fmt(x.delivered),
    fmt(x.ackedPerSec),
    fmt(x.rssMiB, 1),
    fmt(x.heapUsedMiB, 1),
    fmt(x.externalMiB, 1),
    fmt(x.loopMaxMs),
    fmt(x.cpuPct),
  ]);
  const flat =
    s.isFlat === undefined
      ? `n/a (draining lasted under ${2 * SETTLE_SEC} s)`
      : `${s.isFlat ? 'yes' : 'NO'} (max RSS from ${SETTLE_SEC} s on − RSS at ${SETTLE_SEC} s = ${fmt(s.growthAfterSettleMiB, 1)} MiB; flat when < ${FLAT_LIMIT_MIB} MiB)`;
  const line = (label: string, value: string) => `${label.padEnd(44)}${value}`;
  return [
    `Backlog memory benchmark — ${fmt(o.notifications)} undelivered notifications, embedded SQLite store`,
    `Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}); 127.0.0.1 only; load 1m ${fmt(loadavg()[0], 2)} at the end.`,
    `Backlog: ${fmt(o.notifications)} QRIS payments written into the stopped gateway's database in ${fmt(fill.seconds, 1)} s (transaction,`,
    `2 status_history rows and a pending notification due now each; ${fmt(fill.bodyBytes)}-byte bodies from notificationBody); ${fmt(fill.dbMiB)} MiB on disk.`,
    'Gateway: `node --import tsx src/main.ts` (spawnGateway), sandbox mode, SQLite WAL synchronous=FULL, dispatcher',
    'defaults (maxInFlight 512, claimBatch 200, poll 250 ms, undici Pool of 64); started on the filled file.',
    'Receiver: bare node:http in a child process, answering 200 {"responseCode":"2002600",…} to every POST.',
    `Sampled every ${SAMPLE_MS / 1000} s from t = 0 (the gateway printed its address; its dispatcher had started): RSS = VmRSS`,
    `of /proc/<pid>/status; heap, external and loop max from its /metrics (prom-client default metrics; loop max = the`,
    `largest event-loop delay since the previous scrape); delivered = count of state 'delivered' read by this process`,
    `(${fmt(drain.countMs, 1)} ms a count on average; ${drain.countPlan}); gw CPU %: of one core.`,
    '',
    table(['t s', 'delivered', 'acked/s', 'RSS MiB', 'heapUsed MiB', 'external MiB', 'loop max ms', 'gw CPU %'], rows),
    '',
    line('notifications delivered', `${fmt(totals.delivered)} of ${fmt(o.notifications)}`),
    line('attempts per delivered', fmt(totals.attemptsPerDelivered, 2)),
    line('receiver requests', fmt(receiverRequests)),
    line('drained in', `${fmt(s.drainSec, 0)} s`),
    line('overall acked/s', fmt(s.ackedPerSec)),
    line('RSS at start of draining (t = 0)', `${fmt(s.rssStartMiB, 1)} MiB`),
    line(`RSS at t = ${SETTLE_SEC} s`, `${fmt(s.rssAfterSettleMiB, 1)} MiB`),
    line('max RSS while draining', `${fmt(s.rssMaxMiB, 1)} MiB at t = ${fmt(s.rssMaxAtSec, 0)} s`),
    line('RSS at the end of draining', `${fmt(s.rssEndMiB, 1)} MiB`),
    line('max − start', `${fmt(s.rssMaxMinusStartMiB, 1)} MiB`),
    line(
      `RSS trend from t = ${SETTLE_SEC} s (least squares)`,
      `${fmt(s.mibPer100kDelivered, 2)} MiB per 100,000 delivered`,
    ),
    line(`RSS ${TAIL_SEC} s after drained`, `${fmt(s.rssAfterTailMiB, 1)} MiB`),
    line('peak RSS (VmHWM, between samples too)', `${fmt(drain.peakRssMiB, 1)} MiB`),
    line(
      'heapUsed start / max / end',
      `${fmt(s.heapStartMiB, 1)} / ${fmt(s.heapMaxMiB, 1)} / ${fmt(s.heapEndMiB, 1)} MiB`,
    ),
    line('database + WAL after draining', `${fmt(totals.dbMiB)} MiB (${fmt(totals.attemptRows)} attempt rows)`),
    line(
      'deliveryBacklog query at the full backlog',
      `${fmt(backlogQueryMs, 1)} ms (the dispatcher refreshes its backlog gauges with it, at most once every 20 times its duration)`,
    ),
    line('flat', flat),
  ];
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench:backlog: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const receiver: AckReceiverChild = await forkReceiver<AckReceiverStats>(import.meta.url);
    cleanups.unshift(() => receiver.stop());
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-backlog-'));
    cleanups.unshift(async () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'snapgate.db');
    const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
    // Both starts share the master key: the merchant's secret, sealed on the first, opens on the second.
    const env = {
      SNAPGATE_DB: file,
      SNAPGATE_HOST: HOST,
      SNAPGATE_MODE: 'sandbox',
      SNAPGATE_ADMIN_TOKEN: adminToken,
      SNAPGATE_MASTER_KEY: randomBytes(32).toString('base64'),
      SNAPGATE_RATE_LIMIT: 'off',
    };

    process.stderr.write('creating the schema and the merchant (first start)…\n');
    const first = await spawnGateway(env, 60_000);
    let merchant: Merchant;
    try {
      merchant = await createMerchant(first, adminToken, receiver.baseUrl);
    } finally {
      await stopGateway(first);
    }

    process.stderr.write(`writing ${fmt(options.notifications)} notifications with the gateway stopped…\n`);
    const fill = fillBacklog(file, merchant, options.notifications);
    const backlogQueryMs = timeBacklogQuery(file);

    process.stderr.write('starting the gateway on the backlog and sampling…\n');
    const receiverBefore = await receiver.stats();
    const g = await spawnGateway(env, 120_000);
    let drain: Drain;
    try {
      const pid = g.child.pid;
      if (pid === undefined) throw new Error('the gateway process has no pid');
      drain = await sampleDrain(g, pid, file, options.notifications);
    } finally {
      await stopGateway(g);
    }
    const receiverAfter = await receiver.stats();
    if (g.child.exitCode !== null && g.child.exitCode !== 0)
      process.stderr.write(`the gateway exited with ${g.child.exitCode}:\n${g.stderr()}\n`);

    const totals = totalsOf(file);
    const summary = summarize(drain.samples, options.notifications);
    const receiverRequests = receiverAfter.requests - receiverBefore.requests;
    process.stdout.write(
      `${report(options, fill, backlogQueryMs, drain, summary, totals, receiverRequests).join('\n')}\n`,
    );
    if (!drain.isComplete || totals.notDelivered > 0) {
      process.stdout.write(`\nNOT every notification was delivered (${fmt(totals.notDelivered)} left)\n`);
      process.exitCode = 1;
    }
    if (options.isJson) {
      process.stdout.write(
        `${JSON.stringify({ notifications: options.notifications, fill, backlogQueryMs, summary, totals, receiverRequests, countMs: drain.countMs, peakRssMiB: drain.peakRssMiB, samples: drain.samples }, null, 2)}\n`,
      );
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

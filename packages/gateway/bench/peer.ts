// The peer: BullMQ on Redis, the queue a Node team would pick instead of snapgate's delivery
// engine, run with bench:delivery's workload, alternating with bench:delivery itself in one sitting
// (repeat runs differ by 20–30 %, so only figures from the same sitting compare).
//
//   npm run bench:peer                                  # 2 rounds, 10 s phases
//   npm run bench:peer -- --duration 3 --rounds 1       # quick check
//   npm run bench:peer -- --only peer                   # BullMQ only, no snapgate
//   npm run bench:peer -- --notifications 50000 --json  # a bigger drain; also print the raw figures
//   npm run bench:peer -- --in-flight 64                # 64 changes (jobs) in flight together instead of 16
//   npm run bench:peer -- --with-inline                 # also snapgate with SNAPGATE_SQLITE_WRITER=inline
//
// Each round runs, in turn: BullMQ on a redis-server with `--appendonly yes --appendfsync always`
// (every write fsynced before Redis answers it), BullMQ on a redis-server with persistence off
// (`--appendonly no`), then snapgate (`bench/delivery.ts --duration D --in-flight F --backlog N --json`
// in a child process, SQLite store; with --with-inline, once more with its writes on the main thread). Both redis-servers are this bench's own: started on a free loopback port in a
// fresh temp dir with `--save ""`, stopped and removed afterwards (also on an error or SIGINT);
// never the machine's Redis.
//
// Per callback, BullMQ: a producer writes the notification body (notificationBody, the same
// ~386 bytes as snapgate's) and adds a job carrying it (Queue.add: one Lua script writing the job
// hash, the wait list and the events stream); a Worker (concurrency 512) takes it, signs it
// (callbackHeaders, HMAC-SHA512, a fresh X-TIMESTAMP) and POSTs it through an undici Pool of 64
// connections to the merchant's receiver (bare node:http in a child process, answering 200
// {"responseCode":"2002600",…}), checks the acknowledgement (isAcknowledgement) and returns;
// BullMQ then moves the job to `completed` (kept, BullMQ's default). Per callback, snapgate: the
// status change itself, its history row, a ledger entry and the notification committed in one
// transaction, then the attempt row and the acknowledgement committed too, in SQLite with
// synchronous=FULL. BullMQ keeps only the job and its completion in Redis: no payment, no ledger,
// no attempt log. Both sign the same bytes with the same code and post them with the same Pool shape.
//
// Phases, as bench:delivery's: (1) changes + delivery together: producers add jobs as fast as one
// event loop allows (--in-flight per turn, 16 by default, at most 12,000/s × duration) for --duration seconds while the
// worker delivers; acked/s = acknowledged ÷ (last acknowledgement − first add); CPU µs per
// callback of this process (process.cpuUsage) and of redis-server (/proc/<pid>/stat). (2) drain:
// --notifications jobs added with no worker running, then the worker alone; acked/s from its
// start. (3) 1,000 jobs/s for --duration seconds: job add → acknowledgement received, p50/p99.
// A warm-up of 1,000 jobs precedes them on each redis-server. Not a test: nothing asserts timings.
import { createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type Job, Queue, Worker } from 'bullmq';
import { Pool } from 'undici';
import { callbackHeaders, QRIS_CALLBACK_PATH } from '../src/delivery/callback-signing.ts';
import { isAcknowledgement } from '../src/delivery/send.ts';
import { newNotificationId } from '../src/payments/ids.ts';
import { notificationBody } from '../src/payments/notification-body.ts';
import {
  type AckReceiverChild,
  type AckReceiverStats,
  cpuNowUs,
  fmt,
  forkReceiver,
  freeLoopbackPort,
  HOST,
  median,
  type Percentiles,
  paidQrisTransaction,
  percentiles,
  procTicks,
  serveAckReceiverChild,
  servedKind,
  spawnOwned,
  stopOwnedOnSignals,
  TICK_MS,
  table,
} from './bench-kit.ts';

const DEFAULT_DURATION_SEC = 10;
const DEFAULT_ROUNDS = 2;
const DEFAULT_NOTIFICATIONS = 30_000;
/** As snapgate's dispatcher (and bench:delivery's baseline): an undici Pool of 64 connections, 512 in flight. */
const CONNECTIONS = 64;
const CONCURRENCY = 512;
/** As bench:delivery: adds per event-loop turn by default (--in-flight), and the most per second the throughput phase makes. */
const DEFAULT_IN_FLIGHT = 16;
const PRODUCER_MAX_RATE = 12_000;
const LATENCY_RATE_PER_SEC = 1000;
const WARMUP_JOBS = 1000;
/** What a team would set for webhooks; on this happy path no job is retried. */
const JOB_OPTIONS = { attempts: 5, backoff: { type: 'exponential', delay: 1000 } };

// ---------------------------------------------------------------------------------------
// The bench's own redis-server: a free loopback port, a fresh temp dir, removed when it stops.

type Persistence = 'always' | 'off';

interface RedisServer {
  port: number;
  pid: number;
  version: string;
  stop: () => Promise<void>;
}

async function startRedis(persistence: Persistence): Promise<RedisServer> {
  const port = await freeLoopbackPort();
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-peer-'));
  const durability =
    persistence === 'always' ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', ...durability];
  const redis = spawnOwned('redis-server', [...args, '--daemonize', 'no', '--logfile', ''], {
    dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its log is read until it is ready, and drained after, so that a full pipe never stops it.
  let log = '';
  try {
    await new Promise<void>((resolve, reject) => {
      redis.child.once('error', reject);
      redis.child.once('exit', (code) =>
        reject(new Error(`redis-server exited with ${code} before it was ready:\n${log}`)),
      );
      const keep = (chunk: Buffer) => {
        if (log.length > 20_000) return;
        log += chunk.toString('utf8');
        if (log.includes('Ready to accept connections')) resolve();
      };
      redis.child.stdout?.on('data', keep);
      redis.child.stderr?.on('data', keep);
    });
  } catch (e) {
    await redis.stop();
    throw e;
  }
  const version = /version=([\d.]+)/.exec(log)?.[1] ?? '?';
  return { port, pid: redis.child.pid as number, version, stop: redis.stop };
}

// ---------------------------------------------------------------------------------------
// BullMQ with bench:delivery's workload.

interface JobData {
  notificationId: string;
  body: string;
  /** Date.now() when the producer made the notification and added its job. */
  addedAt: number;
}

interface Peer {
  connection: { host: string; port: number; maxRetriesPerRequest: null };
  redisPid: number;
  pool: Pool;
  receiver: AckReceiverChild;
  newJob: () => JobData;
  sign: (notificationId: string, body: string) => Record<string, string>;
}

/** What one phase saw, counted by the worker's processor and its `completed` events. */
interface Tally {
  acked: number;
  failed: number;
  completed: number;
  firstAddAt: number;
  lastAckAt: number;
  ackMs: number[];
  completedMs: number[];
}

interface PhaseFigures {
  jobs: number;
  /** Jobs added per second while they were added. */
  addsPerSec: number;
  acked: number;
  failedAttempts: number;
  /** Acknowledged ÷ (last acknowledgement − first add, or − the worker's start when it started after). */
  ackedPerSec: number;
  spanSec: number;
  workerStartedAt: number | undefined;
  nodeCpuUsPerCallback: number;
  redisCpuUsPerCallback: number;
  receiverCpuUsPerCallback: number;
  /** Job add → acknowledgement received, ms. */
  latencyMs: Percentiles;
  /** Job add → its completion written to Redis (the worker's `completed` event), ms. */
  completedLatencyMs: Percentiles;
}

type Produce = (queue: Queue<JobData>, t: Tally) => Promise<{ jobs: number; addSec: number }>;

interface PhaseRun {
  name: string;
  produce: Produce;
  /** The drain: the worker starts only once every job is added. */
  isWorkerAfter?: boolean;
  boundMs: number;
}

async function deliver(p: Peer, t: Tally, job: Job<JobData>): Promise<void> {
  const { notificationId, body, addedAt } = job.data;
  const res = await p.pool.request({
    method: 'POST',
    path: QRIS_CALLBACK_PATH,
    headers: p.sign(notificationId, body),
    body,
  });
  const text = await res.body.text();
  if (!isAcknowledgement(res.statusCode, text)) throw new Error(`not acknowledged: HTTP ${res.statusCode}`);
  const now = Date.now();
  t.acked++;
  t.lastAckAt = now;
  t.ackMs.push(now - addedAt);
}

function addJob(p: Peer, queue: Queue<JobData>, t: Tally): Promise<unknown> {
  const data = p.newJob();
  if (Number.isNaN(t.firstAddAt)) t.firstAddAt = data.addedAt;
  return queue.add('callback', data);
}

/** As fast as one event loop allows: `inFlight` adds per turn, awaited, then the worker gets its turn. */
function asFastAsPossible(p: Peer, max: number, seconds: number, inFlight: number): Produce {
  return async (queue, t) => {
    const startedAt = performance.now();
    const deadline = startedAt + seconds * 1000;
    let jobs = 0;
    while (jobs < max && performance.now() < deadline) {
      const n = Math.min(inFlight, max - jobs);
      await Promise.all(Array.from({ length: n }, () => addJob(p, queue, t)));
      jobs += n;
      await nextTurn();
    }
    return { jobs, addSec: (performance.now() - startedAt) / 1000 };
  };
}

/** Open loop at a fixed rate: jobs are added when due, whatever the worker is doing. */
function atFixedRate(p: Peer, count: number, ratePerSec: number): Produce {
  return async (queue, t) => {
    const startedAt = performance.now();
    const adds: Promise<unknown>[] = [];
    while (adds.length < count) {
      const due = Math.min(count, Math.floor(((performance.now() - startedAt) / 1000) * ratePerSec) + 1);
      while (adds.length < due) adds.push(addJob(p, queue, t));
      await sleep(1);
    }
    await Promise.all(adds);
    return { jobs: count, addSec: (performance.now() - startedAt) / 1000 };
  };
}

const report = (e: Error) => process.stderr.write(`bench:peer: ${e.message}\n`);

/** One phase on its own queue (as bench:delivery gives each phase its own merchant). */
async function runPhase(p: Peer, run: PhaseRun): Promise<PhaseFigures> {
  const t: Tally = { acked: 0, failed: 0, completed: 0, firstAddAt: NaN, lastAckAt: NaN, ackMs: [], completedMs: [] };
  const queue = new Queue<JobData>(run.name, { connection: p.connection, defaultJobOptions: JOB_OPTIONS });
  queue.on('error', report);
  let worker: Worker<JobData> | undefined;
  const startWorker = async () => {
    const w = new Worker<JobData>(run.name, (job) => deliver(p, t, job), {
      connection: p.connection,
      concurrency: CONCURRENCY,
    });
    worker = w;
    w.on('completed', (job) => {
      t.completed++;
      t.completedMs.push(Date.now() - job.data.addedAt);
    });
    w.on('failed', () => void t.failed++);
    w.on('error', report);
    await w.waitUntilReady();
  };
  try {
    await queue.waitUntilReady();
    if (!run.isWorkerAfter) await startWorker();
    const receiverBefore = await p.receiver.stats();
    const redisBefore = procTicks(p.redisPid) ?? NaN;
    const cpuBefore = cpuNowUs();
    const { jobs, addSec } = await run.produce(queue, t);
    let workerStartedAt: number | undefined;
    if (run.isWorkerAfter) {
      workerStartedAt = Date.now();
      await startWorker();
    }
    const deadline = Date.now() + run.boundMs;
    while (t.completed < jobs && Date.now() < deadline) await sleep(10);
    const cpuUs = cpuNowUs() - cpuBefore;
    const redisUs = ((procTicks(p.redisPid) ?? NaN) - redisBefore) * TICK_MS * 1000;
    const receiverAfter = await p.receiver.stats();
    if (t.completed < jobs) process.stderr.write(`${run.name}: ${jobs - t.completed} jobs not completed in time\n`);
    const spanSec = (t.lastAckAt - (workerStartedAt ?? t.firstAddAt)) / 1000;
    const perCallback = (us: number) => us / Math.max(1, t.acked);
    return {
      jobs,
      addsPerSec: jobs / addSec,
      acked: t.acked,
      failedAttempts: t.failed,
      ackedPerSec: t.acked / Math.max(spanSec, 0.001),
      spanSec,
      workerStartedAt,
      nodeCpuUsPerCallback: perCallback(cpuUs),
      redisCpuUsPerCallback: perCallback(redisUs),
      receiverCpuUsPerCallback: perCallback(receiverAfter.cpuUs - receiverBefore.cpuUs),
      latencyMs: percentiles(t.ackMs),
      completedLatencyMs: percentiles(t.completedMs),
    };
  } finally {
    await worker?.close();
    await queue.close();
  }
}

interface PeerFigures {
  persistence: Persistence;
  redisVersion: string;
  warmUp: PhaseFigures;
  together: PhaseFigures;
  drain: PhaseFigures;
  fixedRate: PhaseFigures;
}

/** The three phases (after a warm-up) on a fresh redis-server of its own, stopped and removed after. */
async function runPeer(persistence: Persistence, receiver: AckReceiverChild, options: Options): Promise<PeerFigures> {
  const redis = await startRedis(persistence);
  const pool = new Pool(receiver.baseUrl, { connections: CONNECTIONS });
  try {
    // An HMAC-SHA512 merchant, as bench:delivery's (created with the admin API's defaults).
    const merchant = {
      id: `bench-${randomBytes(4).toString('hex')}`,
      partnerId: randomUUID(),
      clientSecret: randomBytes(32).toString('base64url'),
      callbackSignature: 'hmac-sha512' as const,
    };
    const url = new URL(`${receiver.baseUrl}${QRIS_CALLBACK_PATH}`);
    // Only an rsa-sha256 merchant's callbacks use the gateway's private key.
    const unusedKey = createSecretKey(randomBytes(32));
    const refPrefix = new Date(Date.now() + 7 * 3600_000).toISOString().slice(2, 10).replaceAll('-', '');
    let counter = 0;
    const p: Peer = {
      connection: { host: HOST, port: redis.port, maxRetriesPerRequest: null },
      redisPid: redis.pid,
      pool,
      receiver,
      newJob() {
        const nowMs = Date.now();
        const i = ++counter;
        const txn = paidQrisTransaction({
          referenceNo: `${refPrefix}${String(i).padStart(12, '0')}`,
          partnerReferenceNo: `bench-${merchant.id.slice(-6)}-${i}`,
          merchantId: merchant.id,
          nowMs,
        });
        return { notificationId: newNotificationId(nowMs), body: notificationBody(txn, nowMs), addedAt: nowMs };
      },
      sign: (notificationId, body) =>
        callbackHeaders({ merchant, url, body, notificationId, nowMs: Date.now(), gatewayPrivateKey: unusedKey }),
    };
    const d = options.durationSec;
    const boundMs = Math.max(60_000, d * 12_000);
    const label = `BullMQ, AOF ${persistence === 'always' ? 'fsync always' : 'off'}`;
    process.stderr.write(`${label}: redis-server ${redis.version} on port ${redis.port}; warm-up…\n`);
    const warmUp = await runPhase(p, {
      name: 'warm-up',
      produce: asFastAsPossible(p, WARMUP_JOBS, d, options.inFlight),
      boundMs,
    });
    process.stderr.write(`${label}: jobs added as fast as possible for ${d} s, delivered meanwhile…\n`);
    const together = await runPhase(p, {
      name: 'together',
      produce: asFastAsPossible(p, d * PRODUCER_MAX_RATE, d, options.inFlight),
      boundMs,
    });
    process.stderr.write(`${label}: ${fmt(options.notifications)} jobs added, then the worker alone…\n`);
    const drain = await runPhase(p, {
      name: 'drain',
      produce: asFastAsPossible(p, options.notifications, Number.POSITIVE_INFINITY, options.inFlight),
      isWorkerAfter: true,
      boundMs: Math.max(boundMs, options.notifications * 10),
    });
    process.stderr.write(`${label}: ${LATENCY_RATE_PER_SEC} jobs per second for ${d} s…\n`);
    const fixedRate = await runPhase(p, {
      name: 'fixed-rate',
      produce: atFixedRate(p, d * LATENCY_RATE_PER_SEC, LATENCY_RATE_PER_SEC),
      boundMs,
    });
    return { persistence, redisVersion: redis.version, warmUp, together, drain, fixedRate };
  } finally {
    await pool.close();
    await redis.stop();
  }
}

// ---------------------------------------------------------------------------------------
// snapgate: bench:delivery in a child process, read from the JSON it prints with --json.

/** The part of bench:delivery's phase figures this report reads; --json prints them all. */
interface DeliveryPhase {
  commitsPerSec: number;
  ackedPerSec: number;
  delivered: number;
  gatewayCpuUsPerCallback: number;
  latencyMs: Percentiles;
}

interface DeliveryJson {
  phases: [DeliveryPhase, DeliveryPhase, DeliveryPhase];
  drainPerSec: number;
}

async function runSnapgate(options: Options, writer: 'thread' | 'inline'): Promise<DeliveryJson> {
  const args = ['--import', 'tsx', 'bench/delivery.ts', '--duration', String(options.durationSec), '--json'];
  args.push('--in-flight', String(options.inFlight), '--backlog', String(options.notifications));
  const gatewayDir = dirname(dirname(fileURLToPath(import.meta.url)));
  const env = { ...process.env, SNAPGATE_SQLITE_WRITER: writer };
  const run = spawnOwned(process.execPath, args, { cwd: gatewayDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const closed = new Promise<number | null>((resolve, reject) => {
    run.child.once('error', reject);
    run.child.once('close', (code) => resolve(code));
  });
  let out = '';
  run.child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  run.child.stderr?.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk.toString('utf8').replace(/^(?=.)/gm, 'snapgate: '));
  });
  const code = await closed.finally(() => run.stop());
  // Its report's text comes first; the JSON starts at the first line that is only `{`.
  const at = out.search(/^\{$/m);
  if (at === -1) throw new Error(`bench:delivery printed no JSON (exit code ${code}):\n${out.slice(-2000)}`);
  if (code !== 0)
    process.stderr.write(`snapgate: bench:delivery exited with ${code} (not every notification delivered)\n`);
  return JSON.parse(out.slice(at)) as DeliveryJson;
}

// ---------------------------------------------------------------------------------------
// Options and output.

const DEFAULTS = {
  durationSec: DEFAULT_DURATION_SEC,
  rounds: DEFAULT_ROUNDS,
  notifications: DEFAULT_NOTIFICATIONS,
  isJson: false,
  /** --only peer: BullMQ only, no snapgate. */
  isPeerOnly: false,
  inFlight: DEFAULT_IN_FLIGHT,
  /** --with-inline: snapgate a second time with SNAPGATE_SQLITE_WRITER=inline (its writes on the main thread). */
  isWithInline: false,
};
type Options = typeof DEFAULTS;

function parseArgs(argv: string[]): Options {
  const options = { ...DEFAULTS };
  const whole = (name: string, value: string | undefined, min: number, max: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new TypeError(`${name} takes a whole number, ${fmt(min)} to ${fmt(max)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.isJson = true;
    else if (arg === '--duration') options.durationSec = whole(arg, argv[++i], 1, 600);
    else if (arg === '--rounds') options.rounds = whole(arg, argv[++i], 1, 20);
    else if (arg === '--notifications') options.notifications = whole(arg, argv[++i], 1000, 500_000);
    else if (arg === '--in-flight') options.inFlight = whole(arg, argv[++i], 1, 1024);
    else if (arg === '--with-inline') options.isWithInline = true;
    else if (arg === '--only') {
      if (argv[++i] !== 'peer') throw new TypeError('--only takes peer (BullMQ only, no snapgate)');
      options.isPeerOnly = true;
    } else
      throw new TypeError(
        `unknown option ${arg}; use --duration N, --rounds N, --notifications N, --in-flight N, --with-inline, --json and --only peer`,
      );
  }
  return options;
}

interface Round {
  round: number;
  always: PeerFigures;
  off: PeerFigures;
  snapgate: DeliveryJson | undefined;
  inline: DeliveryJson | undefined;
}

const COLUMNS =
  'adds/s|acked/s|node µs/cb|redis µs/cb|total µs/cb|backlog adds/s|drain jobs|drain acked/s|p50 ms|p99 ms'.split('|');
/** Where the compared figures are in a row of COLUMNS. */
const [ACKED, DRAIN, P99] = [1, 7, 9] as const;

/** One side's figures in one round, in the order of COLUMNS. */
function peerRow(f: PeerFigures): number[] {
  const { together: t, drain, fixedRate } = f;
  const cpu = [t.nodeCpuUsPerCallback, t.redisCpuUsPerCallback, t.nodeCpuUsPerCallback + t.redisCpuUsPerCallback];
  const latency = [fixedRate.latencyMs.p50, fixedRate.latencyMs.p99];
  return [t.addsPerSec, t.ackedPerSec, ...cpu, drain.addsPerSec, drain.acked, drain.ackedPerSec, ...latency];
}

function snapgateRow(j: DeliveryJson): number[] {
  const [t, backlog, fixed] = j.phases;
  const cpu = [t.gatewayCpuUsPerCallback, NaN, t.gatewayCpuUsPerCallback];
  const latency = [fixed.latencyMs.p50, fixed.latencyMs.p99];
  return [t.commitsPerSec, t.ackedPerSec, ...cpu, backlog.commitsPerSec, backlog.delivered, j.drainPerSec, ...latency];
}

function reportOf(rounds: Round[], options: Options): string[] {
  const cells = (label: string, row: number[]) => [label, ...row.map((x) => fmt(x))];
  const rows = rounds.flatMap((r) => [
    cells(`${r.round}  BullMQ, AOF always`, peerRow(r.always)),
    cells(`${r.round}  BullMQ, AOF off`, peerRow(r.off)),
    ...(r.snapgate ? [cells(`${r.round}  snapgate, SQLite`, snapgateRow(r.snapgate))] : []),
    ...(r.inline ? [cells(`${r.round}  snapgate, inline writes`, snapgateRow(r.inline))] : []),
  ]);
  const first = rounds[0];
  const lines = [
    `Peer benchmark — BullMQ on Redis vs snapgate, ${options.durationSec} s phases, ${rounds.length} round(s) alternating in one sitting`,
    `Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}); 127.0.0.1 only; redis-server ${first?.always.redisVersion ?? '?'},` +
      ` bullmq ${versionOf('bullmq')}, ioredis ${versionOf('ioredis')}.`,
    `BullMQ: a Worker of concurrency ${CONCURRENCY}, undici Pool of ${CONNECTIONS}, jobs kept on completion; redis-server with`,
    '`--appendonly yes --appendfsync always` (always) or `--appendonly no` (off), `--save ""`, in this bench’s own temp dir.',
    'snapgate: `bench/delivery.ts --json` in a child process (SQLite, WAL, synchronous=FULL, writes on the writer thread;',
    '"inline writes": SNAPGATE_SQLITE_WRITER=inline, the same with its writes on the main thread, with --with-inline).',
    `Throughput phases: ${options.inFlight} changes (jobs) made together and awaited, round after round (--in-flight).`,
    '',
    table(['Round  side', ...COLUMNS], rows),
    '',
    `adds/s, acked/s, µs/cb: changes + delivery together (adds/s: jobs added, or for snapgate status changes committed,`,
    'per second while they were made). µs/cb: CPU per acknowledged callback; node: the process running the producers',
    'and the worker (for snapgate: the gateway, SQLite included); redis: redis-server, from /proc/<pid>/stat.',
    'backlog adds/s: the drain phase’s jobs (changes) made with no worker (dispatcher) running; drain acked/s: then',
    `the worker alone, from its start (both --notifications: ${fmt(options.notifications)}).`,
    `p50/p99: ${fmt(LATENCY_RATE_PER_SEC)}/s offered, job add (change) → acknowledgement received.`,
  ];
  const compared = rounds.filter((r) => r.snapgate !== undefined);
  if (compared.length === 0) return lines;
  const ratioRows: string[][] = [];
  for (const persistence of ['always', 'off'] as const) {
    const ratios = compared.map((r) => {
      const s = snapgateRow(r.snapgate as DeliveryJson);
      const b = peerRow(persistence === 'always' ? r.always : r.off);
      return [ACKED, DRAIN, P99].map((k) => (s[k] as number) / (b[k] as number));
    });
    for (const [i, x] of ratios.entries())
      ratioRows.push([`${compared[i]?.round}  snapgate / BullMQ (AOF ${persistence})`, ...x.map((v) => fmt(v, 2))]);
    if (ratios.length > 1)
      ratioRows.push([
        `median  snapgate / BullMQ (AOF ${persistence})`,
        ...[0, 1, 2].map((k) => fmt(median(ratios.map((x) => x[k] as number)), 2)),
      ]);
  }
  lines.push(
    '',
    table(['Round  ratio', 'acked/s together', 'drain acked/s', 'p99 ms'], ratioRows),
    '',
    'Above 1.00: snapgate more for acked/s and drain (better), longer for p99 (worse).',
  );
  return lines;
}

function versionOf(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  let options: Options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench:peer: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  stopOwnedOnSignals('bench:peer');
  const receiver = await forkReceiver<AckReceiverStats>(import.meta.url);
  try {
    const rounds: Round[] = [];
    for (let round = 1; round <= options.rounds; round++) {
      process.stderr.write(`round ${round} of ${options.rounds}\n`);
      const always = await runPeer('always', receiver, options);
      const off = await runPeer('off', receiver, options);
      const snapgate = options.isPeerOnly ? undefined : await runSnapgate(options, 'thread');
      const inline = options.isPeerOnly || !options.isWithInline ? undefined : await runSnapgate(options, 'inline');
      rounds.push({ round, always, off, snapgate, inline });
    }
    process.stdout.write(`${reportOf(rounds, options).join('\n')}\n`);
    if (options.isJson) {
      const environment = {
        node: process.version,
        cpus: availableParallelism(),
        cpuModel: cpus()[0]?.model ?? 'unknown',
        bullmq: versionOf('bullmq'),
        ioredis: versionOf('ioredis'),
        ...options,
      };
      process.stdout.write(`${JSON.stringify({ environment, rounds }, null, 2)}\n`);
    }
  } finally {
    await receiver.stop();
  }
}

if (servedKind() !== undefined) {
  await serveAckReceiverChild();
} else {
  await main().catch((e: NodeJS.ErrnoException) => {
    const hint = e.code === 'ENOENT' && e.message.includes('redis-server') ? ' (is redis-server on PATH?)' : '';
    process.stderr.write(`bench:peer: ${e.message}${hint}\n`);
    process.exitCode = 1;
  });
}

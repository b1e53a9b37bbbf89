// Payment API benchmark: QRIS generate and VA create on the embedded SQLite store, each request
// signed (HMAC-SHA512 over a B2B access token), idempotent (its own X-EXTERNAL-ID and
// partnerReferenceNo / trxId) and durable (the gateway answers after its commit), side by side in
// one run with a bare Fastify 5 answering the same bytes (repeat runs differ by 20–30 %, so only
// figures from the same run compare).
//
//   npm run bench:payments                   # 50 connections, 10 s per server and operation
//   npm run bench:payments -- --duration 2   # quick check
//   npm run bench:payments -- --json         # also print the raw figures as JSON
//
// Each server runs in a child process (this file with `--serve <kind>`), listening on 127.0.0.1
// port 0. The load runs in this process: undici Pool loops, one request in flight per connection,
// every request with a fresh id and a signature over its own body (autocannon sends one fixed
// body). After the run, this process counts the gateway's rows in its SQLite file (read-only, from
// outside the gateway) against the successful answers. Not a test: nothing asserts timings.
import { availableParallelism, cpus, loadavg } from 'node:os';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import type { SnapCaller } from '../test/helpers/snap.ts';
import {
  type BareFastifyInput,
  cpuNowUs,
  type ForkedServer,
  fmt,
  forkServer,
  percentiles,
  serveBareFastify,
  serveBenchGateway,
  serveChild,
  servedKind,
  table,
} from './bench-kit.ts';
import {
  BANK_CODE,
  merchantCaller,
  nextRequest,
  OPERATIONS,
  type Operation,
  registerBenchBank,
  type SignedRequest,
  signed,
} from './payment-requests.ts';

const CONNECTIONS = 50;
const DEFAULT_DURATION_SEC = 10;
const WARMUP_SEC = 1;
const GOAL_REQUESTS_PER_SEC = 5000;
/** Response headers every HTTP server sets itself; the baseline copies the others. */
const OWN_HEADERS = new Set(['content-length', 'content-type', 'date', 'connection', 'keep-alive']);

// ---------------------------------------------------------------------------------------
// Children: the gateway, and one bare Fastify per operation. The parent talks to them over
// the fork IPC channel and stops them by disconnecting it.

type ServerKind = 'gateway' | 'fastify';

interface ReadyMessage {
  port: number;
  /** gateway: the admin token of this throw-away instance. */
  adminToken?: string;
  /** gateway: its SQLite file, for the count after the run. */
  dbPath?: string;
}

async function runChild(kind: ServerKind): Promise<void> {
  const started =
    kind === 'gateway'
      ? await serveBenchGateway()
      : await serveBareFastify(JSON.parse(process.env.BENCH_FASTIFY_INPUT ?? '{}') as BareFastifyInput);
  // The parent reads the CPU time around each run from serveChild's answers.
  serveChild(started.ready, started.close);
}

// ---------------------------------------------------------------------------------------
// Signed requests.

type ChildServer = ForkedServer<ReadyMessage, object>;

type Caller = SnapCaller;

// ---------------------------------------------------------------------------------------
// Load: CONNECTIONS loops over one undici Pool, each sending its next request when the last is
// answered (the shape of autocannon with pipelining 1).

interface Answer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

async function send(pool: Pool, req: SignedRequest): Promise<Answer> {
  const res = await pool.request({ method: 'POST', path: req.path, headers: req.headers, body: req.body });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers[k] = v;
  return { status: res.statusCode, body: await res.body.text(), headers };
}

interface LoadRun {
  /** Successful answers inside the run's time. */
  ok: number;
  nonSuccess: number;
  errors: number;
  elapsedSec: number;
  latenciesMs: number[];
  /** Every answer, those that came after the deadline too (the server did that work as well). */
  answered: number;
  /** Every successful answer, those after the deadline too (each is a committed transaction). */
  okTotal: number;
}

async function runLoad(pool: Pool, make: () => SignedRequest, op: Operation, seconds: number): Promise<LoadRun> {
  const run: LoadRun = { ok: 0, nonSuccess: 0, errors: 0, elapsedSec: 0, latenciesMs: [], answered: 0, okTotal: 0 };
  let firstFailure: string | undefined;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  const loop = async () => {
    while (performance.now() < deadline) {
      const { path, headers, body: sent } = make();
      const t0 = performance.now();
      let isOk = false;
      let isError = false;
      try {
        const res = await pool.request({ method: 'POST', path, headers, body: sent });
        const body = await res.body.text();
        isOk = res.statusCode === 200 && body.startsWith(op.successPrefix);
        if (!isOk) firstFailure ??= `HTTP ${res.statusCode} ${body.slice(0, 200)}`;
      } catch (e) {
        isError = true;
        firstFailure ??= (e as Error).message;
      }
      const t1 = performance.now();
      if (!isError) run.answered++;
      if (isOk) run.okTotal++;
      if (t1 > deadline) break;
      if (isError) run.errors++;
      else if (isOk) {
        run.ok++;
        run.latenciesMs.push(t1 - t0);
      } else run.nonSuccess++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  run.elapsedSec = (deadline - startedAt) / 1000;
  if (firstFailure) process.stderr.write(`  first failure: ${firstFailure}\n`);
  return run;
}

interface Figures {
  name: string;
  operation: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  nonSuccess: number;
  errors: number;
  completedRequests: number;
  /** Server process CPU time per answer (user + system). */
  serverCpuUsPerRequest: number;
  /** This process's CPU time per answer: signing, sending, reading. */
  loadCpuUsPerRequest: number;
  /** Successful answers, warm-up and late ones included. */
  successesTotal: number;
}

async function measure(
  name: string,
  server: ChildServer,
  op: Operation,
  caller: Caller,
  durationSec: number,
): Promise<Figures> {
  const pool = new Pool(server.baseUrl, { connections: CONNECTIONS, pipelining: 1 });
  const make = () => nextRequest(caller, op);
  try {
    const warm = await runLoad(pool, make, op, WARMUP_SEC);
    const serverBefore = await server.stats();
    const cpuBefore = cpuNowUs();
    const r = await runLoad(pool, make, op, durationSec);
    const loadCpuUs = cpuNowUs() - cpuBefore;
    const serverCpuUs = (await server.stats()).cpuUs - serverBefore.cpuUs;
    const p = percentiles(r.latenciesMs);
    const answered = Math.max(1, r.answered);
    return {
      name,
      operation: op.name,
      requestsPerSec: r.ok / r.elapsedSec,
      p50Ms: p.p50,
      p99Ms: p.p99,
      nonSuccess: r.nonSuccess + warm.nonSuccess,
      errors: r.errors + warm.errors,
      completedRequests: r.ok + r.nonSuccess,
      serverCpuUsPerRequest: serverCpuUs / answered,
      loadCpuUsPerRequest: loadCpuUs / answered,
      successesTotal: warm.okTotal + r.okTotal,
    };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------
// Checks after the run.

interface StoreCounts {
  transactions: Record<'qris' | 'va', number>;
  idempotencyKeys: number;
}

/** Rows committed in the gateway's SQLite file, read by another process (WAL readers see every commit). */
function countRows(dbPath: string): StoreCounts {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT kind, count(*) AS n FROM transactions GROUP BY kind').all() as {
      kind: string;
      n: number;
    }[];
    const n = (kind: string) => rows.find((r) => r.kind === kind)?.n ?? 0;
    const keys = db.prepare('SELECT count(*) AS n FROM idempotency_keys').get() as { n: number };
    return { transactions: { qris: n('qris'), va: n('va') }, idempotencyKeys: keys.n };
  } finally {
    db.close();
  }
}

interface Sample {
  op: Operation;
  request: SignedRequest;
  answer: Answer;
}

/** One request per operation before any load: proves it works and gives the baseline its bytes. */
async function sampleOf(gateway: ChildServer, caller: Caller, op: Operation): Promise<Sample> {
  const pool = new Pool(gateway.baseUrl, { connections: 1 });
  try {
    const request = nextRequest(caller, op);
    const answer = await send(pool, request);
    if (answer.status !== 200 || !answer.body.startsWith(op.successPrefix)) {
      throw new Error(`${op.name}: check request failed: HTTP ${answer.status} ${answer.body.slice(0, 300)}`);
    }
    return { op, request, answer };
  } finally {
    await pool.close();
  }
}

/** The sample again (same X-EXTERNAL-ID and body, signed anew): the stored answer, byte for byte. */
async function replays(gateway: ChildServer, caller: Caller, s: Sample): Promise<boolean> {
  const pool = new Pool(gateway.baseUrl, { connections: 1 });
  try {
    const again = signed(caller, s.request.path, s.request.body, s.request.headers['x-external-id'] ?? '');
    const answer = await send(pool, again);
    return answer.status === 200 && answer.body === s.answer.body;
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------
// Parent.

interface Options {
  durationSec: number;
  isJson: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { durationSec: DEFAULT_DURATION_SEC, isJson: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.isJson = true;
    else if (arg === '--duration') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 600)
        throw new TypeError('--duration takes a whole number of seconds, 1 to 600');
      options.durationSec = n;
    } else throw new TypeError(`unknown option ${arg}`);
  }
  return options;
}

function formatTable(rows: Figures[]): string {
  return table(
    ['server', 'req/s', 'p50 ms', 'p99 ms', 'non-success', 'errors', 'server CPU µs/req', 'load CPU µs/req'],
    rows.map((r) => [
      r.name,
      fmt(r.requestsPerSec),
      fmt(r.p50Ms, 2),
      fmt(r.p99Ms, 2),
      fmt(r.nonSuccess),
      fmt(r.errors),
      fmt(r.serverCpuUsPerRequest),
      fmt(r.loadCpuUsPerRequest),
    ]),
  );
}

function startChild(kind: ServerKind, env: Record<string, string> = {}): Promise<ChildServer> {
  return forkServer<ReadyMessage>(import.meta.url, kind, { env, isQuiet: true, label: `${kind} server` });
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const load1m = loadavg()[0];
  const children: ChildServer[] = [];
  const start = async (kind: ServerKind, env?: Record<string, string>) => {
    const c = await startChild(kind, env);
    children.push(c);
    return c;
  };
  try {
    const gateway = await start('gateway');
    const adminToken = gateway.ready.adminToken ?? '';
    await registerBenchBank(gateway.baseUrl, adminToken);
    const caller = await merchantCaller(gateway.baseUrl, adminToken);

    const rows: Figures[] = [];
    const checks: { operation: string; successes: number; stored: number; replayed: boolean }[] = [];
    const responseBytes: Record<string, number> = {};
    let successesAll = 0;
    for (const op of OPERATIONS) {
      // The baseline answers with the very bytes the gateway answered (body and SNAP headers).
      const sample = await sampleOf(gateway, caller, op);
      responseBytes[op.name] = sample.answer.body.length;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(sample.answer.headers)) if (!OWN_HEADERS.has(k)) headers[k] = v;
      const input: BareFastifyInput = { path: op.path, body: sample.answer.body, headers };
      const bare = await start('fastify', { BENCH_FASTIFY_INPUT: JSON.stringify(input) });

      process.stderr.write(`measuring bare Fastify, ${op.name} (${options.durationSec} s)…\n`);
      rows.push(await measure(`bare Fastify 5, ${op.name}-sized JSON`, bare, op, caller, options.durationSec));
      process.stderr.write(`measuring snapgate ${op.name} (${options.durationSec} s)…\n`);
      const row = await measure(`snapgate ${op.name} (sqlite)`, gateway, op, caller, options.durationSec);
      rows.push(row);

      const replayed = await replays(gateway, caller, sample);
      const successes = 1 + row.successesTotal;
      successesAll += successes;
      const stored = countRows(gateway.ready.dbPath ?? '').transactions[op.kind];
      checks.push({ operation: op.name, successes, stored, replayed });
    }
    const keys = countRows(gateway.ready.dbPath ?? '').idempotencyKeys;

    const rowOf = (name: string) => rows.find((r) => r.name === name) as Figures;
    const goals = OPERATIONS.map((op) => {
      const value = rowOf(`snapgate ${op.name} (sqlite)`).requestsPerSec;
      const bare = rowOf(`bare Fastify 5, ${op.name}-sized JSON`).requestsPerSec;
      return {
        goal: `${op.name} req/s`,
        value,
        target: `≥ ${fmt(GOAL_REQUESTS_PER_SEC)}`,
        isMet: value >= GOAL_REQUESTS_PER_SEC,
        vsBare: value / bare,
      };
    });
    const isStoreOk = checks.every((c) => c.stored === c.successes && c.replayed) && keys === successesAll;
    const environment = {
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      load1mAtStart: load1m,
      durationSec: options.durationSec,
      connections: CONNECTIONS,
      warmupSec: WARMUP_SEC,
    };

    const out = [
      `Payment API benchmark — ${CONNECTIONS} connections (undici Pool, one request in flight each), ${options.durationSec} s per server and operation (after a ${WARMUP_SEC} s warm-up)`,
      `Node ${environment.node}, ${environment.cpus} CPUs (${environment.cpuModel}); 127.0.0.1 only; load 1m at start ${fmt(load1m, 2)}.`,
      'Gateway: production mode, sealed secrets (master key), rate limit off, log level warn, embedded SQLite',
      `(WAL, synchronous=FULL) in a fresh file; one merchant (HMAC-SHA512 signatures, one B2B token); VA bank`,
      `${BANK_CODE} registered as a bank provider through the admin API (production refuses unknown bank codes).`,
      'Every request: a fresh X-EXTERNAL-ID, partnerReferenceNo / trxId and signature; the baseline gets the same',
      `requests. Response bodies: ${OPERATIONS.map((op) => `${op.name} ${responseBytes[op.name]} bytes`).join(', ')}.`,
      '',
      formatTable(rows),
      '',
      'req/s counts successful answers (HTTP 200 and the success responseCode) inside the run. Latency is',
      'send → whole answer read, in ms. Server CPU is the server process user + system time over the run,',
      'load CPU this process (signing and sending) over the run, each divided by the answers.',
      '',
      ...goals.map(
        (g) =>
          `${g.goal.padEnd(22)}${fmt(g.value).padStart(7)}   goal ${g.target.padEnd(7)} ${(g.isMet ? 'met' : 'NOT MET').padEnd(8)} ${fmt(g.vsBare, 2)} × bare Fastify`,
      ),
      '',
      ...checks.map(
        (c) =>
          `${`${c.operation} stored`.padEnd(22)}${fmt(c.stored).padStart(7)}   of ${fmt(c.successes)} successful answers; replay of the first request ${c.replayed ? 'answered the same bytes' : 'DIFFERED'}`,
      ),
      `${'idempotency keys'.padEnd(22)}${fmt(keys).padStart(7)}   of ${fmt(successesAll)} successful answers`,
      `store check: ${isStoreOk ? 'ok' : 'FAILED'} (counted in the SQLite file by this process after the answers)`,
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    const failures = rows.filter((r) => r.nonSuccess + r.errors > 0);
    if (failures.length > 0) {
      process.stdout.write(`\nFAILED requests in: ${failures.map((r) => r.name).join(', ')}\n`);
      process.exitCode = 1;
    }
    if (!isStoreOk) process.exitCode = 1;
    if (options.isJson) {
      process.stdout.write(
        `${JSON.stringify({ environment, responseBytes, rows, goals, checks, idempotencyKeys: keys }, null, 2)}\n`,
      );
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()));
  }
}

const kind = servedKind();
if (kind !== undefined) {
  await runChild(kind as ServerKind);
} else {
  await main();
}

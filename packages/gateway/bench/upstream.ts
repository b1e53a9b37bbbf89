// Inbound payment flag benchmark: a bank's signed `transfer-va/payment` → `2002500` → the
// merchant's acknowledged VA callback, end to end on SQLite, side by side with the token
// endpoint of the same gateway in the same run (repeat runs on these machines differ by 20–30 %, so only
// figures from the same run compare).
//
//   npm run bench:upstream                          # 12,000 VAs, 64 in flight, 8 s cap per phase
//   npm run bench:upstream -- --duration 3 --vas 3000   # quick check
//   npm run bench:upstream -- --concurrency 128 --rate 500 --json
//   npm run bench:upstream -- --cpu-prof /tmp/prof   # the gateway writes a V8 CPU profile there on exit
//
// The gateway is `src/main.ts` as its own process (spawnGateway) on a fresh SQLite file in a temp
// folder, sandbox mode, its dispatcher on as in production. The merchant's receiver is a bare
// node:http server in a child process (this file with `--serve receiver`) that acknowledges every
// callback with HTTP 200 {"responseCode":"2002600"} and notes when each VA's callback arrived. The
// bank is this process: one undici Pool, each request signed on its own (HMAC-SHA512, unique
// X-EXTERNAL-ID). The VAs are created through the merchant API before any phase; that is not
// measured. Not a test: nothing asserts timings.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { formatJakartaTimestamp, hmacSha512Base64, SERVICE, serviceStringToSign, successCode } from '@snapgate/snap';
import { Pool } from 'undici';
import { VA_CALLBACK_PATH } from '../src/delivery/callback-signing.ts';
import { type GatewayProcess, spawnGateway } from '../test/helpers/process.ts';
import { ACK } from '../test/helpers/receiver.ts';
import {
  authenticate,
  newExternalId,
  type SnapCaller,
  snapCall,
  TOKEN_PATH,
  tokenRequest,
} from '../test/helpers/snap.ts';
import {
  cpuNowUs,
  fmt,
  forkReceiver,
  HOST,
  machineTicks,
  percentiles,
  procTicks,
  servedKind,
  serveReceiverChild,
  stopGateway,
  TICK_MS,
  table,
} from './bench-kit.ts';

const PAYMENT_PATH = '/api/snap/v1.0/transfer-va/payment';
const CREATE_VA_PATH = '/api/snap/v1.0/transfer-va/create-va';
const BANK_CODE = '014';
const AMOUNT = '150000.00';
const PAID = `"responseCode":"${successCode(SERVICE.vaPayment)}"`;
const TOKEN_OK = `"responseCode":"${successCode(SERVICE.token)}"`;
const TRX_ID = /"originalPartnerReferenceNo":"([^"]*)"/;

const DEFAULT_VAS = 12_000;
const DEFAULT_CONCURRENCY = 64;
const DEFAULT_DURATION_SEC = 8;
const GOAL_RATE = 300;
const DEFAULT_RATE = GOAL_RATE;
const FIXED_RATE_SEC = 5;
const WARMUP_VAS = 500;
const WARMUP_TOKEN_SEC = 1;
/** Parallel create-va calls while preparing (not measured). */
const SETUP_CONCURRENCY = 32;
/** How long to wait for the last callback of a phase before reporting it missing. */
const CALLBACK_BOUND_MS = 60_000;

const GOAL_ACKED_PER_SEC = 1500;
const GOAL_P99_MS = 50;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
const nowMs = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------
// Child: the merchant's receiver. Acknowledges every POST; for VA callbacks it notes the trxId
// (originalPartnerReferenceNo) and the arrival time, handed to the parent (and forgotten) on
// each IPC message.

interface ReceiverReport {
  trxIds: string[];
  arrivedAt: number[];
  otherRequests: number;
}

function runReceiver(): Promise<void> {
  let trxIds: string[] = [];
  let arrivedAt: number[] = [];
  let otherRequests = 0;
  return serveReceiverChild(
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url === VA_CALLBACK_PATH) {
          trxIds.push(TRX_ID.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '');
          arrivedAt.push(nowMs());
        } else otherRequests++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
      });
    },
    (): ReceiverReport => {
      const report = { trxIds, arrivedAt, otherRequests };
      trxIds = [];
      arrivedAt = [];
      return report;
    },
  );
}

interface Receiver {
  baseUrl: string;
  /** First arrival per trxId, in nowMs() time. */
  arrivals: Map<string, number>;
  /** Callbacks for a trxId that had already arrived. */
  repeats: number;
  otherRequests: number;
  /** Fetches what arrived since the last call; resolves with the receiver's CPU time (µs). */
  collect(): Promise<number>;
  stop(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const child = await forkReceiver<ReceiverReport>(import.meta.url);
  const r: Receiver = {
    baseUrl: child.baseUrl,
    arrivals: new Map(),
    repeats: 0,
    otherRequests: 0,
    async collect() {
      const report = await child.stats();
      report.trxIds.forEach((id, i) => {
        if (r.arrivals.has(id)) r.repeats++;
        else r.arrivals.set(id, report.arrivedAt[i] as number);
      });
      r.otherRequests = report.otherRequests;
      return report.cpuUs;
    },
    stop: () => child.stop(),
  };
  return r;
}

/** Polls the receiver until every trxId has a callback, or the bound passes; false then. */
async function waitForCallbacks(receiver: Receiver, trxIds: string[], boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    await receiver.collect();
    if (trxIds.every((id) => receiver.arrivals.has(id))) return true;
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
}

// ---------------------------------------------------------------------------------------
// CPU accounting from /proc (Linux; NaN elsewhere).

/** utime + stime of a process, in microseconds. */
const processCpuUs = (pid: number) => (procTicks(pid) ?? NaN) * TICK_MS * 1000;

interface CpuSnapshot {
  atMs: number;
  gatewayUs: number;
  receiverUs: number;
  benchUs: number;
  machine: { busy: number; total: number };
}

async function cpuSnapshot(gatewayPid: number, receiver: Receiver): Promise<CpuSnapshot> {
  const receiverUs = await receiver.collect();
  const benchUs = cpuNowUs();
  return {
    atMs: nowMs(),
    gatewayUs: processCpuUs(gatewayPid),
    receiverUs,
    benchUs,
    machine: machineTicks(),
  };
}

interface CpuSpent {
  gatewayUs: number;
  receiverUs: number;
  /** Share of one core over the window, in %. */
  gatewayPct: number;
  receiverPct: number;
  benchPct: number;
  /** All CPUs of the machine, in %. */
  machineBusyPct: number;
  /** Busy time none of the three processes accounts for (other work on the machine), in % of one core. */
  otherPct: number;
}

function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): CpuSpent {
  const windowUs = (b.atMs - a.atMs) * 1000;
  const gatewayPct = ((b.gatewayUs - a.gatewayUs) / windowUs) * 100;
  const receiverPct = ((b.receiverUs - a.receiverUs) / windowUs) * 100;
  const benchPct = ((b.benchUs - a.benchUs) / windowUs) * 100;
  const machineBusyPct = ((b.machine.busy - a.machine.busy) / (b.machine.total - a.machine.total)) * 100;
  return {
    gatewayUs: b.gatewayUs - a.gatewayUs,
    receiverUs: b.receiverUs - a.receiverUs,
    gatewayPct,
    receiverPct,
    benchPct,
    machineBusyPct,
    otherPct: Math.max(0, machineBusyPct * availableParallelism() - gatewayPct - receiverPct - benchPct),
  };
}

// ---------------------------------------------------------------------------------------
// Load: a closed loop (C requests in flight, the next sent when one is answered) and an open
// loop at a fixed rate. Both time each request from its send to the end of its answer's body.

interface Answer {
  ok: boolean;
  /** The answer, for the first failures shown. */
  detail: string;
}

interface LoadResult {
  latenciesMs: number[];
  ok: number;
  failed: number;
  failures: string[];
  firstStartMs: number;
  lastEndMs: number;
  /** Send time per job key (payment flags: the trxId). */
  startedAt: Map<string, number>;
  /** Keys of the jobs answered with success. */
  okKeys: Set<string>;
}

interface Job {
  key: string;
  send(): Promise<Answer>;
}

function newLoadResult(): LoadResult {
  return {
    latenciesMs: [],
    ok: 0,
    failed: 0,
    failures: [],
    firstStartMs: Number.POSITIVE_INFINITY,
    lastEndMs: 0,
    startedAt: new Map(),
    okKeys: new Set(),
  };
}

async function timed(result: LoadResult, job: Job): Promise<void> {
  const start = nowMs();
  result.firstStartMs = Math.min(result.firstStartMs, start);
  result.startedAt.set(job.key, start);
  let answer: Answer;
  try {
    answer = await job.send();
  } catch (e) {
    answer = { ok: false, detail: (e as Error).message };
  }
  const end = nowMs();
  result.lastEndMs = Math.max(result.lastEndMs, end);
  result.latenciesMs.push(end - start);
  if (answer.ok) {
    result.ok++;
    result.okKeys.add(job.key);
  } else {
    result.failed++;
    if (result.failures.length < 3) result.failures.push(answer.detail.slice(0, 300));
  }
}

/** `concurrency` workers, each sending its next job when the last is answered, until jobs or time run out. */
async function closedLoop(concurrency: number, durationMs: number, next: () => Job | undefined): Promise<LoadResult> {
  const result = newLoadResult();
  const deadline = nowMs() + durationMs;
  const worker = async () => {
    for (let job = next(); job && nowMs() < deadline; job = next()) await timed(result, job);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return result;
}

/** Sends `jobs` at `ratePerSec`, each on its schedule whether or not earlier ones were answered. */
async function openLoop(ratePerSec: number, jobs: Job[]): Promise<LoadResult> {
  const result = newLoadResult();
  const t0 = nowMs() + 10;
  const inFlight: Promise<void>[] = [];
  for (const [i, job] of jobs.entries()) {
    const wait = t0 + (i * 1000) / ratePerSec - nowMs();
    if (wait >= 1) await sleep(wait);
    inFlight.push(timed(result, job));
  }
  await Promise.all(inFlight);
  return result;
}

// ---------------------------------------------------------------------------------------
// The bank (this process) and the merchant setup.

interface Va {
  trxId: string;
  partnerServiceId: string;
  customerNo: string;
  virtualAccountNo: string;
}

async function readAnswer(res: { statusCode: number; body: { text(): Promise<string> } }, expect: string) {
  const text = await res.body.text();
  return { ok: res.statusCode === 200 && text.includes(expect), detail: `HTTP ${res.statusCode} ${text}` };
}

function tokenJob(pool: Pool, bank: SnapCaller, n: number): Job {
  return {
    key: `T${n}`,
    async send() {
      const { headers, body } = tokenRequest({ clientKey: bank.clientKey, clientSecret: bank.clientSecret });
      return readAnswer(await pool.request({ method: 'POST', path: TOKEN_PATH, headers, body }), TOKEN_OK);
    },
  };
}

let paymentSeq = 0;

/** One payment flag for `va`, signed like the merchant payment API, with a numeric X-EXTERNAL-ID. */
function payJob(pool: Pool, bank: SnapCaller, va: Va): Job {
  return {
    key: va.trxId,
    async send() {
      const body = JSON.stringify({
        partnerServiceId: va.partnerServiceId,
        customerNo: va.customerNo,
        virtualAccountNo: va.virtualAccountNo,
        paymentRequestId: `PAY${String(++paymentSeq).padStart(10, '0')}`,
        paidAmount: { value: AMOUNT, currency: 'IDR' },
        flagAdvise: 'N',
      });
      const timestamp = formatJakartaTimestamp(Date.now());
      const toSign = serviceStringToSign({
        method: 'POST',
        path: PAYMENT_PATH,
        accessToken: bank.accessToken,
        rawBody: body,
        timestamp,
      });
      const headers = {
        'content-type': 'application/json',
        authorization: `Bearer ${bank.accessToken}`,
        'x-timestamp': timestamp,
        'x-signature': hmacSha512Base64(bank.clientSecret, toSign),
        'x-partner-id': bank.partnerId,
        'x-external-id': newExternalId(),
        'channel-id': '95221',
      };
      return readAnswer(await pool.request({ method: 'POST', path: PAYMENT_PATH, headers, body }), PAID);
    },
  };
}

async function admin(gw: GatewayProcess, adminToken: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw.url}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`admin ${method} ${path}: HTTP ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

/** Creates `count` VAs for bank 014 through the merchant API, `SETUP_CONCURRENCY` at a time. */
async function createVas(gw: GatewayProcess, merchant: SnapCaller, count: number, prefix: string): Promise<Va[]> {
  const vas: Va[] = [];
  let made = 0;
  const next = (): Job | undefined => {
    if (made >= count) return undefined;
    const trxId = `${prefix}${String(++made).padStart(7, '0')}`;
    return {
      key: trxId,
      async send() {
        const r = await snapCall(gw.url, merchant, CREATE_VA_PATH, {
          virtualAccountName: 'Budi Santoso',
          trxId,
          totalAmount: { value: AMOUNT, currency: 'IDR' },
          additionalInfo: { bankCode: BANK_CODE },
        });
        if (r.status !== 200) return { ok: false, detail: `HTTP ${r.status} ${r.text}` };
        const d = r.body.virtualAccountData as Va;
        vas.push({
          trxId,
          partnerServiceId: d.partnerServiceId,
          customerNo: d.customerNo,
          virtualAccountNo: d.virtualAccountNo,
        });
        return { ok: true, detail: '' };
      },
    };
  };
  const r = await closedLoop(SETUP_CONCURRENCY, Number.POSITIVE_INFINITY, next);
  if (r.failed > 0) throw new Error(`creating VAs failed ${r.failed} times: ${r.failures.join('\n')}`);
  return vas;
}

/** Counts the merchant's notifications in `state`, page by page through the admin API. */
async function countNotifications(gw: GatewayProcess, adminToken: string, merchantId: string, state: string) {
  let count = 0;
  let cursor: string | undefined;
  do {
    const q = new URLSearchParams({ merchantId, state, limit: '500', ...(cursor ? { cursor } : {}) });
    const page = await admin(gw, adminToken, 'GET', `/notifications?${q}`);
    count += (page.items as unknown[]).length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return count;
}

// ---------------------------------------------------------------------------------------
// Phases and figures.

/** The percentiles this benchmark reports (and its --json has always carried): no p95. */
interface Percentiles {
  p50: number;
  p99: number;
  max: number;
}

function latencies(values: number[]): Percentiles {
  const { p50, p99, max } = percentiles(values);
  return { p50, p99, max };
}

interface PhaseFigures {
  name: string;
  requests: number;
  ok: number;
  failed: number;
  failures: string[];
  /** Successful answers ÷ (last answer − first send). */
  answeredPerSec: number;
  latencyMs: Percentiles;
  /** Payment flags only: callbacks received at the merchant. */
  acked?: number;
  /** acked ÷ (last callback at the receiver − first send). */
  ackedPerSec?: number;
  /** Payment flags only: bank's send → the merchant's receiver has the callback, per VA. */
  endToEndMs?: Percentiles;
  /** Whether every callback arrived within the bound. */
  isComplete?: boolean;
  spanSec: number;
  cpu: CpuSpent;
  gatewayCpuUsPerOp: number;
  receiverCpuUsPerOp: number;
}

interface Context {
  gw: GatewayProcess;
  gatewayPid: number;
  receiver: Receiver;
  pool: Pool;
  bank: SnapCaller;
}

/** What every phase reports of its bank requests; the first fields of PhaseFigures, in their order. */
function answerFigures(name: string, r: LoadResult, spanSec: number) {
  return {
    name,
    requests: r.ok + r.failed,
    ok: r.ok,
    failed: r.failed,
    failures: r.failures,
    answeredPerSec: r.ok / spanSec,
    latencyMs: latencies(r.latenciesMs),
  };
}

async function tokenPhase(c: Context, name: string, concurrency: number, durationSec: number): Promise<PhaseFigures> {
  let n = 0;
  const before = await cpuSnapshot(c.gatewayPid, c.receiver);
  const r = await closedLoop(concurrency, durationSec * 1000, () => tokenJob(c.pool, c.bank, ++n));
  const cpu = cpuBetween(before, await cpuSnapshot(c.gatewayPid, c.receiver));
  const spanSec = (r.lastEndMs - r.firstStartMs) / 1000;
  return {
    ...answerFigures(name, r, spanSec),
    spanSec,
    cpu,
    gatewayCpuUsPerOp: cpu.gatewayUs / Math.max(1, r.ok),
    receiverCpuUsPerOp: NaN,
  };
}

async function paymentPhase(
  c: Context,
  name: string,
  vas: Va[],
  load: () => Promise<LoadResult>,
): Promise<PhaseFigures> {
  const before = await cpuSnapshot(c.gatewayPid, c.receiver);
  const r = await load();
  const paid = vas.map((v) => v.trxId).filter((id) => r.okKeys.has(id));
  const isComplete = await waitForCallbacks(c.receiver, paid, CALLBACK_BOUND_MS);
  const cpu = cpuBetween(before, await cpuSnapshot(c.gatewayPid, c.receiver));
  const arrived = paid.flatMap((id) => {
    const at = c.receiver.arrivals.get(id);
    return at === undefined ? [] : [{ at, ms: at - (r.startedAt.get(id) as number) }];
  });
  const lastArrival = arrived.reduce((m, a) => Math.max(m, a.at), Number.NEGATIVE_INFINITY);
  const spanSec = (r.lastEndMs - r.firstStartMs) / 1000;
  return {
    ...answerFigures(name, r, spanSec),
    acked: arrived.length,
    ackedPerSec: arrived.length / ((lastArrival - r.firstStartMs) / 1000),
    endToEndMs: latencies(arrived.map((a) => a.ms)),
    isComplete,
    spanSec,
    cpu,
    gatewayCpuUsPerOp: cpu.gatewayUs / Math.max(1, arrived.length),
    receiverCpuUsPerOp: cpu.receiverUs / Math.max(1, arrived.length),
  };
}

// ---------------------------------------------------------------------------------------
// --cpu-prof: Node 20 refuses --cpu-prof in NODE_OPTIONS, so the gateway gets a preload that
// profiles it through node:inspector and writes the profile when the process exits (SIGTERM at
// the end of the run). Open the .cpuprofile in Chrome DevTools or speedscope.

const PROFILER_PRELOAD = `import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 200 });
session.post('Profiler.start');
process.on('exit', () => {
  session.post('Profiler.stop', (err, result) => {
    if (!err) writeFileSync(process.env.BENCH_CPU_PROF_FILE, JSON.stringify(result.profile));
  });
});
`;

function profilerEnv(dir: string): Record<string, string> {
  mkdirSync(dir, { recursive: true });
  const preload = join(dir, 'bench-upstream-profiler.mjs');
  writeFileSync(preload, PROFILER_PRELOAD);
  const file = join(dir, `gateway-${new Date().toISOString().replaceAll(':', '-')}.cpuprofile`);
  process.stderr.write(`the gateway's CPU profile goes to ${file}\n`);
  return { NODE_OPTIONS: `--import "${pathToFileURL(preload).href}"`, BENCH_CPU_PROF_FILE: file };
}

// ---------------------------------------------------------------------------------------
// Options and output.

interface Options {
  vas: number;
  concurrency: number;
  durationSec: number;
  rate: number;
  isJson: boolean;
  /** Where the gateway process writes a V8 CPU profile when it exits (node --cpu-prof). */
  cpuProfDir: string | undefined;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    vas: DEFAULT_VAS,
    concurrency: DEFAULT_CONCURRENCY,
    durationSec: DEFAULT_DURATION_SEC,
    rate: DEFAULT_RATE,
    isJson: false,
    cpuProfDir: undefined,
  };
  const whole = (flag: string, value: string | undefined, min: number, max: number) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new TypeError(`${flag} takes a whole number, ${min} to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') o.isJson = true;
    else if (arg === '--vas') o.vas = whole(arg, argv[++i], 100, 200_000);
    else if (arg === '--concurrency') o.concurrency = whole(arg, argv[++i], 1, 1024);
    else if (arg === '--duration') o.durationSec = whole(arg, argv[++i], 1, 120);
    else if (arg === '--rate') o.rate = whole(arg, argv[++i], 1, 5000);
    else if (arg === '--cpu-prof') {
      const dir = argv[++i];
      if (!dir) throw new TypeError('--cpu-prof takes a folder');
      o.cpuProfDir = resolvePath(dir);
    } else
      throw new TypeError(
        `unknown option ${arg}; use --vas N, --concurrency C, --duration S, --rate R, --cpu-prof DIR and --json`,
      );
  }
  return o;
}

function report(o: Options, phases: PhaseFigures[], setup: { vas: number; sec: number; load1m: number }): string[] {
  const [token, pay, fixed] = phases as [PhaseFigures, PhaseFigures, PhaseFigures];
  const ackedPerSec = pay.ackedPerSec ?? NaN;
  const goals = [
    {
      goal: 'paid-and-acknowledged VAs/s',
      value: ackedPerSec,
      target: `≥ ${fmt(GOAL_ACKED_PER_SEC)}`,
      isMet: ackedPerSec >= GOAL_ACKED_PER_SEC,
      isApplicable: true,
    },
    {
      goal: `p99 bank-request ms at ${o.rate}/s`,
      value: fixed.latencyMs.p99,
      target: `< ${GOAL_P99_MS}`,
      isMet: fixed.latencyMs.p99 < GOAL_P99_MS,
      isApplicable: o.rate === GOAL_RATE,
    },
  ];
  const rows = phases.map((p) => [
    p.name,
    fmt(p.requests),
    fmt(p.failed),
    fmt(p.answeredPerSec),
    fmt(p.latencyMs.p50, 1),
    fmt(p.latencyMs.p99, 1),
    fmt(p.ackedPerSec),
    fmt(p.endToEndMs?.p50, 1),
    fmt(p.endToEndMs?.p99, 1),
  ]);
  const cpuRows = phases.map((p) => [
    p.name,
    fmt(p.spanSec, 2),
    fmt(p.gatewayCpuUsPerOp),
    fmt(p.receiverCpuUsPerOp),
    fmt(p.cpu.gatewayPct),
    fmt(p.cpu.receiverPct),
    fmt(p.cpu.benchPct),
    fmt(p.cpu.otherPct),
    fmt(p.cpu.machineBusyPct),
  ]);
  return [
    `Inbound payment flag benchmark — bank → snapgate → merchant, store: embedded SQLite (better-sqlite3, WAL, synchronous=FULL)`,
    `Node ${process.version}, ${availableParallelism()} CPUs (${cpus()[0]?.model ?? 'unknown'}); 127.0.0.1 only; load 1m at start ${fmt(setup.load1m, 2)}.`,
    'Gateway: src/main.ts as its own process (sandbox mode, dispatcher on, defaults). Receiver: bare node:http in a',
    'child process, 200 {"responseCode":"2002600"} to every callback. Bank: this process, one undici Pool of',
    `${o.concurrency} connections, every request signed on its own. ${fmt(setup.vas)} VAs created beforehand through create-va in ${fmt(setup.sec, 1)} s (not measured);`,
    `${WARMUP_VAS} payment flags and ${WARMUP_TOKEN_SEC} s of tokens as warm-up.`,
    '',
    table(['Run', 'requests', 'failed', 'answered/s', 'p50 ms', 'p99 ms', 'acked/s', 'e2e p50 ms', 'e2e p99 ms'], rows),
    '',
    'answered/s: successful answers (2007300 tokens, 2002500 payment flags) ÷ (last answer − first send).',
    'p50/p99 ms: the bank request, send → end of the answer. acked/s: VAs whose callback reached the merchant',
    '÷ (last callback − first bank send). e2e: the bank send → the callback at the merchant, per VA.',
    '',
    table(
      [
        'Run',
        'span s',
        'gateway CPU µs/op',
        'receiver CPU µs/op',
        'gateway CPU %',
        'receiver %',
        'bench %',
        'other %',
        'machine busy %',
      ],
      cpuRows,
    ),
    'CPU: from /proc/<pid>/stat (gateway), process.cpuUsage() (receiver, bench) over the phase up to its last callback;',
    '% of one core; other %: busy time none of these accounts for (other work on the machine); machine busy %: all',
    'CPUs (/proc/stat). op: a token, or a paid VA with its callback.',
    '',
    `payment flags acked/s ÷ tokens/s     ${fmt(ackedPerSec / token.answeredPerSec, 2).padStart(7)}`,
    ...goals.map(
      (g) =>
        `${g.goal.padEnd(36)}${fmt(g.value, 1).padStart(7)}   goal ${g.target.padEnd(7)} ` +
        (g.isApplicable ? (g.isMet ? 'met' : 'NOT MET') : `(the goal is set at ${GOAL_RATE}/s)`),
    ),
  ];
}

async function main(): Promise<void> {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench:upstream: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const load1m = loadavg()[0] ?? NaN;
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const receiver = await startReceiver();
    cleanups.unshift(() => receiver.stop());
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-upstream-'));
    cleanups.unshift(async () => rmSync(dir, { recursive: true, force: true }));
    const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
    const gw = await spawnGateway({
      SNAPGATE_DB: join(dir, 'snapgate.db'),
      SNAPGATE_HOST: HOST,
      SNAPGATE_ADMIN_TOKEN: adminToken,
      SNAPGATE_MODE: 'sandbox',
      SNAPGATE_RATE_LIMIT: 'off',
      ...(o.cpuProfDir ? profilerEnv(o.cpuProfDir) : {}),
    });
    cleanups.unshift(() => stopGateway(gw));
    const gatewayPid = gw.child.pid ?? 0;

    const m = await admin(gw, adminToken, 'POST', '/merchants', {
      name: 'bench merchant',
      callbackBaseUrl: receiver.baseUrl,
    });
    const merchant = await authenticate(gw.url, {
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      partnerId: m.partnerId,
    });
    const p = await admin(gw, adminToken, 'POST', '/providers', {
      name: 'bench bank',
      kind: 'bank',
      bankCode: BANK_CODE,
    });
    // A provider's partner ID is its client key.
    const bank = await authenticate(gw.url, {
      clientKey: p.clientKey,
      clientSecret: p.clientSecret,
      partnerId: p.clientKey,
    });

    const fixedCount = o.rate * Math.min(FIXED_RATE_SEC, o.durationSec);
    process.stderr.write(`creating ${fmt(WARMUP_VAS + o.vas + fixedCount)} VAs (not measured)…\n`);
    const setupStart = nowMs();
    const warmVas = await createVas(gw, merchant, WARMUP_VAS, 'WARM');
    const tpVas = await createVas(gw, merchant, o.vas, 'FAST');
    const fixedVas = await createVas(gw, merchant, fixedCount, 'RATE');
    const setupSec = (nowMs() - setupStart) / 1000;

    const pool = new Pool(gw.url, { connections: o.concurrency });
    cleanups.unshift(() => pool.close());
    const c: Context = { gw, gatewayPid, receiver, pool, bank };
    const queue = (vas: Va[]) => {
      let i = 0;
      return () => {
        const va = vas[i++];
        return va && payJob(pool, bank, va);
      };
    };

    process.stderr.write('warm-up…\n');
    await tokenPhase(c, 'warm-up tokens', o.concurrency, WARMUP_TOKEN_SEC);
    const warm = await paymentPhase(c, 'warm-up', warmVas, () =>
      closedLoop(o.concurrency, Number.POSITIVE_INFINITY, queue(warmVas)),
    );
    const phases: PhaseFigures[] = [];
    process.stderr.write(`tokens: ${o.concurrency} in flight for ${o.durationSec} s…\n`);
    phases.push(await tokenPhase(c, `token endpoint, ${o.concurrency} in flight`, o.concurrency, o.durationSec));
    process.stderr.write(`payment flags: ${fmt(o.vas)} VAs, ${o.concurrency} in flight, at most ${o.durationSec} s…\n`);
    phases.push(
      await paymentPhase(c, `payment flags, ${o.concurrency} in flight`, tpVas, () =>
        closedLoop(o.concurrency, o.durationSec * 1000, queue(tpVas)),
      ),
    );
    process.stderr.write(`payment flags: ${o.rate}/s for ${fixedCount / o.rate} s…\n`);
    phases.push(
      await paymentPhase(c, `payment flags, ${o.rate}/s offered`, fixedVas, () =>
        openLoop(
          o.rate,
          fixedVas.map((va) => payJob(pool, bank, va)),
        ),
      ),
    );

    const delivered = await countNotifications(gw, adminToken, m.id as string, 'delivered');
    const paidTotal = warm.ok + phases.reduce((s, ph) => s + (ph.acked === undefined ? 0 : ph.ok), 0);
    const lines = report(o, phases, { vas: warmVas.length + tpVas.length + fixedVas.length, sec: setupSec, load1m });
    lines.push(
      '',
      `Check: ${fmt(paidTotal)} payment flags answered 2002500, ${fmt(receiver.arrivals.size)} VAs called back` +
        ` (${fmt(receiver.repeats)} repeated callbacks, ${fmt(receiver.otherRequests)} to other paths),` +
        ` ${fmt(delivered)} notifications 'delivered' in the gateway.`,
    );
    for (const ph of [warm, ...phases]) {
      if (ph.failed > 0) lines.push(`${ph.name}: ${ph.failed} failed, e.g. ${ph.failures.join(' | ')}`);
      if (ph.isComplete === false)
        lines.push(`${ph.name}: NOT every callback arrived within ${CALLBACK_BOUND_MS / 1000} s`);
    }
    const gatewayLog = gw.stderr().trim();
    if (gatewayLog) lines.push(`gateway stderr (first 1,000 chars):\n${gatewayLog.slice(0, 1000)}`);
    process.stdout.write(`${lines.join('\n')}\n`);
    if (paidTotal !== delivered || [warm, ...phases].some((ph) => ph.failed > 0 || ph.isComplete === false)) {
      process.exitCode = 1;
    }
    if (o.isJson) process.stdout.write(`${JSON.stringify({ options: o, phases }, null, 2)}\n`);
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

if (servedKind() !== undefined) {
  await runReceiver();
} else {
  await main();
}

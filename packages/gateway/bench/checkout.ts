// Hosted checkout live status benchmark: N open checkout pages' event streams
// (`GET /pay/<id>/events`) on one gateway instance, what each costs in memory, and how long after a
// payment's commit its page is told, while payments run at a fixed rate — side by side in one run
// with a bare Fastify 5 that holds the same streams and tells them from an in-memory map (the
// floor of this machine, client and rate). Repeat runs differ by 20–30 % on these machines, so
// compare only figures from the same run. Not a test: nothing asserts timings.
//
//   npm run bench:checkout                              # 10,000 streams, 1,000 payments/s
//   npm run bench:checkout -- --streams 2000 --rate 500 # quick check
//   npm run bench:checkout -- --pg postgres://postgres@127.0.0.1:5432/test   # also PostgreSQL
//   npm run bench:checkout -- --json                    # also print the raw figures as JSON
//   npm run bench:checkout -- --pg <url> --phases pg,pg2   # some of bare,sqlite,pg,pg2
//   npm run bench:checkout -- --pg <url> --notify-cost  # only: PostgreSQL's commit rate with and without NOTIFY
//
// PostgreSQL (`--pg <url>` or SNAPGATE_DATABASE_URL; each phase in a fresh database): one instance
// (streams and payments on it), then two (payments through A, the pages' streams on B: told by
// NOTIFY). Phases, each on fresh servers: N VAs created through the merchant API (not measured),
// the memory of the process holding the streams after a full GC, N streams opened (each from its
// own address in X-Forwarded-For, as N payers would be; the gateway trusts one proxy hop), the
// memory again, then one payment flag per VA (the bank's signed `transfer-va/payment`) at the rate,
// open loop. "Commit" is the moment the committing process has its store's answer (the store's
// changeStatus resolved); "event" is when this process read the page's `paid` event. The two
// clocks are compared over IPC (offset from the fastest of 7 round trips). Each server is a child
// process (this file with `--serve gateway|bare`); the streams and the bank are this process.
// Needs one file descriptor per stream in this process and in the one holding the streams: the
// soft limit (`ulimit -n`) is checked first.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { formatJakartaTimestamp, hmacSha512Base64, SERVICE, serviceStringToSign, successCode } from '@snapgate/snap';
import Fastify from 'fastify';
import pg from 'pg';
import { Pool } from 'undici';
import { assembleGateway, listenOn } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { openStore } from '../src/store/open-store.ts';
import { createAnnouncer, parseAnnouncement } from '../src/store/postgres/status-notify.ts';
import { adminApiOf } from '../test/helpers/process.ts';
import { authenticate, newExternalId, type SnapCaller, snapCall } from '../test/helpers/snap.ts';
import { fmt, freshPostgres, HOST, percentiles, servedKind, table } from './bench-kit.ts';

const DEFAULT_STREAMS = 10_000;
const DEFAULT_RATE = 1_000;
const BANK_CODE = '014';
const AMOUNT = '150000.00';
const CREATE_VA_PATH = '/api/snap/v1.0/transfer-va/create-va';
const PAYMENT_PATH = '/api/snap/v1.0/transfer-va/payment';
const PAID = `"responseCode":"${successCode(SERVICE.vaPayment)}"`;
const SETUP_IN_FLIGHT = 32;
const OPEN_IN_FLIGHT = 200;
const PAY_CONNECTIONS = 64;
/** How long after the last payment every page must have been told. */
const EVENT_BOUND_MS = 30_000;

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes. */
const nowMs = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------
// Children. They answer the parent's questions over the fork IPC channel and stop (close their
// server, exit) when the parent disconnects it.

type Question = 'memory' | 'commits' | 'clock' | 'cpu';
/** [what the page knows the payment by (VA number, id, or referenceNo for the probe), when, referenceNo]. */
type Commit = [string, number, string];

interface Answer {
  nowMs: number;
  cpuUs: number;
  memory?: { rss: number; heap: number; external: number };
  pages?: number;
  /** Since the last 'commits': [key (VA number or id), commit time, referenceNo]. */
  commits?: Commit[];
  /** Event-loop delay since the last 'cpu' (ms). */
  loopDelay?: { p50: number; p99: number; max: number };
}

function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function answerQuestions(pages: () => number, commits: Commit[], close: () => Promise<void>) {
  const gc = exposedGc();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  process.once('disconnect', () => {
    close().finally(() => process.exit(0));
  });
  process.on('message', (q: Question) => {
    const cpu = process.cpuUsage();
    const a: Answer = { nowMs: nowMs(), cpuUs: cpu.user + cpu.system };
    if (q === 'memory') {
      gc();
      gc();
      const m = process.memoryUsage();
      a.memory = { rss: m.rss, heap: m.heapUsed, external: m.external };
      a.pages = pages();
    } else if (q === 'commits') {
      a.commits = commits.splice(0);
    } else if (q === 'cpu') {
      const ms = (ns: number) => ns / 1e6;
      a.loopDelay = { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) };
      loop.reset();
    }
    process.send?.(a);
  });
}

/** A gateway (production mode, one trusted proxy hop) on SQLite, or on PostgreSQL at BENCH_DATABASE_URL. */
async function runGatewayChild(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-checkout-'));
  const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
  const config = loadConfig({
    SNAPGATE_DB: join(dir, 'snapgate.db'),
    SNAPGATE_ADMIN_TOKEN: process.env.BENCH_ADMIN_TOKEN,
    SNAPGATE_MASTER_KEY: process.env.BENCH_MASTER_KEY,
    SNAPGATE_HOST: HOST,
    SNAPGATE_PORT: '0',
    SNAPGATE_MODE: 'production',
    SNAPGATE_RATE_LIMIT: 'off',
    SNAPGATE_TRUST_PROXY: '1',
    // Every page holds a connection, all from 127.0.0.1 here (from the proxy, behind one).
    SNAPGATE_MAX_CONNECTIONS: process.env.BENCH_MAX_CONNECTIONS,
    SNAPGATE_MAX_CONNECTIONS_PER_ADDRESS: process.env.BENCH_MAX_CONNECTIONS,
    SNAPGATE_LOG_LEVEL: 'warn',
  });
  const store = await openStore({ sqlitePath: config.sqlitePath, databaseUrl, sqliteWriter: config.sqliteWriter });
  // The commit as this process knows it: the store's answer to the status change, before anyone is told.
  const commits: Commit[] = [];
  const changeStatus = store.changeStatus.bind(store);
  store.changeStatus = async (change) => {
    const changed = await changeStatus(change);
    const txn = changed?.txn;
    if (txn) commits.push([txn.virtualAccountNo ?? txn.referenceNo, nowMs(), txn.referenceNo]);
    return changed;
  };
  const { gateway } = await assembleGateway({ config, store, clock: systemClock, logger: createLogger('warn') });
  const url = await listenOn(gateway, HOST, 0);
  answerQuestions(
    () => gateway.live.listeners,
    commits,
    async () => {
      await gateway.app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  );
  process.send?.({ port: Number(new URL(url).port) });
}

/** The baseline: a bare Fastify 5 holding event streams in a map, told by `POST /commit/<id>`. */
async function runBareChild(): Promise<void> {
  const app = Fastify({ logger: false });
  const open = new Map<string, import('node:http').ServerResponse>();
  const commits: Commit[] = [];
  const event = (state: string, seq: number) => `event: status\ndata: {"state":"${state}","seq":${seq}}\n\n`;
  app.get<{ Params: { id: string } }>('/pay/:id/events', (request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' });
    res.write(event('waiting', 1));
    open.set(request.params.id, res);
    res.on('close', () => open.delete(request.params.id));
  });
  app.post<{ Params: { id: string } }>('/commit/:id', async (request) => {
    commits.push([request.params.id, nowMs(), request.params.id]);
    const res = open.get(request.params.id);
    open.delete(request.params.id);
    res?.end(event('paid', 2));
    return { ok: true };
  });
  await app.listen({ port: 0, host: HOST });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new TypeError('fastify has no port');
  answerQuestions(
    () => open.size,
    commits,
    () => app.close(),
  );
  process.send?.({ port: address.port });
}

/**
 * PostgreSQL's announcements as an idle listener of their own hears them: the time the committing
 * instance announced the change, one turn of its event loop after it learnt of the commit
 * (store/postgres/status-notify.ts). The figures from it measure announcement → page; the commit
 * itself is earlier by that instance's delay in hearing its own answer (payment answer p50 shows
 * how busy it was).
 */
async function runProbeChild(): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await client.connect();
  const heard: Commit[] = [];
  client.on('notification', (n) => {
    const at = nowMs();
    for (const { referenceNo } of parseAnnouncement(n.payload ?? '')) heard.push([referenceNo, at, referenceNo]);
  });
  await client.query('LISTEN snapgate_status');
  answerQuestions(
    () => 0,
    heard,
    () => client.end(),
  );
  process.send?.({ port: 0 });
}

interface Child {
  baseUrl: string;
  ask(q: Question): Promise<Answer>;
  stop(): Promise<void>;
}

async function forkChild(kind: 'gateway' | 'bare' | 'probe', env: Record<string, string> = {}): Promise<Child> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', kind], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { port: number }));
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code} before listening`)));
  });
  let queue = Promise.resolve() as Promise<unknown>;
  return {
    baseUrl: `http://${HOST}:${ready.port}`,
    ask(q) {
      const next = queue.then(
        () =>
          new Promise<Answer>((resolve) => {
            child.once('message', (m) => resolve(m as Answer));
            child.send(q);
          }),
      );
      queue = next;
      return next;
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/** childClock − thisClock, from the fastest of 7 round trips; and that round trip (the error is under half of it). */
async function clockOffset(child: Child): Promise<{ offsetMs: number; rttMs: number }> {
  let best = { offsetMs: 0, rttMs: Number.POSITIVE_INFINITY };
  for (let i = 0; i < 7; i++) {
    const t0 = nowMs();
    const a = await child.ask('clock');
    const t1 = nowMs();
    if (t1 - t0 < best.rttMs) best = { offsetMs: a.nowMs - (t0 + t1) / 2, rttMs: t1 - t0 };
  }
  return best;
}

// ---------------------------------------------------------------------------------------
// The pages' streams (this process).

interface Page {
  /** The checkout id (the gateway) or the baseline's id. */
  id: string;
  /** What the payment's commit is keyed by: the VA number, or the id. */
  key: string;
  state?: string;
  eventAtMs?: number;
  paySentAtMs?: number;
}

/** An address of its own per page, as N payers would have (the gateway believes one proxy hop). */
const addressOf = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** Opens a page's stream; resolves once its first event (the state now) arrived. */
function openStream(agent: Agent, baseUrl: string, page: Page, n: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}/pay/${page.id}/events`, {
      agent,
      headers: { accept: 'text/event-stream', 'x-forwarded-for': addressOf(n + 1) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`GET /pay/${page.id}/events: HTTP ${res.statusCode}`));
        res.resume();
        return;
      }
      res.setEncoding('utf8');
      let text = '';
      res.on('data', (chunk: string) => {
        const at = nowMs();
        text += chunk;
        for (let end = text.indexOf('\n\n'); end !== -1; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (!/^event: status$/m.test(block) || data === undefined) continue;
          const state = (JSON.parse(data) as { state: string }).state;
          if (page.state === undefined) resolve();
          else if (page.eventAtMs === undefined) page.eventAtMs = at;
          page.state = state;
        }
      });
      res.on('error', () => undefined);
    });
    req.end();
  });
}

async function inParallel<T>(items: T[], inFlight: number, work: (item: T, n: number) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < items.length; n = next++) await work(items[n] as T, n);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

// ---------------------------------------------------------------------------------------
// The gateway's side of a phase: merchant, bank, VAs, payment flags.

interface Va {
  checkoutId: string;
  partnerServiceId: string;
  customerNo: string;
  virtualAccountNo: string;
}

interface Setup {
  bank: SnapCaller;
  vas: Va[];
}

async function setUpGateway(baseUrl: string, adminToken: string, count: number): Promise<Setup> {
  const admin = adminApiOf(adminToken);
  const create = async (path: string, body: unknown) => {
    const r = await admin({ url: baseUrl }, 'POST', path, body);
    if (r.status !== 201) throw new Error(`POST /admin/v1${path}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as Record<string, string>;
  };
  const m = await create('/merchants', { name: 'Toko Bench' });
  const p = await create('/providers', { name: 'bench bank', kind: 'bank', bankCode: BANK_CODE });
  const merchant = await authenticate(baseUrl, m as { clientKey: string; clientSecret: string; partnerId: string });
  const bank = await authenticate(baseUrl, {
    clientKey: p.clientKey as string,
    clientSecret: p.clientSecret as string,
    partnerId: p.clientKey as string,
  });
  const run = randomBytes(3).toString('hex');
  const vas: Va[] = [];
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    SETUP_IN_FLIGHT,
    async (i) => {
      const r = await snapCall(baseUrl, merchant, CREATE_VA_PATH, {
        virtualAccountName: 'Budi Santoso',
        trxId: `CK${run}${String(i).padStart(7, '0')}`,
        totalAmount: { value: AMOUNT, currency: 'IDR' },
        additionalInfo: { bankCode: BANK_CODE },
      });
      const d = r.body?.virtualAccountData;
      const checkoutUrl = d?.additionalInfo?.checkoutUrl as string | undefined;
      if (r.status !== 200 || !checkoutUrl) throw new Error(`create-va: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      vas.push({
        checkoutId: new URL(checkoutUrl).pathname.split('/').pop() as string,
        partnerServiceId: d.partnerServiceId,
        customerNo: d.customerNo,
        virtualAccountNo: d.virtualAccountNo,
      });
    },
  );
  return { bank, vas };
}

let paymentSeq = 0;

/** One signed payment flag for `va` (as bench:upstream's bank); resolves with whether it was 2002500. */
async function payVa(pool: Pool, bank: SnapCaller, va: Va): Promise<boolean> {
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
  const res = await pool.request({
    method: 'POST',
    path: PAYMENT_PATH,
    body,
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${bank.accessToken}`,
      'x-timestamp': timestamp,
      'x-signature': hmacSha512Base64(bank.clientSecret, toSign),
      'x-partner-id': bank.partnerId,
      'x-external-id': newExternalId(),
      'channel-id': '95221',
    },
  });
  const text = await res.body.text();
  return res.statusCode === 200 && text.includes(PAID);
}

/** Sends `jobs` at `ratePerSec`, each on its schedule whether or not earlier ones were answered. */
async function openLoop(ratePerSec: number, jobs: Array<() => Promise<boolean>>) {
  const answersMs: number[] = [];
  let ok = 0;
  let failed = 0;
  const t0 = nowMs() + 10;
  const inFlight: Promise<void>[] = [];
  for (const [i, job] of jobs.entries()) {
    const wait = t0 + (i * 1000) / ratePerSec - nowMs();
    if (wait >= 1) await sleep(wait);
    const start = nowMs();
    inFlight.push(
      job().then(
        (isOk) => {
          answersMs.push(nowMs() - start);
          if (isOk) ok++;
          else failed++;
        },
        () => {
          failed++;
        },
      ),
    );
  }
  await Promise.all(inFlight);
  return { ok, failed, spanSec: (nowMs() - t0) / 1000, answers: percentiles(answersMs) };
}

// ---------------------------------------------------------------------------------------
// A phase: one column of the table.

interface PhaseFigures {
  name: string;
  streams: number;
  opened: number;
  openFailed: number;
  openSec: number;
  perPageRssKb: number;
  perPageHeapKb: number;
  paid: number;
  payFailed: number;
  paidPerSec: number;
  answerP50: number;
  answerP99: number;
  told: number;
  wrongState: number;
  eventP50: number;
  eventP99: number;
  eventMax: number;
  /** Pages whose commit was timed. */
  timed: number;
  /** The bank's request sent → the page told. */
  sentP50: number;
  sentP99: number;
  clockRttMs: number;
  streamsCpuPct: number;
  payerCpuPct: number;
  loopDelayP99: number;
}

interface PhaseServers {
  name: string;
  /** Holds the streams. */
  streams: Child;
  /** Commits the payments (the same child on one instance). */
  payer: Child;
  /** PostgreSQL: an idle listener, whose hearing of the NOTIFY times the commit. */
  probe?: Child | undefined;
  pages: Page[];
  pay(page: Page): Promise<boolean>;
}

async function measurePhase(s: PhaseServers, rate: number): Promise<PhaseFigures> {
  const { pages } = s;
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const before = await s.streams.ask('memory');
  process.stderr.write(`  opening ${fmt(pages.length)} streams…\n`);
  const openStart = nowMs();
  let opened = 0;
  const openErrors: string[] = [];
  await inParallel(pages, OPEN_IN_FLIGHT, async (page, n) => {
    try {
      await openStream(agent, s.streams.baseUrl, page, n);
      opened++;
    } catch (e) {
      if (openErrors.push((e as Error).message) === 1)
        process.stderr.write(`  a stream failed: ${(e as Error).message}\n`);
    }
  });
  const openSec = (nowMs() - openStart) / 1000;
  const after = await s.streams.ask('memory');
  const perPage = (a: number, b: number) => (b - a) / 1024 / Math.max(1, opened);
  process.stderr.write(`  paying ${fmt(pages.length)} at ${fmt(rate)}/s…\n`);
  await s.streams.ask('cpu');
  const cpu0 = [await s.streams.ask('cpu'), await s.payer.ask('cpu')];
  await s.payer.ask('commits');
  await s.probe?.ask('commits');
  const pay = await openLoop(
    rate,
    pages.map((page) => () => {
      page.paySentAtMs = nowMs();
      return s.pay(page);
    }),
  );
  const cpu1 = [await s.streams.ask('cpu'), await s.payer.ask('cpu')];
  const deadline = nowMs() + EVENT_BOUND_MS;
  const waiting = pages.filter((p) => p.state !== undefined);
  while (waiting.some((p) => p.eventAtMs === undefined) && nowMs() < deadline) await sleep(50);
  const payer = await clockOffset(s.payer);
  const payerCommits = (await s.payer.ask('commits')).commits ?? [];
  const probe = s.probe && (await clockOffset(s.probe));
  const heard = s.probe && new Map(((await s.probe.ask('commits')).commits ?? []).map(([ref, at]) => [ref, at]));
  // When each page's payment committed, on this process's clock.
  const committedAt = new Map<string, number>();
  for (const [key, at, ref] of payerCommits) {
    const probeAt = heard?.get(ref);
    if (!heard) committedAt.set(key, at - payer.offsetMs);
    else if (probeAt !== undefined && probe) committedAt.set(key, probeAt - probe.offsetMs);
  }
  const latencies: number[] = [];
  const endToEnd: number[] = [];
  for (const page of pages) {
    const at = committedAt.get(page.key);
    if (page.eventAtMs === undefined) continue;
    if (at !== undefined) latencies.push(page.eventAtMs - at);
    if (page.paySentAtMs !== undefined) endToEnd.push(page.eventAtMs - page.paySentAtMs);
  }
  const clockRttMs = Math.max(payer.rttMs, probe?.rttMs ?? 0);
  agent.destroy();
  const lat = percentiles(latencies);
  const e2e = percentiles(endToEnd);
  const spanUs = pay.spanSec * 1e6;
  const cpuPct = (i: number) => (((cpu1[i] as Answer).cpuUs - (cpu0[i] as Answer).cpuUs) / spanUs) * 100;
  return {
    name: s.name,
    streams: pages.length,
    opened,
    openFailed: openErrors.length,
    openSec,
    perPageRssKb: perPage(before.memory?.rss ?? NaN, after.memory?.rss ?? NaN),
    perPageHeapKb: perPage(
      (before.memory?.heap ?? NaN) + (before.memory?.external ?? NaN),
      (after.memory?.heap ?? NaN) + (after.memory?.external ?? NaN),
    ),
    paid: pay.ok,
    payFailed: pay.failed,
    paidPerSec: pay.ok / pay.spanSec,
    answerP50: pay.answers.p50,
    answerP99: pay.answers.p99,
    told: pages.filter((p) => p.eventAtMs !== undefined).length,
    wrongState: pages.filter((p) => p.eventAtMs !== undefined && p.state !== 'paid').length,
    eventP50: lat.p50,
    eventP99: lat.p99,
    eventMax: lat.max,
    timed: latencies.length,
    sentP50: e2e.p50,
    sentP99: e2e.p99,
    clockRttMs,
    streamsCpuPct: cpuPct(0),
    payerCpuPct: s.payer === s.streams ? NaN : cpuPct(1),
    loopDelayP99: (cpu1[0] as Answer).loopDelay?.p99 ?? NaN,
  };
}

async function barePhase(streams: number, rate: number): Promise<PhaseFigures> {
  process.stderr.write('bare Fastify baseline…\n');
  const bare = await forkChild('bare');
  const pool = new Pool(bare.baseUrl, { connections: PAY_CONNECTIONS });
  try {
    const pages: Page[] = Array.from({ length: streams }, () => {
      const id = randomBytes(16).toString('base64url');
      return { id, key: id };
    });
    return await measurePhase(
      {
        name: 'bare Fastify SSE',
        streams: bare,
        payer: bare,
        pages,
        async pay(page) {
          const res = await pool.request({ method: 'POST', path: `/commit/${page.id}` });
          await res.body.text();
          return res.statusCode === 200;
        },
      },
      rate,
    );
  } finally {
    await pool.close();
    await bare.stop();
  }
}

/** One instance (`instances` 1) or two on one database (payments through A, streams on B). */
async function gatewayPhase(
  name: string,
  o: Options,
  instances: 1 | 2,
  databaseUrl: string | undefined,
): Promise<PhaseFigures> {
  process.stderr.write(`${name}…\n`);
  const env = {
    BENCH_ADMIN_TOKEN: `bench-admin-${randomBytes(16).toString('hex')}`,
    BENCH_MASTER_KEY: randomBytes(32).toString('base64'),
    BENCH_DATABASE_URL: databaseUrl ?? '',
    // Past 80 % of it the server closes connections without a request in progress to make room
    // (src/http/server-limits.ts): a page's stream being opened is one, for a moment.
    BENCH_MAX_CONNECTIONS: String(Math.ceil(o.streams * 1.25) + 1_000),
  };
  const a = await forkChild('gateway', env);
  const b = instances === 2 ? await forkChild('gateway', env) : a;
  const probe = databaseUrl ? await forkChild('probe', env) : undefined;
  const pool = new Pool(a.baseUrl, { connections: PAY_CONNECTIONS });
  try {
    process.stderr.write(`  creating ${fmt(o.streams)} VAs (not measured)…\n`);
    const { bank, vas } = await setUpGateway(a.baseUrl, env.BENCH_ADMIN_TOKEN, o.streams);
    const byKey = new Map(vas.map((va) => [va.virtualAccountNo, va]));
    return await measurePhase(
      {
        name,
        streams: b,
        payer: a,
        probe,
        pages: vas.map((va) => ({ id: va.checkoutId, key: va.virtualAccountNo })),
        pay: (page) => payVa(pool, bank, byKey.get(page.key) as Va),
      },
      o.rate,
    );
  } finally {
    await pool.close();
    await probe?.stop();
    if (b !== a) await b.stop();
    await a.stop();
  }
}

// ---------------------------------------------------------------------------------------
// --notify-cost: what announcing each change costs PostgreSQL's commit rate. PostgreSQL serialises
// the commits of transactions that notified (a database-wide lock held through the commit, so the
// queue is in commit order): they no longer share a WAL flush. Measured on the shape of a status
// change (a guarded one-row UPDATE … RETURNING, one statement): without an announcement; with a
// pg_notify in the change's own statement (the first design); and as the gateway does it
// (store/postgres/status-notify.ts): after the commit, the changes of one event-loop turn in one
// NOTIFY. A listener is connected as every instance has; rounds alternate in one sitting.

const NOTIFY_ROWS = 4_000;
const NOTIFY_IN_FLIGHT = 16;
const NOTIFY_ROUNDS = 3;

async function notifyCost(pgUrl: string): Promise<string> {
  const db = await freshPostgres(pgUrl);
  const pool = new pg.Pool({ connectionString: db.url, max: NOTIFY_IN_FLIGHT });
  const listener = new pg.Client({ connectionString: db.url });
  let heard = 0;
  try {
    await listener.connect();
    listener.on('notification', (n) => {
      heard += n.payload?.startsWith('[') ? parseAnnouncement(n.payload).length : 1;
    });
    await listener.query('LISTEN bench_status');
    await pool.query(
      'CREATE TABLE bench_txn (reference_no TEXT PRIMARY KEY, status TEXT NOT NULL, status_desc TEXT, seq INTEGER NOT NULL, updated_at BIGINT NOT NULL)',
    );
    const update = `UPDATE bench_txn SET status = '00', status_desc = 'Success', seq = seq + 1, updated_at = $2
      WHERE reference_no = $1 AND seq = 1 RETURNING *`;
    const statements = {
      without: `WITH u AS (${update}) SELECT u.* FROM u`,
      with: `WITH u AS (${update}) SELECT u.*, pg_notify('bench_status', json_build_object('r', u.reference_no,
        's', u.status, 'q', u.seq, 'd', u.status_desc)::text) AS announced FROM u`,
    };
    const rates: Record<'with' | 'without' | 'after', number[]> = { with: [], without: [], after: [] };
    const announcer = createAnnouncer(
      (payload) => pool.query("SELECT pg_notify('bench_status', $1)", [payload]),
      () => undefined,
    );
    for (let round = 0; round < NOTIFY_ROUNDS; round++) {
      for (const kind of ['without', 'with', 'after'] as const) {
        await pool.query('TRUNCATE bench_txn');
        await pool.query(
          `INSERT INTO bench_txn SELECT 'R' || i, '01', 'Pending', 1, 0 FROM generate_series(1, ${NOTIFY_ROWS}) i`,
        );
        let next = 1;
        const start = nowMs();
        await Promise.all(
          Array.from({ length: NOTIFY_IN_FLIGHT }, async () => {
            for (let i = next++; i <= NOTIFY_ROWS; i = next++) {
              const r = await pool.query(statements[kind === 'with' ? 'with' : 'without'], [`R${i}`, Date.now()]);
              if (r.rowCount !== 1) throw new Error(`R${i} was not changed`);
              const row = r.rows[0];
              if (kind === 'after')
                announcer.announce({
                  referenceNo: row.reference_no,
                  status: row.status,
                  statusDesc: row.status_desc,
                  seq: row.seq,
                });
            }
          }),
        );
        if (kind === 'after') await announcer.drain();
        rates[kind].push(NOTIFY_ROWS / ((nowMs() - start) / 1000));
      }
    }
    const expected = 2 * NOTIFY_ROWS * NOTIFY_ROUNDS;
    const deadline = nowMs() + 10_000;
    while (heard < expected && nowMs() < deadline) await sleep(20);
    const NAMES = {
      without: 'without',
      with: 'with NOTIFY in the commit',
      after: 'announced after the commit, batched',
    };
    const line = (kind: 'with' | 'without' | 'after') => [NAMES[kind], ...rates[kind].map((r) => fmt(r))];
    return [
      `Announcing status changes: one-row changes committed per second, ${NOTIFY_IN_FLIGHT} in flight, ${fmt(NOTIFY_ROWS)} per round, alternating`,
      table(['', ...rates.with.map((_, i) => `round ${i + 1}`)], [line('without'), line('with'), line('after')]),
      `listener heard ${fmt(heard)} of ${fmt(expected)} notifications`,
    ].join('\n');
  } finally {
    await listener.end().catch(() => undefined);
    await pool.end();
    await db.drop();
  }
}

// ---------------------------------------------------------------------------------------
// Options, limits, report.

interface Options {
  streams: number;
  rate: number;
  pgUrl: string | undefined;
  isJson: boolean;
  /** Only the cost of NOTIFY in a commit, on PostgreSQL. */
  isNotifyCost: boolean;
  phases: Set<PhaseName>;
}

const PHASES = ['bare', 'sqlite', 'pg', 'pg2'] as const;
type PhaseName = (typeof PHASES)[number];

function parseArgs(argv: string[]): Options {
  const o: Options = {
    streams: DEFAULT_STREAMS,
    rate: DEFAULT_RATE,
    pgUrl: process.env.SNAPGATE_DATABASE_URL || undefined,
    isJson: false,
    isNotifyCost: false,
    phases: new Set(PHASES),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const count = () => {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error(`${a} takes a whole number ≥ 1`);
      return n;
    };
    if (a === '--streams') o.streams = count();
    else if (a === '--rate') o.rate = count();
    else if (a === '--pg') o.pgUrl = value();
    else if (a === '--json') o.isJson = true;
    else if (a === '--notify-cost') o.isNotifyCost = true;
    else if (a === '--phases') {
      const names = value().split(',');
      const unknown = names.filter((n) => !(PHASES as readonly string[]).includes(n));
      if (unknown.length > 0) throw new Error(`--phases takes some of ${PHASES.join(',')}, not ${unknown.join(',')}`);
      o.phases = new Set(names as PhaseName[]);
    } else
      throw new Error(`unknown option ${a} (--streams N, --rate R, --pg URL, --phases LIST, --notify-cost, --json)`);
  }
  return o;
}

/** This process's soft limit on open files (/proc; Infinity where it cannot be read). */
function openFileLimit(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function report(o: Options, phases: PhaseFigures[], load1m: number): string {
  const row = (label: string, f: (p: PhaseFigures) => string) => [label, ...phases.map(f)];
  const ms = (n: number) => fmt(n, 1);
  const lines = [
    `Hosted checkout live status: ${fmt(o.streams)} open event streams, payments ${fmt(o.rate)}/s offered`,
    `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.version}, load ${load1m.toFixed(2)} at start`,
    '',
    table(
      ['', ...phases.map((p) => p.name)],
      [
        row('streams open', (p) => `${fmt(p.opened)} / ${fmt(p.streams)}`),
        row('time to open them (s)', (p) => fmt(p.openSec, 1)),
        row('memory per open page, RSS (KB)', (p) => fmt(p.perPageRssKb, 1)),
        row('memory per open page, JS heap + external (KB)', (p) => fmt(p.perPageHeapKb, 1)),
        row('payments answered ok', (p) => `${fmt(p.paid)}${p.payFailed ? ` (${fmt(p.payFailed)} failed)` : ''}`),
        row('payments answered ok /s', (p) => fmt(p.paidPerSec)),
        row('payment answer p50 / p99 (ms)', (p) => `${ms(p.answerP50)} / ${ms(p.answerP99)}`),
        row('pages told', (p) => `${fmt(p.told)}${p.wrongState ? ` (${fmt(p.wrongState)} not paid)` : ''}`),
        row('commit → event p50 (ms)', (p) => ms(p.eventP50)),
        row('commit → event p99 (ms)', (p) => ms(p.eventP99)),
        row('commit → event max (ms)', (p) => ms(p.eventMax)),
        row('pages whose commit was timed', (p) => fmt(p.timed)),
        row('payment request sent → event p50 / p99 (ms)', (p) => `${ms(p.sentP50)} / ${ms(p.sentP99)}`),
        row('streams process CPU while paying (% of a core)', (p) => fmt(p.streamsCpuPct)),
        row('paying instance CPU, when another (% of a core)', (p) => fmt(p.payerCpuPct)),
        row('streams process event-loop delay p99 (ms)', (p) => ms(p.loopDelayP99)),
        row('clock comparison round trip (ms)', (p) => fmt(p.clockRttMs, 2)),
      ],
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`bench:checkout: ${(e as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  if (o.isNotifyCost) {
    if (!o.pgUrl) {
      process.stderr.write('bench:checkout: --notify-cost needs PostgreSQL: --pg <url> or SNAPGATE_DATABASE_URL\n');
      process.exitCode = 2;
      return;
    }
    process.stdout.write(`${await notifyCost(o.pgUrl)}\n`);
    return;
  }
  const limit = openFileLimit();
  if (limit < o.streams + 1_000) {
    process.stderr.write(
      `bench:checkout: ${fmt(o.streams)} streams need ${fmt(o.streams + 1_000)} open files per process, the limit is ${fmt(limit)}: raise it (ulimit -n ${o.streams + 1_000}) or pass --streams\n`,
    );
    process.exitCode = 2;
    return;
  }
  const load1m = loadavg()[0] ?? NaN;
  const phases: PhaseFigures[] = [];
  if (o.phases.has('bare')) phases.push(await barePhase(o.streams, o.rate));
  if (o.phases.has('sqlite')) phases.push(await gatewayPhase('gateway, SQLite', o, 1, undefined));
  if (o.pgUrl) {
    for (const instances of [1, 2] as const) {
      if (!o.phases.has(instances === 1 ? 'pg' : 'pg2')) continue;
      const db = await freshPostgres(o.pgUrl);
      try {
        const name = instances === 1 ? 'gateway, PostgreSQL' : 'PostgreSQL: A pays, B streams';
        phases.push(await gatewayPhase(name, o, instances, db.url));
      } finally {
        await db.drop();
      }
    }
  }
  process.stdout.write(`${report(o, phases, load1m)}\n`);
  if (!o.pgUrl) process.stdout.write('PostgreSQL: not run (pass --pg <url> or set SNAPGATE_DATABASE_URL)\n');
  const incomplete = phases.filter((p) => p.told < p.streams || p.wrongState > 0 || p.payFailed > 0);
  for (const p of incomplete) {
    process.stdout.write(
      `${p.name}: ${fmt(p.openFailed)} streams failed to open, ${fmt(p.opened - p.told)} open pages not told within ${EVENT_BOUND_MS / 1000} s, ${fmt(p.wrongState)} in another state, ${fmt(p.payFailed)} payments failed\n`,
    );
  }
  if (incomplete.length > 0) process.exitCode = 1;
  if (o.isJson) process.stdout.write(`${JSON.stringify({ options: o, phases }, null, 2)}\n`);
}

const kind = servedKind();
if (kind === 'gateway') await runGatewayChild();
else if (kind === 'bare') await runBareChild();
else if (kind === 'probe') await runProbeChild();
else await main();

// What the benchmarks in this folder (delivery.ts, upstream.ts, token.ts) share: the servers they
// fork from their own file (`--serve <kind>`), percentiles, CPU time from /proc, and the text
// table. What each one measures, and how it reports it, stays in its own file.
import { type ChildProcess, fork, type SpawnOptions, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { Session as InspectorSession } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRANSACTION_STATUS } from '@snapgate/snap';
import Fastify from 'fastify';
import pg from 'pg';
import { assembleGateway, listenOn } from '../src/app.ts';
import { paymentEntry } from '../src/books/postings.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { newBillNumber, newNotificationId } from '../src/payments/ids.ts';
import type { MerchantRecord, QrisTransaction, StatusChange, TransactionRecord } from '../src/records/records.ts';
import { openStore } from '../src/store/open-store.ts';
import { adminApiOf, type GatewayProcess } from '../test/helpers/process.ts';

/** Every server a benchmark starts listens on loopback only: the figures are the code's, not a network's. */
export const HOST = '127.0.0.1';

/** User + system CPU time this process has used, in microseconds. */
export function cpuNowUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

// ---------------------------------------------------------------------------------------
// Servers in child processes, so that none shares the event loop of the load it is under. The
// benchmark forks its own file with `--serve <kind>`; the child answers over the fork IPC channel.

/** The kind of server this process was forked to be (`--serve <kind>`); undefined in the benchmark itself. */
export function servedKind(): string | undefined {
  const at = process.argv.indexOf('--serve');
  return at === -1 ? undefined : (process.argv[at + 1] ?? '');
}

/**
 * Child side: sends `ready` (with the port), answers every message with `stats()` and its CPU
 * time so far (CPU per request is steadier than requests/s on a shared machine), and exits once
 * the parent disconnects, after `close()`.
 */
export function serveChild(
  ready: { port: number },
  close: () => Promise<void>,
  stats: () => object = () => ({}),
): void {
  process.once('disconnect', () => {
    close().finally(() => process.exit(0));
  });
  process.on('message', () => {
    const cpuUs = cpuNowUs();
    process.send?.({ ...stats(), cpuUs });
  });
  process.send?.(ready);
}

/** Listens on HOST, on a port the system picks; resolves with the port. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new TypeError('server has no port');
  return address.port;
}

/** Child side of a merchant's receiver: a bare node:http server running `handle`; see serveChild. */
export async function serveReceiverChild(handle: RequestListener, stats: () => object): Promise<void> {
  const server = createServer(handle);
  // The load keeps its connections open across phases; node's 5 s default would close idle ones in between.
  server.keepAliveTimeout = 60_000;
  const port = await listenOnLoopback(server);
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  serveChild({ port }, close, stats);
}

/**
 * BENCH_CPU_PROF=<dir>: profiles one measured phase of this process (the in-process gateway) with
 * the inspector and writes `<dir>/<name>.cpuprofile` when the returned function is called.
 */
export async function profilePhase(name: string): Promise<() => Promise<void>> {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return async () => undefined;
  const session = new InspectorSession();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/** What a bare Fastify baseline answers: the very bytes and headers the gateway answered with. */
export interface BareFastifyInput {
  path: string;
  body: string;
  headers: Record<string, string>;
}

/** Child side: a bare Fastify 5 with one POST route answering `input` (the baseline of a benchmark). */
export async function serveBareFastify(
  input: BareFastifyInput,
): Promise<{ ready: { port: number }; close: () => Promise<void> }> {
  const app = Fastify({ logger: false });
  app.post(input.path, async (_request, reply) =>
    reply.headers(input.headers).type('application/json').send(input.body),
  );
  await app.listen({ port: 0, host: HOST });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new TypeError('fastify has no port');
  return { ready: { port: address.port }, close: () => app.close() };
}

/**
 * Child side: a throw-away gateway in production mode (secrets sealed at rest, so every request
 * opens a sealed secret), rate limit off, on a fresh SQLite file, or on PostgreSQL at
 * `databaseUrl`. Answers its port, admin token and SQLite file.
 */
export async function serveBenchGateway(databaseUrl?: string): Promise<{
  ready: { port: number; adminToken: string; dbPath: string };
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-bench-'));
  const adminToken = `bench-admin-${randomBytes(16).toString('hex')}`;
  const config = loadConfig({
    SNAPGATE_DB: join(dir, 'snapgate.db'),
    SNAPGATE_ADMIN_TOKEN: adminToken,
    SNAPGATE_HOST: HOST,
    SNAPGATE_PORT: '0',
    SNAPGATE_MODE: 'production',
    SNAPGATE_MASTER_KEY: randomBytes(32).toString('base64'),
    SNAPGATE_RATE_LIMIT: 'off',
    SNAPGATE_LOG_LEVEL: 'warn',
    // inline: the writes on the main thread, as before the writer thread (one sitting, both ways).
    SNAPGATE_SQLITE_WRITER: process.env.SNAPGATE_SQLITE_WRITER,
  });
  const store = await openStore({ sqlitePath: config.sqlitePath, databaseUrl, sqliteWriter: config.sqliteWriter });
  const { gateway } = await assembleGateway({
    config,
    store,
    clock: systemClock,
    logger: createLogger(config.logLevel),
  });
  const url = await listenOn(gateway, HOST, 0);
  return {
    ready: { port: Number(new URL(url).port), adminToken, dbPath: config.sqlitePath },
    close: async () => {
      await gateway.app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** POSTs to the admin API of a gateway a benchmark started: the created record, or an error naming the answer. */
export async function createWithAdmin(
  baseUrl: string,
  adminToken: string,
  path: string,
  input: unknown,
): Promise<Record<string, unknown>> {
  const r = await adminApiOf(adminToken)({ url: baseUrl }, 'POST', path, input);
  if (r.status !== 201) throw new Error(`POST /admin/v1${path} failed: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Record<string, unknown>;
}

/** A merchant's acknowledgement of a callback. */
/** A merchant record written straight into a store (benches that build a history without the API). */
export function benchMerchant(id: string): MerchantRecord {
  return {
    id,
    name: 'Bench',
    clientKey: 'bench-ck',
    clientSecret: 'bench-secret',
    previousSecret: null,
    previousValidUntil: null,
    secretVersion: 1,
    partnerId: 'bench-partner',
    publicKeyPem: null,
    tokenSignature: 'any',
    callbackSignature: 'hmac-sha512',
    callbackJson: 'standard',
    callbackVaBody: 'standard',
    callbackAck: 'strict',
    callbackTokenUrl: null,
    callbackBaseUrl: null,
    qrisCallbackUrl: null,
    vaCallbackUrl: null,
    merchantName: 'BENCH',
    merchantCity: 'JAKARTA',
    nmid: 'ID1234567890123',
    mcc: '5999',
    qrisProvider: null,
    qrisCriteria: 'UMI',
    fees: null,
    status: 'active',
    createdAt: 0,
    updatedAt: 0,
  };
}

/**
 * A payment as the gateway commits one (docs/books.md): an open transaction to 00 at `now`, with its
 * notification (a body of notification size) and, unless `ledger` is false, its payment entry.
 */
export function paymentChange(t: TransactionRecord, now: number, providerId: string, ledger = true): StatusChange {
  const paid = { ...t, status: '00' as const, seq: 2, paidAmount: t.amount, paidAt: now };
  return {
    referenceNo: t.referenceNo,
    expectedSeq: 1,
    status: '00',
    statusDesc: TRANSACTION_STATUS['00'],
    reason: 'bench payment',
    at: now,
    patch: { paidAmount: t.amount, paidAt: now },
    // The id as the gateway draws it (time first): the notifications' b-trees append.
    notification: { id: newNotificationId(Date.now()), body: 'x'.repeat(386), nextAttemptAt: now },
    ledger: ledger ? paymentEntry(paid, providerId, now) : undefined,
  };
}

export const ACK_BODY = '{"responseCode":"2002600","responseMessage":"Success"}';
/** The payer a benchmark's payments carry. */
export const PAYER = { payerName: 'Budi Santoso', payerIssuer: '93600014', payerRefId: '112233445566' };

/**
 * A QRIS transaction as bench:delivery's payments leave it (status 00, paid by PAYER): what a
 * notification body is written from, for a benchmark that writes bodies without a gateway.
 */
export function paidQrisTransaction(input: {
  referenceNo: string;
  partnerReferenceNo: string;
  merchantId: string;
  nowMs: number;
}): QrisTransaction {
  const { nowMs } = input;
  return {
    referenceNo: input.referenceNo,
    merchantId: input.merchantId,
    kind: 'qris',
    partnerReferenceNo: input.partnerReferenceNo,
    status: '00',
    statusDesc: TRANSACTION_STATUS['00'],
    seq: 2,
    amount: '150000.00',
    currency: 'IDR',
    paidAmount: '150000.00',
    refundedAmount: '0.00',
    feeAmount: '0.00',
    virtualAccountNo: null,
    billNumber: newBillNumber(),
    expiresAt: nowMs + 3_600_000,
    paidAt: nowMs,
    details: { qrContent: '00020101021226', terminalId: 'T001', storeId: 'S001', payer: PAYER },
    createdAt: nowMs,
    updatedAt: nowMs,
  };
}

export interface AckReceiverStats {
  requests: number;
}

export type AckReceiverChild = ForkedServer<{ port: number }, AckReceiverStats>;

/** Child side of a merchant that acknowledges every callback (bare node:http) and counts them. */
export function serveAckReceiverChild(): Promise<void> {
  let requests = 0;
  return serveReceiverChild(
    (req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        res.writeHead(200, { 'content-type': 'application/json' }).end(ACK_BODY);
      });
    },
    (): AckReceiverStats => ({ requests }),
  );
}

/** Parent side: a server forked from the benchmark's file. */
export interface ForkedServer<Ready, Stats> {
  /** The child's first message. */
  ready: Ready;
  baseUrl: string;
  /** What the child reports now, with the user + system CPU time it has used so far (µs). */
  stats(): Promise<Stats & { cpuUs: number }>;
  /** Disconnects (the child closes its server and exits) and waits for the exit. */
  stop(): Promise<void>;
}

export interface ForkOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Keeps the child's output, shown only if it exits before it listens, so the tables stay readable. */
  isQuiet?: boolean;
  /** Names the child in that error; default the kind. */
  label?: string;
}

/** Forks `moduleUrl` (the benchmark's import.meta.url) with `--serve <kind>` and waits until it listens. */
export async function forkServer<Ready extends { port: number }, Stats extends object = object>(
  moduleUrl: string,
  kind: string,
  options: ForkOptions = {},
): Promise<ForkedServer<Ready, Stats>> {
  const output = options.isQuiet ? 'pipe' : 'inherit';
  // BENCH_CPU_PROF=<dir>: every server child writes a V8 CPU profile there when it exits
  // (read it with bench/profile-summary.ts).
  const profileDir = process.env.BENCH_CPU_PROF;
  const child: ChildProcess = fork(fileURLToPath(moduleUrl), ['--serve', kind], {
    env: { ...process.env, ...options.env },
    execArgv: profileDir ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : process.execArgv,
    stdio: ['ignore', output, output, 'ipc'],
  });
  let kept = '';
  const keep = (chunk: Buffer) => {
    kept += chunk.toString('utf8');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const label = options.label ?? kind;
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Ready));
    child.once('exit', (code) =>
      reject(new Error(`${label} exited with ${code} before listening${options.isQuiet ? `:\n${kept}` : ''}`)),
    );
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    ready,
    baseUrl: `http://${HOST}:${ready.port}`,
    stats: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve(m as Stats & { cpuUs: number }));
        child.send('stats');
      }),
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/** Parent side of serveReceiverChild: `Stats` is what its `stats()` returns. */
export function forkReceiver<Stats extends object>(moduleUrl: string): Promise<ForkedServer<{ port: number }, Stats>> {
  return forkServer<{ port: number }, Stats>(moduleUrl, 'receiver');
}

/** Stops a gateway process as production would (SIGTERM), and kills it if it has not exited in 15 s. */
export async function stopGateway(g: GatewayProcess): Promise<void> {
  if (g.child.exitCode !== null || g.child.signalCode !== null) return;
  g.child.kill('SIGTERM');
  const t = setTimeout(() => g.child.kill('SIGKILL'), 15_000);
  await g.exited;
  clearTimeout(t);
}

/** A port free on HOST just now, for a server that cannot be told to pick its own. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = createServer();
  const port = await listenOnLoopback(probe);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A process spawnOwned started: stop() ends it (SIGTERM, SIGKILL after 10 s) and removes its `dir`. */
export interface OwnedProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

const owned = new Set<{ stop: () => Promise<void>; kill: () => void }>();

/**
 * Spawns a process this benchmark must not leave behind (a server with its own data `dir`). It is
 * stopped by stop(), by stopOwnedOnSignals() on SIGINT/SIGTERM, and at the latest killed (and its
 * dir removed) when this process exits.
 */
export function spawnOwned(command: string, args: string[], options: SpawnOptions & { dir?: string }): OwnedProcess {
  const { dir, ...spawnOptions } = options;
  const child = spawn(command, args, spawnOptions);
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  const isRunning = () => child.pid !== undefined && child.exitCode === null && child.signalCode === null;
  const removeDir = () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  const entry = {
    async stop() {
      if (isRunning()) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await closed;
        clearTimeout(t);
      }
      removeDir();
      owned.delete(entry);
    },
    kill() {
      if (isRunning()) child.kill('SIGKILL');
      removeDir();
    },
  };
  owned.add(entry);
  return { child, stop: entry.stop };
}

/** On SIGINT or SIGTERM: stops every spawnOwned process (removing its dir), then exits with 130. */
export function stopOwnedOnSignals(name: string): void {
  process.once('exit', () => {
    for (const o of owned) o.kill();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`${name}: ${signal}, stopping the processes it started…\n`);
      void Promise.all([...owned].map((o) => o.stop().catch(() => undefined))).finally(() => process.exit(130));
    });
  }
}

// ---------------------------------------------------------------------------------------
// Figures.

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles; NaN for no values. */
export function percentiles(values: number[]): Percentiles {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  if (s.length === 0) return NaN;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

/** getconf CLK_TCK; 100 on every Linux this runs on. */
export const TICK_MS = 10;

/** utime + stime of a process, in clock ticks, from /proc/<pid>/stat; undefined where it cannot be read. */
export function procTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return undefined;
  }
}

/** The whole machine, from /proc/stat: busy and total ticks over all CPUs; NaN where it cannot be read. */
export function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((s, x) => s + x, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

// ---------------------------------------------------------------------------------------
// Output.

/** A figure with thousands separators and `digits` decimals; '—' where there is none (undefined, NaN, ∞). */
export const fmt = (n: number | undefined, digits = 0) =>
  n !== undefined && Number.isFinite(n)
    ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
    : '—';

/** A plain-text table: the first column aligned left, the figures right. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A database of its own for one run (or a schema, when the role may not create databases); dropped by `drop`. */
export async function freshPostgres(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
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

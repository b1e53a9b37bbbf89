// Instructions per request: the B2B token, QRIS generate and VA create of a gateway running under
// valgrind's callgrind, counted over windows of requests. Wall-clock figures on a shared machine
// move 20–50 % between runs minutes apart; the instruction counts of the same code move about 2 %
// (token) to 5 % (payment calls) from window to window, so a change of that size or more shows here
// when the clock cannot show it. Counts are not time (a cache miss or a system call's wait counts
// nothing), so a change is judged on both.
//
//   npm run bench:instructions                                  # this checkout; 3 windows of 1,000 per operation
//   npm run bench:instructions -- --base HEAD~1                 # also the code of a git ref, window by window
//   npm run bench:instructions -- --only token --requests 2000 --windows 5
//   npm run bench:instructions -- --in-flight 8                 # 8 requests at a time instead of 1
//   npm run bench:instructions -- --keep-dumps /tmp/cg          # keep each window's dump, for callgrind_annotate
//
// Each gateway is a child process (this file with `--serve gateway`) under
// `valgrind --tool=callgrind --instr-atstart=no`, so its start and the warm-up run at valgrind's
// uninstrumented speed; a settling window of each operation follows, counted and thrown away.
// Then, per window: a fresh B2B token, a pre-warm of the operation, the search index caught up,
// counters zeroed (`vgdb … zero`), the window's requests, the search index caught up again (each
// window indexes its own transactions), a dump (`vgdb … dump`); the dump's total is divided by the
// requests. The share of V8's compilers (TurboFan, Maglev, Sparkplug: their own functions) is shown
// apart: when V8 recompiles inside a window, that share jumps and says more about V8 than the code.
//
// `--base <ref>` checks the ref out in a temporary git worktree (its node_modules linked to this
// checkout's, its @snapgate/snap built from its own source), copies this file and
// payment-requests.ts in, and runs them there with that ref's bench-kit.ts; the ref must have the
// search queue (migration 022) and the bench-kit exports these files import, which is checked
// before anything starts. Both gateways stay up and the windows alternate between them. A run
// takes minutes (valgrind runs node 20–50 times slower). Ctrl-C stops the gateways and removes the
// worktree. Not a test: nothing asserts a count.
import { type ChildProcess, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { authenticate, type SnapCaller } from '../test/helpers/snap.ts';
import {
  fmt,
  median,
  type OwnedProcess,
  serveBenchGateway,
  servedKind,
  spawnOwned,
  stopOwnedOnSignals,
  table,
} from './bench-kit.ts';
import {
  merchantCaller,
  nextRequest,
  OPERATIONS,
  registerBenchBank,
  type SignedRequest,
  TOKEN_SUCCESS_PREFIX,
  tokenRequest,
} from './payment-requests.ts';

const DEFAULT_REQUESTS = 1000;
const DEFAULT_WINDOWS = 3;
const WARMUP_PER_OPERATION = 1000;
const PREWARM = 100;
/** How long a gateway under valgrind may take to listen. */
const START_TIMEOUT_MS = 10 * 60_000;
/** V8's optimizing and baseline compilers, by the C++ namespaces callgrind names their functions with. */
const COMPILER = /v8::internal::(compiler|maglev|baseline)::/;
const READY_PREFIX = 'snapgate-bench-ready ';
const NAME = 'bench:instructions';
/** What this file and payment-requests.ts import from bench-kit.ts: a base ref's copy must export them. */
const BENCH_KIT_NAMES = [
  'createWithAdmin',
  'fmt',
  'median',
  'serveBenchGateway',
  'servedKind',
  'spawnOwned',
  'stopOwnedOnSignals',
  'table',
];
const SEARCH_MIGRATION = 'packages/gateway/src/store/migrations/022_transaction_search.sqlite.sql';

// ---------------------------------------------------------------------------------------
// Child: the gateway, under valgrind. It prints one line with its port (valgrind keeps stdout
// as it is) and closes on SIGTERM.

async function runChild(): Promise<void> {
  const started = await serveBenchGateway();
  process.stdout.write(`${READY_PREFIX}${JSON.stringify(started.ready)}\n`);
  process.once('SIGTERM', () => {
    started.close().finally(() => process.exit(0));
  });
}

// ---------------------------------------------------------------------------------------
// Parent.

interface Options {
  requests: number;
  windows: number;
  inFlight: number;
  base: string | undefined;
  only: string | undefined;
  keepDumps: string | undefined;
}

const USAGE =
  'options: --requests N (per window, default 1,000), --windows N (default 3), --in-flight N (default 1), ' +
  '--only <operation>, --base <git ref>, --keep-dumps <dir>';

function parseArgs(argv: string[]): Options {
  const o: Options = {
    requests: DEFAULT_REQUESTS,
    windows: DEFAULT_WINDOWS,
    inFlight: 1,
    base: undefined,
    only: undefined,
    keepDumps: undefined,
  };
  const value = (name: string, v: string | undefined) => {
    if (v === undefined || v === '' || v.startsWith('-')) throw new TypeError(`${name} takes a value; ${USAGE}`);
    return v;
  };
  const whole = (name: string, v: string | undefined, max: number) => {
    const n = Number(value(name, v));
    if (!Number.isInteger(n) || n < 1 || n > max) throw new TypeError(`${name} takes a whole number, 1 to ${fmt(max)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--requests') o.requests = whole(arg, argv[++i], 100_000);
    else if (arg === '--windows') o.windows = whole(arg, argv[++i], 100);
    else if (arg === '--in-flight') o.inFlight = whole(arg, argv[++i], 256);
    else if (arg === '--base') o.base = value(arg, argv[++i]);
    else if (arg === '--only') o.only = value(arg, argv[++i]);
    else if (arg === '--keep-dumps') o.keepDumps = value(arg, argv[++i]);
    else throw new TypeError(`unknown option ${arg}; ${USAGE}`);
  }
  return o;
}

/** One request kind the windows measure. */
interface Measured {
  name: string;
  make(caller: SnapCaller): SignedRequest;
  successPrefix: string;
}

const MEASURED: Measured[] = [
  { name: 'token (HMAC)', make: tokenRequest, successPrefix: TOKEN_SUCCESS_PREFIX },
  ...OPERATIONS.map((op) => ({
    name: op.name,
    make: (caller: SnapCaller) => nextRequest(caller, op),
    successPrefix: op.successPrefix,
  })),
];

/** A gateway under callgrind: its process, its dump folder and what the windows counted. */
interface Side {
  label: string;
  owned: OwnedProcess;
  pid: number;
  dumps: string;
  baseUrl: string;
  dbPath: string;
  caller: SnapCaller;
  pool: Pool;
  /** Per operation, per window: instructions per request, all and without the compilers. */
  counts: Map<string, Array<{ total: number; withoutCompiler: number }>>;
}

/** A monitor command to the gateway's valgrind (`instrumentation on`, `zero`, `dump`); throws if it is not taken. */
function monitor(side: Pick<Side, 'pid' | 'dumps'>, ...command: string[]): void {
  // vgdb waits until valgrind has acted on it (at its next timeslice: the gateway's one-second
  // search timer wakes it when idle), and exits 1 when no valgrind of that pid answers.
  execFileSync('vgdb', [`--vgdb-prefix=${vgdbPrefix(side.dumps)}`, `--pid=${side.pid}`, ...command], {
    stdio: 'pipe',
    timeout: 120_000,
  });
}

/** Where valgrind and vgdb meet: named, since the gateway's TMPDIR is its own folder. */
const vgdbPrefix = (dumps: string) => join(dumps, 'vgdb-pipe');

/** Resolves with the gateway's ready line; rejects if it exits, fails to start or takes too long. */
function readyLine(child: ChildProcess, label: string): Promise<{ port: number; dbPath: string; adminToken: string }> {
  let out = '';
  let err = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`${label}: the gateway did not listen in 10 minutes:\n${err}`)),
      START_TIMEOUT_MS,
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      const line = lines.find((l) => l.startsWith(READY_PREFIX));
      if (line) {
        clearTimeout(timer);
        done(JSON.parse(line.slice(READY_PREFIX.length)) as { port: number; dbPath: string; adminToken: string });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString('utf8')).slice(-20_000);
    });
    child.once('error', (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${label}: the gateway exited (${code}) before listening:\n${err}`));
    });
  });
}

async function startSide(label: string, gatewayDir: string): Promise<Side> {
  const dumps = mkdtempSync(join(tmpdir(), 'snapgate-callgrind-'));
  const owned = spawnOwned(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites machine code on the heap: valgrind must look for that everywhere.
      '--smc-check=all-non-file',
      `--vgdb-prefix=${vgdbPrefix(dumps)}`,
      `--callgrind-out-file=${join(dumps, 'callgrind.out.%p')}`,
      process.execPath,
      // A heap that shrinks when idle would make the windows differ in GC work.
      '--no-memory-reducer',
      ...process.execArgv,
      join(gatewayDir, 'bench', 'instructions.ts'),
      '--serve',
      'gateway',
    ],
    // The gateway's own temporary folder (its SQLite file) goes into `dumps` too, so that stopping
    // or killing it (Ctrl-C included) removes everything it made.
    { cwd: gatewayDir, env: { ...process.env, TMPDIR: dumps }, stdio: ['ignore', 'pipe', 'pipe'], dir: dumps },
  );
  try {
    const ready = await readyLine(owned.child, label);
    const baseUrl = `http://127.0.0.1:${ready.port}`;
    await registerBenchBank(baseUrl, ready.adminToken);
    const caller = await merchantCaller(baseUrl, ready.adminToken);
    return {
      label,
      owned,
      pid: owned.child.pid as number,
      dumps,
      baseUrl,
      dbPath: ready.dbPath,
      caller,
      pool: new Pool(baseUrl, { connections: 256 }),
      counts: new Map(),
    };
  } catch (e) {
    await owned.stop();
    throw e;
  }
}

async function stopSide(side: Side): Promise<void> {
  await side.pool.close();
  await side.owned.stop();
}

/** `count` requests, `inFlight` at a time; throws on the first that is not a success. */
async function send(side: Side, m: Measured, count: number, inFlight: number): Promise<void> {
  let left = count;
  const loop = async () => {
    while (left > 0) {
      left--;
      const req = m.make(side.caller);
      const res = await side.pool.request({ method: 'POST', path: req.path, headers: req.headers, body: req.body });
      const body = await res.body.text();
      if (res.statusCode !== 200 || !body.startsWith(m.successPrefix)) {
        throw new Error(`${side.label}, ${m.name}: HTTP ${res.statusCode} ${body.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, loop));
}

/** Waits until the gateway's search queue is empty (its own timer moves it into the index about once a second). */
async function searchCaughtUp(side: Side): Promise<void> {
  const db = new Database(side.dbPath, { readonly: true, fileMustExist: true });
  try {
    const queued = db.prepare('SELECT count(*) AS n FROM transactions_search_queue');
    for (let waited = 0; (queued.get() as { n: number }).n > 0; waited += 100) {
      if (waited > 300_000) throw new Error(`${side.label}: the search index did not catch up in 5 minutes`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    db.close();
  }
}

/** The instructions a dump counted: all, and those in V8's compilers' own functions. */
function readDump(file: string): { total: number; compiler: number } {
  const text = readFileSync(file, 'utf8');
  const totals = /^(?:totals|summary): (\d+)/m.exec(text);
  if (!totals) throw new Error(`no totals in ${file}`);
  const total = Number(totals[1]);
  if (!(total > 0)) throw new Error(`${file} counted no instructions: was counting switched on?`);
  const annotated = execFileSync(
    'callgrind_annotate',
    ['--inclusive=no', '--threshold=100', '--show-percs=yes', '--auto=no', file],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const line = /^\s*([\d,]+)(?:\s+\([^)]*\))?\s+(.*)$/;
  const count = (m: RegExpExecArray) => Number((m[1] as string).replaceAll(',', ''));
  let compiler = 0;
  let programTotal: number | undefined;
  for (const l of annotated.split('\n')) {
    const m = line.exec(l);
    if (!m) continue;
    if ((m[2] as string).startsWith('PROGRAM TOTALS')) programTotal = count(m);
    else if (COMPILER.test(m[2] as string)) compiler += count(m);
  }
  if (programTotal !== total) throw new Error(`callgrind_annotate did not read ${file} as expected`);
  return { total, compiler };
}

async function window(side: Side, m: Measured, o: Options): Promise<void> {
  // A token lives 15 minutes; a run can last longer. Taken before the window, not counted.
  side.caller = await authenticate(side.baseUrl, side.caller);
  await send(side, m, PREWARM, o.inFlight);
  await searchCaughtUp(side);
  monitor(side, 'zero');
  await send(side, m, o.requests, o.inFlight);
  await searchCaughtUp(side);
  const before = new Set(readdirSync(side.dumps));
  monitor(side, 'dump');
  const numbered = new RegExp(`^callgrind\\.out\\.${side.pid}\\.\\d+$`);
  const file = readdirSync(side.dumps).find((f) => !before.has(f) && numbered.test(f));
  if (!file) throw new Error(`${side.label}: callgrind wrote no dump`);
  const { total, compiler } = readDump(join(side.dumps, file));
  const list = side.counts.get(m.name) ?? [];
  list.push({ total: total / o.requests, withoutCompiler: (total - compiler) / o.requests });
  side.counts.set(m.name, list);
  if (o.keepDumps) {
    mkdirSync(o.keepDumps, { recursive: true });
    const name = `${side.label}-${m.name}-${list.length}`.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
    copyFileSync(join(side.dumps, file), join(o.keepDumps, `callgrind.${name}.out`));
  }
  rmSync(join(side.dumps, file));
  process.stderr.write(`  ${side.label}, ${m.name}: ${fmt(total / o.requests)} instructions per request\n`);
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Refuses a ref these files cannot run on, before anything starts. */
function checkBaseRef(root: string, ref: string): void {
  try {
    git(root, 'rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`--base ${ref} names no commit here`);
  }
  try {
    git(root, 'cat-file', '-e', `${ref}:${SEARCH_MIGRATION}`);
  } catch {
    throw new Error(`${ref} has no search queue (${SEARCH_MIGRATION}): the base must be a ref from 5562d6f on`);
  }
  const kit = git(root, 'show', `${ref}:packages/gateway/bench/bench-kit.ts`);
  const missing = BENCH_KIT_NAMES.filter(
    (n) => !new RegExp(`export (async )?(function|const|class) ${n}\\b`).test(kit),
  );
  if (missing.length > 0) throw new Error(`${ref}'s bench/bench-kit.ts does not export ${missing.join(', ')}`);
}

/** A worktree of `ref` beside this checkout, resolving its own @snapgate/snap; removed by `remove`. */
function checkoutBase(ref: string): { gatewayDir: string; remove: () => void } {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = git(here, 'rev-parse', '--show-toplevel').trim();
  checkBaseRef(root, ref);
  const gatewayPath = relative(root, resolve(here, '..'));
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-base-'));
  const tree = join(dir, 'tree');
  let isRemoved = false;
  const remove = () => {
    if (isRemoved) return;
    isRemoved = true;
    try {
      git(root, 'worktree', 'remove', '--force', tree);
    } catch {
      // Not added, or already gone: the folder goes below and prune forgets it.
    }
    rmSync(dir, { recursive: true, force: true });
    try {
      git(root, 'worktree', 'prune');
    } catch {
      // nothing to forget
    }
  };
  // Ctrl-C (stopOwnedOnSignals exits the process) or an error: the worktree goes too.
  process.once('exit', remove);
  try {
    git(root, 'worktree', 'add', '--detach', tree, ref);
    symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
    // The linked node_modules points @snapgate/snap at this checkout's package: the ref's own goes first.
    const gatewayDir = join(tree, gatewayPath);
    mkdirSync(join(gatewayDir, 'node_modules', '@snapgate'), { recursive: true });
    symlinkSync(join(tree, 'packages', 'snap'), join(gatewayDir, 'node_modules', '@snapgate', 'snap'));
    buildSnap(join(tree, 'packages', 'snap'));
    // This file and what it shares with bench:payments, over the ref's copies if it has them.
    for (const f of ['instructions.ts', 'payment-requests.ts']) {
      copyFileSync(join(here, f), join(gatewayDir, 'bench', f));
    }
    return { gatewayDir, remove };
  } catch (e) {
    remove();
    throw e;
  }
}

/** Builds @snapgate/snap's dist (the gateway imports the build, not the source). */
function buildSnap(snapDir: string): void {
  execFileSync('npm', ['run', 'build'], { cwd: snapDir, stdio: ['ignore', 'pipe', 'pipe'] });
}

function report(sides: Side[], measured: Measured[], o: Options): string {
  const k = (n: number) => fmt(n / 1000);
  const rows: string[][] = [];
  for (const m of measured) {
    for (const side of sides) {
      const list = side.counts.get(m.name) ?? [];
      rows.push([
        m.name,
        side.label,
        list.map((c) => k(c.total)).join(' · '),
        k(median(list.map((c) => c.total))),
        list.map((c) => k(c.withoutCompiler)).join(' · '),
        k(median(list.map((c) => c.withoutCompiler))),
      ]);
    }
  }
  const lines = [
    `Instructions per request (callgrind), ${fmt(o.requests)} requests per window, ${o.inFlight} in flight; thousands`,
    `Node ${process.version}; the gateway's whole process in user space: every thread, SQLite included, the kernel's share not`,
    '',
    table(['operation', 'code', 'each window', 'median', 'without compilers', 'median'], rows),
  ];
  const [here, base] = sides;
  if (here && base) {
    lines.push('', 'this ÷ base (medians):');
    for (const m of measured) {
      const a = here.counts.get(m.name) ?? [];
      const b = base.counts.get(m.name) ?? [];
      const ratio = (f: (c: { total: number; withoutCompiler: number }) => number) =>
        (median(a.map(f)) / median(b.map(f))).toFixed(3);
      lines.push(
        `  ${m.name.padEnd(16)} ${ratio((c) => c.total)} all, ${ratio((c) => c.withoutCompiler)} without compilers`,
      );
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('it runs the gateway under valgrind: install it first (Debian: apt-get install valgrind)');
  }
  const measured = MEASURED.filter((m) => !o.only || m.name.toLowerCase().includes(o.only.toLowerCase()));
  if (measured.length === 0) throw new TypeError(`--only ${o.only} names no operation`);
  stopOwnedOnSignals(NAME);
  const here = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  // Both sides measure built code: this checkout's @snapgate/snap as its source stands now.
  buildSnap(resolve(here, '..', 'snap'));
  const base = o.base ? checkoutBase(o.base) : undefined;
  const sides: Side[] = [];
  try {
    process.stderr.write('starting the gateway under valgrind (a minute or two)…\n');
    sides.push(await startSide('this checkout', here));
    if (base && o.base) sides.push(await startSide(o.base, base.gatewayDir));
    process.stderr.write('warming up…\n');
    // Warm-up, uninstrumented: every operation, interleaved, until V8 has compiled the hot paths.
    for (const side of sides) {
      for (let i = 0; i < WARMUP_PER_OPERATION / 100; i++) {
        for (const m of MEASURED) await send(side, m, 100, o.inFlight);
      }
      await searchCaughtUp(side);
      monitor(side, 'instrumentation', 'on');
    }
    // One window's worth of each operation, counted but not kept: without it, the first window ran
    // 10–130 % over the next ones (V8 still settling), on both sides alike.
    for (const m of measured) {
      for (const side of sides) {
        side.caller = await authenticate(side.baseUrl, side.caller);
        await send(side, m, o.requests, o.inFlight);
      }
    }
    for (let w = 1; w <= o.windows; w++) {
      process.stderr.write(`window ${w} of ${o.windows}\n`);
      for (const m of measured) for (const side of sides) await window(side, m, o);
    }
    process.stdout.write(`${report(sides, measured, o)}\n`);
  } finally {
    await Promise.allSettled(sides.map(stopSide));
    base?.remove();
  }
}

if (servedKind() !== undefined) {
  await runChild();
} else {
  await main().catch((e: Error) => {
    process.stderr.write(`${NAME}: ${e.message}\n`);
    process.exitCode = 1;
  });
}

// Instructions per request: the B2B token, QRIS generate and VA create of a gateway running under
// valgrind's callgrind, counted over windows of requests. Wall-clock figures on a shared machine
// move 20–50 % between runs minutes apart; instruction counts of the same code and inputs move a few
// per cent, so a change of that size shows here and nowhere else. Counts are not time (a cache
// miss or a system call's wait counts nothing), so a change is judged on both.
//
//   npm run bench:instructions                                  # this checkout; 3 windows of 1,000 per operation
//   npm run bench:instructions -- --base HEAD~1                 # also the code of a git ref, window by window
//   npm run bench:instructions -- --only token --requests 1000 --windows 5
//   npm run bench:instructions -- --in-flight 8                 # 8 requests at a time instead of 1
//   npm run bench:instructions -- --keep-dumps /tmp/cg          # keep each window's dump, for callgrind_annotate
//
// Each gateway is a child process (this file with `--serve gateway`) under
// `valgrind --tool=callgrind --instr-atstart=no`, so its start and the warm-up run at valgrind's
// uninstrumented speed; a settling window of each operation follows, counted and thrown away.
// Then, per window: a pre-warm of the operation, the search index caught up,
// `callgrind_control --zero`, the window's requests, the search index caught up again (each
// window indexes its own transactions), `callgrind_control --dump`; the dump's total is divided by
// the requests. The share of V8's optimizing compilers (Turbofan, Maglev, Sparkplug) is shown apart:
// when V8 recompiles inside a window, that share jumps and says more about V8 than about the code.
//
// `--base <ref>` checks the ref out in a temporary git worktree (its node_modules linked to this
// checkout's, its @snapgate/snap built from its own source) and runs this same file there, with
// that ref's bench-kit.ts, so a ref from before this file existed works. Both gateways stay up and
// the windows alternate between them. A run takes minutes (valgrind runs node 20–50 times slower).
// Not a test: nothing asserts a count.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import type { SnapCaller } from '../test/helpers/snap.ts';
import { fmt, serveBenchGateway, servedKind, table } from './bench-kit.ts';
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
/** V8's optimizing and baseline compilers, by the C++ namespaces callgrind names their functions with. */
const COMPILER = /v8::internal::(compiler|maglev|baseline)::/;
const READY_PREFIX = 'snapgate-bench-ready ';

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

function parseArgs(argv: string[]): Options {
  const o: Options = {
    requests: DEFAULT_REQUESTS,
    windows: DEFAULT_WINDOWS,
    inFlight: 1,
    base: undefined,
    only: undefined,
    keepDumps: undefined,
  };
  const whole = (name: string, v: string | undefined, max: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > max) throw new TypeError(`${name} takes a whole number, 1 to ${max}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--requests') o.requests = whole(arg, argv[++i], 100_000);
    else if (arg === '--windows') o.windows = whole(arg, argv[++i], 100);
    else if (arg === '--in-flight') o.inFlight = whole(arg, argv[++i], 256);
    else if (arg === '--base') o.base = argv[++i];
    else if (arg === '--only') o.only = argv[++i];
    else if (arg === '--keep-dumps') o.keepDumps = argv[++i];
    else throw new TypeError(`unknown option ${arg}`);
  }
  if (o.base === '' || o.base?.startsWith('-')) throw new TypeError('--base takes a git ref');
  if (o.keepDumps === '' || o.keepDumps?.startsWith('-')) throw new TypeError('--keep-dumps takes a folder');
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
  child: ChildProcess;
  exited: Promise<void>;
  dumps: string;
  baseUrl: string;
  dbPath: string;
  caller: SnapCaller;
  pool: Pool;
  /** Per operation, per window: instructions per request, all and without the compilers. */
  counts: Map<string, Array<{ total: number; withoutCompiler: number }>>;
}

function callgrindControl(pid: number, ...args: string[]): void {
  // It waits until the process has acted on the command (at its next timeslice: the gateway's
  // one-second search timer wakes it when idle).
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore', timeout: 120_000 });
}

async function startSide(label: string, gatewayDir: string): Promise<Side> {
  const dumps = mkdtempSync(join(tmpdir(), 'snapgate-callgrind-'));
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      // V8 writes and rewrites machine code on the heap: valgrind must look for that everywhere.
      '--smc-check=all-non-file',
      `--callgrind-out-file=${join(dumps, 'callgrind.out.%p')}`,
      process.execPath,
      // A heap that shrinks when idle would make the windows differ in GC work.
      '--no-memory-reducer',
      ...process.execArgv,
      join(gatewayDir, 'bench', 'instructions.ts'),
      '--serve',
      'gateway',
    ],
    { cwd: gatewayDir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let output = '';
  const ready = await new Promise<{ port: number; dbPath: string; adminToken: string }>((done, fail) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const line = output.split('\n').find((l) => l.startsWith(READY_PREFIX));
      if (line)
        done(JSON.parse(line.slice(READY_PREFIX.length)) as { port: number; dbPath: string; adminToken: string });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) =>
      fail(new Error(`${label}: the gateway exited (${code}) before listening:\n${output}`)),
    );
  });
  const baseUrl = `http://127.0.0.1:${ready.port}`;
  let caller: SnapCaller;
  try {
    await registerBenchBank(baseUrl, ready.adminToken);
    caller = await merchantCaller(baseUrl, ready.adminToken);
  } catch (e) {
    child.kill('SIGKILL');
    await exited;
    rmSync(dumps, { recursive: true, force: true });
    throw e;
  }
  return {
    label,
    child,
    exited,
    dumps,
    baseUrl,
    dbPath: ready.dbPath,
    caller,
    pool: new Pool(baseUrl, { connections: 256 }),
    counts: new Map(),
  };
}

async function stopSide(side: Side): Promise<void> {
  await side.pool.close();
  if (side.child.exitCode === null && side.child.signalCode === null) side.child.kill('SIGTERM');
  const t = setTimeout(() => side.child.kill('SIGKILL'), 60_000);
  await side.exited;
  clearTimeout(t);
  rmSync(side.dumps, { recursive: true, force: true });
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

/** The instructions a dump counted: all, and those of V8's compilers. */
function readDump(file: string): { total: number; compiler: number } {
  const text = readFileSync(file, 'utf8');
  const totals = /^(?:totals|summary): (\d+)/m.exec(text);
  if (!totals) throw new Error(`no totals in ${file}`);
  const annotated = execFileSync('callgrind_annotate', ['--inclusive=no', '--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  let compiler = 0;
  for (const line of annotated.split('\n')) {
    const m = /^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$/.exec(line);
    if (m && COMPILER.test(m[2] as string)) compiler += Number((m[1] as string).replaceAll(',', ''));
  }
  return { total: Number(totals[1]), compiler };
}

async function window(side: Side, m: Measured, o: Options): Promise<void> {
  await send(side, m, PREWARM, o.inFlight);
  await searchCaughtUp(side);
  const pid = side.child.pid as number;
  callgrindControl(pid, '--zero');
  await send(side, m, o.requests, o.inFlight);
  await searchCaughtUp(side);
  const before = new Set(readdirSync(side.dumps));
  callgrindControl(pid, '--dump');
  const file = readdirSync(side.dumps).find((f) => !before.has(f) && !f.endsWith(`.${pid}`));
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

/** A worktree of `ref` beside this checkout, resolving its own @snapgate/snap; removed by the returned function. */
function checkoutBase(ref: string): { gatewayDir: string; remove: () => void } {
  const here = dirname(fileURLToPath(import.meta.url));
  const gatewayHere = resolve(here, '..');
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: here, encoding: 'utf8' }).trim();
  const gatewayPath = relative(root, gatewayHere);
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-base-'));
  const tree = join(dir, 'tree');
  execFileSync('git', ['worktree', 'add', '--detach', tree, ref], { cwd: root, stdio: 'ignore' });
  const remove = () => {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: root, stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
    // The linked node_modules points @snapgate/snap at this checkout's package: the ref's own goes first.
    const gatewayDir = join(tree, gatewayPath);
    mkdirSync(join(gatewayDir, 'node_modules', '@snapgate'), { recursive: true });
    symlinkSync(join(tree, 'packages', 'snap'), join(gatewayDir, 'node_modules', '@snapgate', 'snap'));
    execFileSync('npm', ['run', 'build'], { cwd: join(tree, 'packages', 'snap'), stdio: 'ignore' });
    // This file and what it shares with bench:payments, over the ref's copies if it has them.
    for (const f of ['instructions.ts', 'payment-requests.ts'])
      copyFileSync(join(here, f), join(gatewayDir, 'bench', f));
    if (!existsSync(join(gatewayDir, 'bench', 'bench-kit.ts'))) throw new Error(`${ref} has no bench/bench-kit.ts`);
    return { gatewayDir, remove };
  } catch (e) {
    remove();
    throw e;
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

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
    `Node ${process.version}; the gateway's whole process (its threads, SQLite and the kernel's share excluded)`,
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
    throw new Error(
      'bench:instructions runs the gateway under valgrind: install it first (Debian: apt-get install valgrind)',
    );
  }
  const measured = MEASURED.filter((m) => !o.only || m.name.toLowerCase().includes(o.only.toLowerCase()));
  if (measured.length === 0) throw new TypeError(`--only ${o.only} names no operation`);
  const base = o.base ? checkoutBase(o.base) : undefined;
  const sides: Side[] = [];
  try {
    process.stderr.write('starting the gateway under valgrind (a minute or two)…\n');
    sides.push(await startSide('this checkout', resolve(dirname(fileURLToPath(import.meta.url)), '..')));
    if (base && o.base) sides.push(await startSide(o.base, base.gatewayDir));
    process.stderr.write('warming up…\n');
    // Warm-up, uninstrumented: every operation, interleaved, until V8 has compiled the hot paths.
    for (const side of sides) {
      for (let i = 0; i < WARMUP_PER_OPERATION / 100; i++) {
        for (const m of MEASURED) await send(side, m, 100, o.inFlight);
      }
      await searchCaughtUp(side);
      callgrindControl(side.child.pid as number, '--instr=on');
    }
    // One window's worth of each operation, counted but not kept: the first window after counting is
    // switched on ran 10–130 % over the next ones (V8 still settling), on both sides alike.
    for (const m of measured) for (const side of sides) await send(side, m, o.requests, o.inFlight);
    for (let w = 1; w <= o.windows; w++) {
      process.stderr.write(`window ${w} of ${o.windows}\n`);
      for (const m of measured) for (const side of sides) await window(side, m, o);
    }
    process.stdout.write(`${report(sides, measured, o)}\n`);
  } finally {
    await Promise.all(sides.map(stopSide));
    base?.remove();
  }
}

if (servedKind() !== undefined) {
  await runChild();
} else {
  await main();
}

// deploy/: the production build, the systemd unit, the container image definition and the
// environment file they share, checked against each other and against the gateway itself.
//
// - The build (`npm run build`) is run for real, and the compiled gateway it makes is started as
//   a real process on a free port with a temporary SQLite file, in production mode, with the
//   settings of deploy/snapgate.env.example; it must answer /readyz, satisfy the container's
//   health check, and exit 0 on SIGTERM. The CLI (bin/snapgate.js) is run from an install that
//   has only the gateway's production dependencies (no tsx): it runs the compiled dist/cli/main.js.
// - The unit is checked by `systemd-analyze verify` (and `security --offline`), part of Debian's
//   systemd package: under CI its absence fails the test rather than skipping it. A parser check
//   of its sections, keys and values runs everywhere.
// - The image is not built by the tests: the machines they run on (CI's included) have a docker
//   client but no container engine, and none can be installed there; hadolint is neither a
//   Debian nor an npm package. hadolint runs when it is on PATH; structural checks of the
//   Dockerfile always run (pinned Node 20 base images, a non-root user, the health check, no
//   secrets).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { GATEWAY_ROOT } from '../helpers/process.ts';
import { waitFor } from '../helpers/receiver.ts';

const REPO = resolve(GATEWAY_ROOT, '../..');
const DEPLOY = join(REPO, 'deploy');
const UNIT_FILE = join(DEPLOY, 'snapgate.service');
const DOCKERFILE = join(DEPLOY, 'Dockerfile');
const ENV_EXAMPLE = join(DEPLOY, 'snapgate.env.example');
const HEALTHCHECK = join(DEPLOY, 'healthcheck.mjs');
/** The gateway's start-up after the build, relative to the repository (and to an install root). */
const COMPILED_MAIN = 'packages/gateway/dist/main.js';
const IN_CI = Boolean(process.env.CI);

/** This environment, without the test runner's own marker (npm and tsc run as they would by hand). */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'NODE_TEST_CONTEXT') env[k] = v;
  return env;
}

function onPath(tool: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, tool))) return join(dir, tool);
  }
  return undefined;
}

/**
 * An install of the built gateway as `npm prune --omit=dev` leaves it: its package.json, bin/ and
 * dist/ copied under `root`, and a node_modules holding only its `dependencies` (linked to this
 * checkout's), so that tsx and every other development dependency cannot be found from there.
 */
function productionInstall(root: string): string {
  const gateway = join(root, 'packages/gateway');
  for (const part of ['package.json', 'bin', 'dist'])
    cpSync(join(GATEWAY_ROOT, part), join(gateway, part), { recursive: true });
  const manifest = JSON.parse(readFileSync(join(GATEWAY_ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies)) {
    const link = join(root, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', name), link);
  }
  return join(gateway, 'bin/snapgate.js');
}

// --- the environment file -----------------------------------------------------------------------

/** KEY=value lines; `# KEY=value` lines are the commented-out alternatives. */
function parseEnvFile(text: string): { set: Map<string, string>; commented: Map<string, string> } {
  const set = new Map<string, string>();
  const commented = new Map<string, string>();
  for (const line of text.split('\n')) {
    const active = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (active) {
      assert.ok(!set.has(active[1] as string), `${active[1]} is set once`);
      set.set(active[1] as string, active[2] as string);
      continue;
    }
    const alternative = /^#\s*([A-Z][A-Z0-9_]*)=(\S*)$/.exec(line);
    if (alternative) commented.set(alternative[1] as string, alternative[2] as string);
    else
      assert.ok(line === '' || line.startsWith('#'), `a setting, a comment or a blank line: ${JSON.stringify(line)}`);
  }
  return { set, commented };
}

const envExample = parseEnvFile(readFileSync(ENV_EXAMPLE, 'utf8'));

/** The example's settings with each <placeholder> filled, for a gateway on this machine. */
function filledExample(overrides: Record<string, string | undefined>): Record<string, string> {
  const fill: Record<string, string> = {
    SNAPGATE_MASTER_KEY: Buffer.alloc(32, 5).toString('base64'),
    SNAPGATE_ADMIN_TOKEN: 'deploy-test-admin-token-0123456789',
    SNAPGATE_DATABASE_URL: 'postgres://snapgate:pw@db.internal:5432/snapgate',
    SNAPGATE_PUBLIC_URL: 'https://pay.example.test',
    SNAPGATE_HOST: '127.0.0.1',
    SNAPGATE_TRUST_PROXY: '127.0.0.1',
    SNAPGATE_METRICS_HOST: '127.0.0.1',
  };
  const env: Record<string, string> = {};
  for (const [k, v] of envExample.set) {
    env[k] = v.includes('<') ? (fill[k] ?? assert.fail(`no filling for the placeholder of ${k}`)) : v;
  }
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

describe('deploy/snapgate.env.example', () => {
  it('names only settings the gateway reads, and every placeholder is marked <...>', () => {
    const known = new Set(
      [...readFileSync(join(GATEWAY_ROOT, 'src/config.ts'), 'utf8').matchAll(/^\s+(SNAPGATE_[A-Z0-9_]+):/gm)].map(
        (m) => m[1],
      ),
    );
    assert.ok(known.has('SNAPGATE_MODE'), 'config.ts lists its settings');
    const named = [...envExample.set.keys(), ...envExample.commented.keys()];
    assert.deepEqual(
      named.filter((k) => !known.has(k)),
      [],
    );
    assert.equal(envExample.set.get('SNAPGATE_MODE'), 'production');
    for (const secret of ['SNAPGATE_MASTER_KEY', 'SNAPGATE_ADMIN_TOKEN', 'SNAPGATE_DATABASE_URL']) {
      assert.match(envExample.set.get(secret) ?? '', /<[^>]+>/, `${secret} is a placeholder, not a value`);
    }
  });

  it('is a valid production configuration once its placeholders are filled', () => {
    const config = loadConfig(filledExample({}));
    assert.equal(config.mode, 'production');
    assert.equal(config.publicUrlSet, true);
    assert.ok(config.databaseUrl?.startsWith('postgres://'));
    assert.ok(config.metricsPort !== undefined, 'metrics on a port of their own');
  });

  it('refuses the secrets, the public URL and the proxy left as placeholders, naming each', () => {
    for (const key of ['SNAPGATE_MASTER_KEY', 'SNAPGATE_ADMIN_TOKEN', 'SNAPGATE_PUBLIC_URL', 'SNAPGATE_TRUST_PROXY']) {
      const placeholder = envExample.set.get(key) ?? assert.fail(`${key} is in the example`);
      assert.throws(
        () => loadConfig(filledExample({ [key]: placeholder })),
        (e: Error) => e instanceof ConfigError && e.message.includes(key),
        `${key}=${placeholder} is refused`,
      );
    }
  });

  it('stops start-up with a placeholder left in (exit code 2 names the setting)', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: GATEWAY_ROOT,
      env: { PATH: process.env.PATH ?? '', ...Object.fromEntries(envExample.set) },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /SNAPGATE_MASTER_KEY/);
  });
});

// --- the build and the compiled gateway ----------------------------------------------------------

describe('npm run build: the compiled gateway', { timeout: 300_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-deploy-'));
  /** A symlink to this repository, standing for /opt/snapgate → a release folder. */
  const installRoot = join(dir, 'snapgate');
  let child: ChildProcess | undefined;
  after(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    // The link first, on its own: nothing below it is ever removed.
    if (lstatSync(installRoot, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(installRoot);
    rmSync(dir, { recursive: true, force: true });
  });

  /** bin/snapgate.js of an install with the production dependencies only (productionInstall). */
  let productionCli = '';
  /** Runs that CLI with nothing of this environment but PATH. */
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, [productionCli, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      encoding: 'utf8',
      timeout: 60_000,
    });

  before(() => {
    const r = spawnSync('npm', ['run', 'build'], { cwd: GATEWAY_ROOT, env: childEnv(), encoding: 'utf8' });
    assert.equal(r.status, 0, `npm run build failed:\n${r.stdout}\n${r.stderr}`);
    productionCli = productionInstall(join(dir, 'production'));
  });

  it('the CLI runs compiled where tsx is not installed', () => {
    const tsx = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('tsx/esm/api')"], {
      cwd: dirname(productionCli),
      encoding: 'utf8',
    });
    assert.notEqual(tsx.status, 0, 'tsx cannot be found from the production install');
    assert.match(tsx.stderr, /Cannot find package 'tsx'/);
    const manifest = JSON.parse(readFileSync(join(GATEWAY_ROOT, 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies.tsx, undefined, 'tsx is a development dependency only');

    const version = cli('--version');
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), manifest.version);
    const usage = cli();
    assert.equal(usage.status, 2, usage.stderr);
    assert.match(usage.stdout, /usage: snapgate/);
  });

  it('the CLI says what to do when neither tsx nor the build is there', () => {
    const bare = join(dir, 'unbuilt/packages/gateway/bin');
    mkdirSync(bare, { recursive: true });
    cpSync(join(GATEWAY_ROOT, 'bin/snapgate.js'), join(bare, 'snapgate.js'));
    const r = spawnSync(process.execPath, [join(bare, 'snapgate.js'), '--version'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /the CLI is not built and tsx is not installed: run `npm run build -w @snapgate\/gateway`/);
  });

  it('compiles src/ into dist/ with the migrations beside it', () => {
    assert.ok(existsSync(join(REPO, COMPILED_MAIN)));
    const sql = (d: string) => readdirSync(d).filter((f) => f.endsWith('.sql'));
    const migrations = sql(join(GATEWAY_ROOT, 'src/store/migrations'));
    assert.ok(migrations.length > 0);
    assert.deepEqual(sql(join(GATEWAY_ROOT, 'dist/store/migrations')), migrations);
    assert.deepEqual(
      readdirSync(join(GATEWAY_ROOT, 'dist'), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.ts')),
      [],
      'no TypeScript is left to run',
    );
  });

  it('starts in production mode, answers /readyz, satisfies the health check and drains on SIGTERM', async () => {
    const env = filledExample({
      SNAPGATE_DATABASE_URL: undefined,
      SNAPGATE_DB: join(dir, 'snapgate.db'),
      SNAPGATE_PORT: '0',
      SNAPGATE_METRICS_PORT: undefined,
      SNAPGATE_LOG_LEVEL: 'info',
    });
    // From packages/gateway, reached through a symlinked install root (/opt/snapgate → a release
    // folder), the script named by its path through the link: the gateway still knows it is the one run.
    symlinkSync(REPO, installRoot);
    const gateway = spawn(process.execPath, [join(installRoot, 'packages/gateway/dist/main.js')], {
      cwd: join(installRoot, 'packages/gateway'),
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = gateway;
    let out = '';
    let err = '';
    gateway.stdout?.on('data', (c) => {
      out += String(c);
    });
    gateway.stderr?.on('data', (c) => {
      err += String(c);
    });
    const exited = new Promise<number | null>((r) => gateway.on('exit', (code) => r(code)));

    const url = await waitFor(
      'the gateway to print its address',
      () => {
        assert.equal(gateway.exitCode, null, `the compiled gateway exited:\n${out}\n${err}`);
        return /production gateway on (http:\/\/\S+)/.exec(out)?.[1];
      },
      30_000,
    );
    const ready = await waitFor('/readyz to answer 200', async () => {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      return res?.status === 200 ? ((await res.json()) as { status: string; store: string }) : undefined;
    });
    assert.equal(ready.status, 'ready');
    assert.equal(ready.store, 'sqlite');
    assert.doesNotMatch(out, /admin token \(shown once\)/, 'SNAPGATE_ADMIN_TOKEN set: no token is printed');

    const port = new URL(url).port;
    const healthcheck = (p: string) =>
      spawnSync(process.execPath, [HEALTHCHECK], {
        env: { PATH: process.env.PATH ?? '', SNAPGATE_HOST: '0.0.0.0', SNAPGATE_PORT: p },
        encoding: 'utf8',
        timeout: 30_000,
      });
    const healthy = healthcheck(port);
    assert.equal(healthy.status, 0, healthy.stderr);

    // The compiled CLI, from the install without development dependencies, asks this gateway.
    const listed = cli('merchant', 'list', '--json', '--url', url, '--admin-token', env.SNAPGATE_ADMIN_TOKEN as string);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).items, []);

    gateway.kill('SIGTERM');
    assert.equal(await exited, 0, `exit code after SIGTERM:\n${out}\n${err}`);
    assert.match(out, /"signal":"SIGTERM","msg":"shutting down"/);
    const down = healthcheck(port);
    assert.equal(down.status, 1, 'the health check fails once the gateway is gone');
    assert.match(down.stderr, /snapgate healthcheck: .*ECONNREFUSED/);
  });
});

// --- the systemd unit --------------------------------------------------------------------------

/** A unit file's sections, each a list of [key, value] in order; anything else is an error. */
function parseUnit(text: string): Map<string, [string, string][]> {
  const sections = new Map<string, [string, string][]>();
  let current: [string, string][] | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    assert.ok(!line.endsWith('\\'), `line ${i + 1}: no continuation lines`);
    const section = /^\[([A-Za-z]+)\]$/.exec(line);
    if (section) {
      assert.ok(!sections.has(section[1] as string), `line ${i + 1}: [${section[1]}] once`);
      current = [];
      sections.set(section[1] as string, current);
      continue;
    }
    const entry = /^([A-Za-z]+)=(.*)$/.exec(line);
    assert.ok(entry, `line ${i + 1} is Key=value: ${JSON.stringify(line)}`);
    assert.ok(current, `line ${i + 1} is inside a section`);
    current.push([entry[1] as string, entry[2] as string]);
  }
  return sections;
}

/** The directives this unit may use, per section: a misspelt key is caught even without systemd. */
const UNIT_KEYS: Record<string, string[]> = {
  Unit: [
    'Description',
    'Documentation',
    'Wants',
    'Requires',
    'After',
    'Before',
    'StartLimitIntervalSec',
    'StartLimitBurst',
  ],
  Service: [
    'Type',
    'User',
    'Group',
    'WorkingDirectory',
    'EnvironmentFile',
    'Environment',
    'ExecStart',
    'ExecReload',
    'Restart',
    'RestartSec',
    'RestartPreventExitStatus',
    'KillSignal',
    'KillMode',
    'TimeoutStopSec',
    'TimeoutStartSec',
    'LimitNOFILE',
    'StateDirectory',
    'StateDirectoryMode',
    'ReadWritePaths',
    'UMask',
    'NoNewPrivileges',
    'ProtectSystem',
    'ProtectHome',
    'PrivateTmp',
    'PrivateDevices',
    'ProtectKernelTunables',
    'ProtectKernelModules',
    'ProtectKernelLogs',
    'ProtectControlGroups',
    'ProtectClock',
    'ProtectHostname',
    'ProtectProc',
    'RestrictNamespaces',
    'RestrictRealtime',
    'RestrictSUIDSGID',
    'RemoveIPC',
    'LockPersonality',
    'CapabilityBoundingSet',
    'AmbientCapabilities',
    'RestrictAddressFamilies',
    'SystemCallArchitectures',
    'SystemCallFilter',
    'SystemCallErrorNumber',
  ],
  Install: ['WantedBy'],
};

/** A systemd time span (`30s`, `1min 30s`, `90`) in seconds. */
function seconds(span: string): number {
  const units: Record<string, number> = { '': 1, s: 1, sec: 1, m: 60, min: 60, h: 3600 };
  let total = 0;
  for (const part of span.trim().split(/\s+/)) {
    const m = /^(\d+)(s|sec|m|min|h)?$/.exec(part);
    assert.ok(m, `a time span: ${span}`);
    total += Number(m[1]) * (units[m[2] ?? ''] as number);
  }
  return total;
}

describe('deploy/snapgate.service', () => {
  const unit = parseUnit(readFileSync(UNIT_FILE, 'utf8'));
  const service = unit.get('Service') ?? [];
  const one = (key: string): string => {
    const values = service.filter(([k]) => k === key).map(([, v]) => v);
    assert.equal(values.length, 1, `[Service] sets ${key} once`);
    return values[0] as string;
  };
  const all = (key: string) => service.filter(([k]) => k === key).map(([, v]) => v);

  it('has [Unit], [Service] and [Install], with known keys only', () => {
    assert.deepEqual([...unit.keys()], ['Unit', 'Service', 'Install']);
    for (const [name, entries] of unit) {
      const allowed = UNIT_KEYS[name] ?? [];
      assert.deepEqual(
        entries.map(([k]) => k).filter((k) => !allowed.includes(k)),
        [],
        `[${name}] keys`,
      );
    }
    assert.deepEqual(
      unit.get('Install')?.find(([k]) => k === 'WantedBy'),
      ['WantedBy', 'multi-user.target'],
    );
  });

  it('runs the compiled gateway of this repository as its own user, from the environment file', () => {
    assert.equal(one('Type'), 'simple');
    assert.equal(one('User'), 'snapgate');
    assert.equal(one('Group'), 'snapgate');
    assert.equal(one('EnvironmentFile'), '/etc/snapgate/snapgate.env');
    const workdir = one('WorkingDirectory');
    assert.ok(workdir.endsWith('/packages/gateway'), workdir);
    const installRoot = posix.dirname(posix.dirname(workdir));
    const [node, script, ...rest] = one('ExecStart').split(/\s+/);
    assert.deepEqual(rest, []);
    assert.match(node ?? '', /^\/\S+\/node$/, 'an absolute path to node');
    // Relative to WorkingDirectory, so the unit follows the install root wherever it points.
    assert.ok(!posix.isAbsolute(script as string), `${script} is relative to WorkingDirectory`);
    assert.equal(posix.relative(installRoot, posix.join(workdir, script as string)), COMPILED_MAIN);
    // src/main.ts compiles to dist/main.js: rootDir src, outDir dist.
    const build = readFileSync(join(GATEWAY_ROOT, 'tsconfig.build.json'), 'utf8');
    assert.match(build, /"rootDir":\s*"src"/);
    assert.match(build, /"outDir":\s*"dist"/);
    assert.ok(existsSync(join(GATEWAY_ROOT, 'src/main.ts')));
    assert.match(one('ExecReload'), /^\/bin\/kill -HUP \$MAINPID$/);
  });

  it('restarts on failure, waits out the SIGTERM drain and allows more files than connections', () => {
    assert.equal(one('Restart'), 'on-failure');
    assert.equal(one('RestartPreventExitStatus'), '2', 'invalid settings are not retried');
    assert.equal(one('KillSignal'), 'SIGTERM');
    // main.ts on SIGTERM: callbacks in flight get min(SNAPGATE_CALLBACK_TIMEOUT_MS, 10 s), then the
    // requests in progress finish and the database closes.
    assert.ok(seconds(one('TimeoutStopSec')) >= 20, 'TimeoutStopSec covers the 10 s callback drain and more');
    assert.ok(Number(one('LimitNOFILE')) > 1024, 'above SNAPGATE_MAX_CONNECTIONS (1024)');
  });

  it('is hardened, with the data folder the only place it writes', () => {
    assert.equal(one('NoNewPrivileges'), 'yes');
    assert.equal(one('ProtectSystem'), 'strict');
    assert.equal(one('PrivateTmp'), 'yes');
    assert.equal(one('CapabilityBoundingSet'), '');
    // V8's JIT writes executable memory: this option would crash Node.
    assert.deepEqual(all('MemoryDenyWriteExecute'), []);
    const dataDir = posix.dirname(
      envExample.commented.get('SNAPGATE_DB') ?? assert.fail('a SQLite path in the example'),
    );
    assert.deepEqual(all('ReadWritePaths'), [dataDir]);
    assert.equal(`/var/lib/${one('StateDirectory')}`, dataDir);
    assert.equal(one('StateDirectoryMode'), '0700');
  });

  const analyze = onPath('systemd-analyze');
  it('systemd-analyze verify accepts it without a warning; security --offline rates it OK', {
    skip: !analyze && !IN_CI ? 'systemd-analyze is not installed (the parser checks above ran)' : false,
  }, () => {
    assert.ok(analyze, 'systemd-analyze (Debian: apt-get install systemd) is needed under CI');
    // The unit names /usr/bin/node; where node lives elsewhere, verify a copy naming this one.
    let file = UNIT_FILE;
    const node = one('ExecStart').split(/\s+/)[0] as string;
    if (!existsSync(node)) {
      const copyDir = mkdtempSync(join(tmpdir(), 'snapgate-unit-'));
      file = join(copyDir, 'snapgate.service');
      writeFileSync(
        file,
        readFileSync(UNIT_FILE, 'utf8').replace(`ExecStart=${node} `, `ExecStart=${process.execPath} `),
      );
    }
    const verify = spawnSync(analyze, ['verify', file], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(verify.status, 0, verify.stderr);
    assert.deepEqual(
      `${verify.stdout}${verify.stderr}`.split('\n').filter((l) => l.includes('snapgate.service')),
      [],
    );
    const security = spawnSync(analyze, ['security', '--offline=true', '--no-pager', file], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    const level = /Overall exposure level for snapgate\.service: (\d+\.\d+)/.exec(security.stdout);
    assert.ok(level, security.stdout + security.stderr);
    assert.ok(Number(level[1]) <= 2, `exposure ${level[1]}`);
    if (file !== UNIT_FILE) rmSync(dirname(file), { recursive: true, force: true });
  });
});

// --- the container image -------------------------------------------------------------------------

interface Instruction {
  line: number;
  op: string;
  args: string;
}

/** Dockerfile instructions with continuation lines joined; comments and blank lines dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending: { line: number; text: string } | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    if (pending === undefined && (raw.trim() === '' || raw.trim().startsWith('#'))) continue;
    if (pending !== undefined && raw.trim().startsWith('#')) continue;
    const joined = pending ? `${pending.text} ${raw.trim()}` : raw.trim();
    const start = pending?.line ?? i + 1;
    if (joined.endsWith('\\')) {
      pending = { line: start, text: joined.slice(0, -1).trim() };
      continue;
    }
    pending = undefined;
    const m = /^([A-Za-z]+)\s+(.*)$/.exec(joined);
    assert.ok(m, `line ${start}: an instruction`);
    out.push({ line: start, op: (m[1] as string).toUpperCase(), args: m[2] as string });
  }
  assert.equal(pending, undefined, 'no dangling continuation');
  return out;
}

const KNOWN_OPS = [
  'FROM',
  'RUN',
  'CMD',
  'LABEL',
  'EXPOSE',
  'ENV',
  'ADD',
  'COPY',
  'ENTRYPOINT',
  'VOLUME',
  'USER',
  'WORKDIR',
  'ARG',
  'ONBUILD',
  'STOPSIGNAL',
  'HEALTHCHECK',
  'SHELL',
];

/** ENV's KEY=value pairs (values without spaces, as this Dockerfile writes them). */
const envPairs = (args: string) =>
  args.split(/\s+/).map((pair) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(pair);
    assert.ok(m, `ENV ${args}: KEY=value pairs`);
    return [m[1] as string, m[2] as string] as const;
  });

describe('deploy/Dockerfile', () => {
  const text = readFileSync(DOCKERFILE, 'utf8');
  const all = parseDockerfile(text);
  const lastFrom = all.map((x) => x.op).lastIndexOf('FROM');
  const build = all.slice(0, lastFrom);
  const final = all.slice(lastFrom);
  const finalOps = (op: string) => final.filter((x) => x.op === op);

  const hadolint = onPath('hadolint');
  it('hadolint finds nothing', {
    skip: hadolint ? false : 'hadolint is not installed (no Debian or npm package)',
  }, () => {
    const r = spawnSync(hadolint as string, [DOCKERFILE], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  it('uses known instructions, and builds from Node 20 on Debian pinned to a release', () => {
    assert.deepEqual(
      all.filter((x) => !KNOWN_OPS.includes(x.op)),
      [],
    );
    const froms = all.filter((x) => x.op === 'FROM');
    assert.equal(froms.length, 2, 'a build stage and a run stage');
    for (const f of froms) {
      assert.match(f.args, /^node:20\.\d+\.\d+-bookworm(-slim)?(@sha256:[0-9a-f]{64})?(\s+AS\s+\w+)?$/i, f.args);
    }
  });

  it('builds better-sqlite3 with python3, make and g++, installs as CI does and compiles the gateway', () => {
    const run = build
      .filter((x) => x.op === 'RUN')
      .map((x) => x.args)
      .join('\n');
    assert.match(run, /apt-get install[^\n]*\bpython3\b/);
    assert.match(run, /apt-get install[^\n]*\bmake\b/);
    assert.match(run, /apt-get install[^\n]*\bg\+\+/);
    assert.match(run, /npm install --no-audit --no-fund/);
    assert.doesNotMatch(run, /npm ci\b/, 'npm ci refuses this lockfile (see .ci/run)');
    assert.match(run, /npm run build -w @snapgate\/gateway/);
    assert.match(run, /npm prune --omit=dev/);
  });

  it('copies only what exists in the repository, and no secrets', () => {
    for (const c of all.filter((x) => x.op === 'COPY' && !x.args.startsWith('--from'))) {
      const parts = c.args.split(/\s+/);
      for (const source of parts.slice(0, -1)) {
        assert.ok(existsSync(join(REPO, source)), `COPY ${source} (line ${c.line}) exists`);
        assert.doesNotMatch(source, /\.env$|\.pem$|master\.key|\.db$|(^|\/)data\//, `COPY ${source} is no secret`);
      }
    }
    for (const x of all.filter((i) => i.op === 'ENV' || i.op === 'ARG')) {
      assert.doesNotMatch(x.args, /KEY|TOKEN|SECRET|PASSWORD|DATABASE_URL/i, `${x.op} ${x.args} names no secret`);
    }
    const ignore = readFileSync(`${DOCKERFILE}.dockerignore`, 'utf8').split('\n');
    for (const must of ['**/node_modules', '**/dist', '**/*.db', '**/master.key', '**/*.pem', '**/*.env', '.git']) {
      assert.ok(ignore.includes(must), `the build context leaves out ${must}`);
    }
  });

  it('runs the compiled gateway as a non-root user on 0.0.0.0:8080, with its data in a volume', () => {
    const users = finalOps('USER').map((x) => x.args.trim());
    assert.ok(users.length > 0, 'the run stage names a USER');
    assert.ok(!['root', '0', '0:0'].includes(users.at(-1) as string), `USER ${users.at(-1)}`);
    assert.match(
      finalOps('RUN')
        .map((x) => x.args)
        .join('\n'),
      new RegExp(`useradd [^\\n]*\\b${users.at(-1)}\\b`),
    );
    const env = new Map(finalOps('ENV').flatMap((x) => envPairs(x.args)));
    assert.equal(env.get('SNAPGATE_HOST'), '0.0.0.0');
    assert.equal(env.get('SNAPGATE_PORT'), '8080');
    assert.deepEqual(
      finalOps('EXPOSE').map((x) => x.args),
      ['8080'],
    );
    const volumes = finalOps('VOLUME').map((x) => x.args.trim());
    assert.deepEqual(volumes, [posix.dirname(env.get('SNAPGATE_DB') ?? '')]);
    assert.deepEqual(
      volumes,
      [posix.dirname(envExample.commented.get('SNAPGATE_DB') ?? '')],
      'the same data folder as the systemd unit',
    );
    assert.deepEqual(
      finalOps('STOPSIGNAL').map((x) => x.args),
      ['SIGTERM'],
    );
    // CMD from WORKDIR: the same compiled start-up as the unit's ExecStart.
    const cmd = JSON.parse(finalOps('CMD').at(-1)?.args ?? 'null') as string[];
    const workdir = finalOps('WORKDIR').at(-1)?.args ?? '';
    assert.equal(cmd[0], 'node');
    const installRoot = posix.dirname(posix.dirname(workdir));
    assert.equal(posix.relative(installRoot, posix.join(workdir, cmd[1] as string)), COMPILED_MAIN);
  });

  it('checks health with deploy/healthcheck.mjs, which asks /readyz', () => {
    const hc = finalOps('HEALTHCHECK');
    assert.equal(hc.length, 1);
    const m = /^(.*?)\s*CMD\s+(\[.*\])$/.exec(hc[0]?.args ?? '');
    assert.ok(m, hc[0]?.args);
    assert.match(m[1] as string, /--timeout=5s/);
    const cmd = JSON.parse(m[2] as string) as string[];
    assert.equal(cmd[0], 'node');
    const copied = finalOps('COPY').find((x) => x.args.split(/\s+/).at(-1) === cmd[1]);
    assert.ok(copied, `${cmd[1]} is copied into the image`);
    assert.equal(copied.args.split(/\s+/)[0], relative(REPO, HEALTHCHECK));
    assert.match(readFileSync(HEALTHCHECK, 'utf8'), /path: '\/readyz'/);
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliWithEnv } from '../helpers/cli.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';

const VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

describe('snapgate help, version and global flags', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('lists every flag of a command with its meaning and default, for --help, -h and help', async () => {
    const help = await runCli(gw, 'merchant', 'create', '--help');
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^usage: snapgate merchant create \[options\]/);
    for (const f of ['--name <name>', '--callback-base-url <url>', '--public-key-file <file>', '--qris-provider']) {
      assert.ok(help.out.includes(f), `${f} in\n${help.out}`);
    }
    assert.match(
      help.out,
      /--callback-signature <mode>\s+hmac-sha512, rsa-sha256 or snap-b2b \(default: hmac-sha512\)/,
    );
    // The global flags too.
    assert.match(help.out, /--url <url>/);
    assert.match(help.out, /--admin-token <token>/);
    assert.match(help.out, /--json/);

    const short = await runCli(gw, 'merchant', 'create', '-h');
    assert.equal(short.code, 0);
    assert.equal(short.out, help.out);
    const viaHelp = await runCli(gw, 'help', 'merchant', 'create');
    assert.equal(viaHelp.code, 0);
    assert.equal(viaHelp.out, help.out);

    const replay = await runCli(gw, 'notifications', 'replay', '--help');
    assert.match(replay.out, /--timeout <duration>.*\(default: "30s"\)/);
    assert.match(replay.out, /--wait/);
  });

  it('lists the commands for -h, help and help <group>', async () => {
    const top = await runCli(gw, '-h');
    assert.equal(top.code, 0);
    for (const c of ['serve', 'demo', 'merchant', 'provider', 'transactions', 'notifications', 'completion']) {
      assert.match(top.out, new RegExp(`^  ${c}\\b`, 'm'));
    }
    const help = await runCli(gw, 'help');
    assert.equal(help.code, 0);
    assert.equal(help.out, top.out);
    const group = await runCli(gw, 'help', 'transactions');
    assert.equal(group.code, 0);
    assert.match(group.out, /^ {2}list \[options\]/m);
    assert.match(group.out, /^ {2}show <referenceNo>/m);
    // A group without its verb is bad usage, with the group's help on stderr.
    const bare = await runCli(gw, 'merchant');
    assert.equal(bare.code, 2);
    assert.match(bare.err, /portal-link <merchantId>/);
    assert.equal((await runCli(gw, 'help', 'nonsense')).code, 2);
  });

  it('prints the gateway package version', async () => {
    const v = await runCli(gw, '--version');
    assert.equal(v.code, 0);
    assert.equal(v.out, VERSION);
  });

  it('accepts --url, --admin-token and --json before and after the command', async () => {
    const env = { SNAPGATE_URL: 'http://127.0.0.1:9', SNAPGATE_ADMIN_TOKEN: 'wrong-token' };
    const flags = ['--url', gw.url, '--admin-token', ADMIN_TOKEN, '--json'];
    const before = await runCliWithEnv(env, ...flags, 'merchant', 'list');
    assert.equal(before.code, 0, before.err);
    assert.ok(Array.isArray(JSON.parse(before.out).items));
    const afterIt = await runCliWithEnv(env, 'merchant', 'list', ...flags);
    assert.equal(afterIt.code, 0, afterIt.err);
    assert.deepEqual(JSON.parse(afterIt.out), JSON.parse(before.out));
    const between = await runCliWithEnv(
      env,
      'merchant',
      '--json',
      'list',
      '--url',
      gw.url,
      '--admin-token',
      ADMIN_TOKEN,
    );
    assert.equal(between.code, 0, between.err);
    assert.ok(Array.isArray(JSON.parse(between.out).items));
    // --url=… works too.
    const eq = await runCliWithEnv(env, `--url=${gw.url}`, 'merchant', 'list', `--admin-token=${ADMIN_TOKEN}`);
    assert.equal(eq.code, 0, eq.err);
    assert.match(eq.out, /^id\s+name/);
  });

  it('on 401 names SNAPGATE_ADMIN_TOKEN and --admin-token', async () => {
    const missing = await runCliWithEnv({ SNAPGATE_URL: gw.url }, 'merchant', 'list');
    assert.equal(missing.code, 1);
    assert.match(missing.err, /401 Unauthorized/);
    assert.match(missing.err, /SNAPGATE_ADMIN_TOKEN/);
    assert.match(missing.err, /--admin-token/);
    const wrong = await runCli(gw, 'keys', 'status', '--admin-token', 'not-the-token');
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /SNAPGATE_ADMIN_TOKEN.*--admin-token <key>/);
    // Other refusals carry no such hint.
    const notFound = await runCli(gw, 'merchant', 'show', 'nope');
    assert.equal(notFound.code, 1);
    assert.equal(notFound.err.includes('SNAPGATE_ADMIN_TOKEN'), false);
  });

  it('exits 2 with the usage on bad usage', async () => {
    const unknown = await runCli(gw, 'frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command 'frobnicate'/);
    const flag = await runCli(gw, 'merchant', 'list', '--bogus');
    assert.equal(flag.code, 2);
    assert.match(flag.err, /snapgate merchant list: unknown option '--bogus'\nusage: snapgate merchant list/);
    const missing = await runCli(gw, 'merchant', 'create');
    assert.match(missing.err, /snapgate merchant create: --name is required\nusage: snapgate merchant create/);
    assert.equal((await runCli(gw, 'merchant', 'show', 'a', 'b')).code, 2);
    assert.equal((await runCli(gw, 'merchant', 'list', '--limit')).code, 2);
  });
});

describe('snapgate completion bash', () => {
  it('prints a bash script that completes commands, verbs and flags', async () => {
    const r = await runCliWithEnv({}, 'completion', 'bash');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /complete -o default -F _snapgate snapgate/);
    assert.match(r.out, /'merchant create'\) echo '[^']*--callback-base-url[^']*--url[^']*'/);
    assert.match(r.out, /'notifications replay'\) echo '[^']*--wait --timeout/);
    assert.equal((await runCliWithEnv({}, 'completion', 'fish')).code, 2);

    // Ask bash itself, when there is one.
    const complete = (line: string[]) =>
      new Promise<string | null>((resolve) => {
        const words = line.map((w) => `'${w}'`).join(' ');
        const script = `${r.out}\nCOMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}; _snapgate; echo "\${COMPREPLY[*]}"`;
        execFile('bash', ['-c', script], { encoding: 'utf8' }, (e, stdout) => resolve(e ? null : stdout.trim()));
      });
    const top = await complete(['snapgate', 'mer']);
    if (top === null) return; // no bash here: the text checks above stand
    assert.equal(top, 'merchant');
    assert.deepEqual((await complete(['snapgate', 'merchant', 'r'])) as string, 'rotate-secret');
    assert.equal(
      await complete(['snapgate', '--url', 'http://x', 'merchant', 'create', '--callback-b']),
      '--callback-base-url',
    );
    assert.equal(await complete(['snapgate', 'transactions', 'list', '--st']), '--status');
  });
});

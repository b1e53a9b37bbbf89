// The snapgate CLI: parse (commander) → call the admin API (or a service) → print.
// Exit 0 ok, 1 failure, 2 bad usage. Runs in-process too: main() never exits the process and
// writes only through `out` and `err`.
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { trustedCasWith } from '../address-guard.ts';
import { loadCliConfig } from '../config.ts';
import { AdminApiError, createAdminClient } from './admin-client.ts';
import { COMMANDS, type CommandSpec, GROUPS, UsageError, type Values } from './commands.ts';
import { bashCompletion } from './completion.ts';
import type { Output } from './output.ts';

export interface MainIo {
  out?: (s: string) => void;
  err?: (s: string) => void;
  env?: Record<string, string | undefined>;
}

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const UNAUTHORIZED_HINT =
  'hint: the gateway wants an admin key: set SNAPGATE_ADMIN_TOKEN or pass --admin-token <key> ' +
  '(the bootstrap token, or a key from "snapgate admin-key create")';

/** Lines to stdout that stop quietly once the reader is gone (`snapgate … | head -1`). */
let stdoutClosed = false;
let stdoutGuarded = false;
function guardStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') {
      stdoutClosed = true;
      return;
    }
    throw e;
  });
}
const stdoutLine = (s: string) => {
  if (!stdoutClosed && !process.stdout.destroyed) process.stdout.write(`${s}\n`);
};
const stderrLine = (s: string) => {
  if (!process.stderr.destroyed) process.stderr.write(`${s}\n`);
};

const chomp = (s: string) => s.replace(/\n$/, '');

/** Commander error codes that are bad usage (everything but help and version shown on request). */
function exitCodeOf(e: CommanderError): number {
  if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
  return 2;
}

interface Built {
  program: Command;
  /** Set by the command that ran. */
  result: { code: number };
}

function buildProgram(io: Required<MainIo>): Built {
  const { out, err } = io;
  const result = { code: 0 };
  const program = new Command('snapgate');
  const toTitle = (s: string) => s.toLowerCase();
  program
    .description("snapgate: a self-hostable gateway for Indonesia's SNAP API, and its admin CLI")
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .helpCommand('help [command...]', 'show help for a command')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => out(chomp(s)),
      writeErr: (s) => err(chomp(s)),
      getOutHelpWidth: () => (process.stdout.isTTY ? process.stdout.columns : 100),
      getErrHelpWidth: () => (process.stderr.isTTY ? process.stderr.columns : 100),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      outputError: (s, write) => write(s.replace(/^error: /, 'snapgate: ')),
    })
    .configureHelp({ showGlobalOptions: true, styleTitle: toTitle })
    .showHelpAfterError('(snapgate --help lists the commands)')
    .option('--url <url>', 'the gateway base URL (default: SNAPGATE_URL, or http://127.0.0.1:8080)')
    .option('--admin-token <token>', 'an admin key or the bootstrap token (default: SNAPGATE_ADMIN_TOKEN)')
    .option(
      '--ca-file <file>',
      'a PEM CA to trust besides the system ones, for a gateway with a private certificate (default: SNAPGATE_CA_FILE)',
    )
    .option('--json', 'print JSON instead of text');

  const groups = new Map<string, Command>();
  const groupOf = (name: string): Command => {
    let g = groups.get(name);
    if (!g) {
      g = program.command(name).description(GROUPS[name] ?? '');
      g.configureOutput({ outputError: (s, write) => write(s.replace(/^error: /, `snapgate ${name}: `)) });
      g.showHelpAfterError(`(snapgate ${name} --help lists its commands)`);
      groups.set(name, g);
    }
    return g;
  };

  const add = (spec: CommandSpec) => {
    const words = spec.path.split(' ');
    const parent = words.length > 1 ? groupOf(words[0] as string) : program;
    const cmd = parent.command(words.at(-1) as string).description(spec.description);
    for (const a of spec.args ?? []) cmd.argument(a);
    for (const f of spec.flags ?? []) cmd.addOption(new Option(f.flags, f.description).default(f.default));
    const usageLine = `usage: snapgate ${spec.path} ${cmd.usage()}   (--help lists every flag)`;
    cmd.configureOutput({ outputError: (s, write) => write(s.replace(/^error: /, `snapgate ${spec.path}: `)) });
    cmd.showHelpAfterError(usageLine);
    cmd.action(async () => {
      result.code = await execute(spec, cmd, usageLine, io);
    });
  };
  for (const spec of COMMANDS) add(spec);

  program
    .command('completion')
    .description('print a shell completion script: source <(snapgate completion bash)')
    .argument('<shell>', 'the shell: bash')
    .action((shell: string) => {
      if (shell !== 'bash') {
        err(`snapgate completion: only bash is supported, not ${shell}`);
        result.code = 2;
        return;
      }
      out(chomp(bashCompletion(program)));
    });
  return { program, result };
}

async function execute(spec: CommandSpec, cmd: Command, usageLine: string, io: Required<MainIo>): Promise<number> {
  const { out, err } = io;
  const opts = cmd.opts();
  const values: Values = {};
  for (const o of cmd.options) {
    const v = opts[o.attributeName()];
    if (v !== undefined) values[(o.long ?? '').replace(/^--/, '')] = v as string | boolean;
  }
  const globals = cmd.optsWithGlobals() as { url?: string; adminToken?: string; json?: boolean; caFile?: string };
  const cfg = loadCliConfig(io.env);
  const url = typeof globals.url === 'string' ? globals.url.replace(/\/+$/, '') : cfg.url;
  const o: Output = { json: globals.json === true, out, err };
  const name = `snapgate ${spec.path}`;
  const caFile = typeof globals.caFile === 'string' ? globals.caFile : io.env.SNAPGATE_CA_FILE || undefined;
  let ca: string[] | undefined;
  try {
    ca = caFile === undefined ? undefined : trustedCasWith(caFile, 'the CA file');
  } catch (e) {
    err(`${name}: ${(e as Error).message}`);
    return 2;
  }
  const admin = createAdminClient(
    url,
    typeof globals.adminToken === 'string' ? globals.adminToken : cfg.adminToken,
    ca,
  );
  try {
    await spec.run({ values, positionals: [...cmd.args], admin, url, o });
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${name}: ${e.message}\n${usageLine}`);
      return 2;
    }
    if (e instanceof AdminApiError) {
      if (o.json) out(JSON.stringify(e.body, null, 2));
      err(`${name}: ${e.message}`);
      if (e.status === 401) err(UNAUTHORIZED_HINT);
      return 1;
    }
    err(`${name}: ${(e as Error).message}`);
    return 1;
  }
}

/** Runs the CLI on `argv` (without `node snapgate`); resolves to the exit code. */
export async function main(argv: string[], io: MainIo = {}): Promise<number> {
  if (!io.out) guardStdout();
  const full: Required<MainIo> = {
    out: io.out ?? stdoutLine,
    err: io.err ?? stderrLine,
    env: io.env ?? process.env,
  };
  const { program, result } = buildProgram(full);
  if (argv.length === 0) {
    full.out(chomp(program.helpInformation()));
    return 2;
  }
  // `snapgate help merchant create` prints what `snapgate merchant create --help` does.
  if (argv[0] === 'help') {
    let cmd = program;
    for (const word of argv.slice(1).filter((w) => !w.startsWith('-'))) {
      const sub = cmd.commands.find((c) => c.name() === word);
      if (!sub) {
        full.err(`snapgate help: no such command: ${argv.slice(1).join(' ')}\n(snapgate --help lists the commands)`);
        return 2;
      }
      cmd = sub;
    }
    cmd.outputHelp();
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (e) {
    if (e instanceof CommanderError) return exitCodeOf(e);
    throw e;
  }
}

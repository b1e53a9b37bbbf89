import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadConfig } from '../../config.ts';
import { masterKeyFileOf } from '../../secrets/master-key.ts';
import { createSealer, RECORD_HEAD_CHARS } from '../../secrets/sealer.ts';
import { type CommandSpec, flag, onePositional, UsageError } from '../command-kit.ts';
import type { Output } from '../output.ts';

// `snapgate backup <file>`: a copy of the SQLite database taken while the gateway keeps serving,
// checked before it is kept. A local command: it reads the database file, not the admin API, so it
// runs where the database is, with the gateway's SNAPGATE_DB. The master key is never in the copy:
// the command says where the key is, so that it is backed up too, and kept apart.

/** What this command reads of the environment. */
interface Setup {
  sqlitePath: string;
  databaseUrl: string | undefined;
  production: boolean;
  /** Where a sandbox gateway without SNAPGATE_MASTER_KEY keeps its key (src/secrets/master-key.ts). */
  keyFile: string;
  /** SNAPGATE_MASTER_KEY, then SNAPGATE_MASTER_KEY_PREVIOUS, when set where the command runs. */
  envKeys: Buffer[];
}

function setupOf(env: NodeJS.ProcessEnv): Setup {
  // Only the variables used here, checked as the gateway checks them: a setting this command has
  // no use for, or production mode without the master key in this shell, must not stop a backup.
  const picked: Record<string, string | undefined> = {};
  for (const k of ['SNAPGATE_DB', 'SNAPGATE_DATABASE_URL', 'SNAPGATE_MASTER_KEY', 'SNAPGATE_MASTER_KEY_PREVIOUS']) {
    picked[k] = env[k];
  }
  const c = loadConfig(picked);
  return {
    sqlitePath: c.sqlitePath,
    databaseUrl: c.databaseUrl,
    production: env.SNAPGATE_MODE === 'production',
    keyFile: resolve(masterKeyFileOf(c.sqlitePath)),
    envKeys: c.masterKey ? [c.masterKey, ...c.previousMasterKeys] : [],
  };
}

// ── the master key ──────────────────────────────────────────────────────────────────────────

/** The id a sealed record names its key by (first 8 hex digits of its SHA-256); never the key. */
const keyIdOf = (key: Buffer) => createSealer(key).currentKeyId;

interface MasterKeyPlace {
  /** `env`: SNAPGATE_MASTER_KEY is set here; `file`: the sandbox's master.key; `unseen`: neither. */
  kind: 'env' | 'file' | 'unseen';
  file?: string;
  /** The ids of the keys found here. */
  keyIds: string[];
}

function masterKeyPlace(setup: Setup): MasterKeyPlace {
  if (setup.envKeys.length > 0) return { kind: 'env', keyIds: setup.envKeys.map(keyIdOf) };
  // A production gateway never reads master.key; a sandbox one does when no key is set.
  if (!setup.production && existsSync(setup.keyFile)) {
    let keyIds: string[] = [];
    try {
      const key = Buffer.from(readFileSync(setup.keyFile, 'utf8').trim(), 'base64');
      if (key.length === 32) keyIds = [keyIdOf(key)];
    } catch {
      // Not readable by this user: its place is still worth printing.
    }
    return { kind: 'file', file: setup.keyFile, keyIds };
  }
  return { kind: 'unseen', keyIds: [] };
}

/** Where the key is and why it matters; `sealed`: how many of the copy's secrets each key id seals. */
function masterKeyLines(setup: Setup, place: MasterKeyPlace, sealed?: Record<string, number>): string[] {
  const ids = place.keyIds.length > 0 ? ` (key id ${place.keyIds.join(', ')})` : '';
  const lines = ['master key: not in the copy. Back it up too, and keep it apart from the database copies:'];
  if (place.kind === 'env') {
    lines.push(`  SNAPGATE_MASTER_KEY${ids}, which you hold (and SNAPGATE_MASTER_KEY_PREVIOUS, if set)`);
  } else if (place.kind === 'file') {
    lines.push(`  ${place.file}${ids}: the sandbox's key, generated next to the database`);
  } else if (setup.production) {
    lines.push('  SNAPGATE_MASTER_KEY, which you hold (it is not set where this command runs)');
  } else {
    lines.push(
      `  the SNAPGATE_MASTER_KEY the gateway runs with (not set here, and no ${setup.keyFile} for a sandbox key)`,
    );
  }
  lines.push("  Without its key, nothing sealed in a copy opens: merchants' and providers' credentials, signing keys.");
  const under = Object.keys(sealed ?? {});
  if (sealed && under.length > 0) {
    const n = Object.values(sealed).reduce((a, b) => a + b, 0);
    lines.push(`  The copy's ${n} sealed secret(s) need key id ${under.join(', ')}.`);
    const missing = place.keyIds.length > 0 ? under.filter((id) => !place.keyIds.includes(id)) : [];
    if (missing.length > 0) {
      lines.push(`  warning: the key found here is not ${missing.join(', ')}: keep that key too.`);
    }
  }
  return lines;
}

// ── PostgreSQL ──────────────────────────────────────────────────────────────────────────────

/** The URL without its password (in the authority, or as a `password` parameter). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    // A URL the WHATWG parser refuses (PostgreSQL's own is laxer): cut by hand.
    return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@]*@/i, '$1@').replace(/([?&])password=[^&]*&?/i, '$1');
  }
}

/** A word as a POSIX shell reads it back. */
const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function postgresAdvice(o: Output, setup: Setup, file: string): void {
  const url = withoutPassword(setup.databaseUrl as string);
  const dump = `pg_dump --format=custom --file=${shellWord(file)} --dbname=${shellWord(url)}`;
  const place = masterKeyPlace(setup);
  if (o.json) {
    o.out(JSON.stringify({ engine: 'postgres', database: url, dump, masterKey: place }, null, 2));
    return;
  }
  const lines = [
    'snapgate backup copies SQLite only. This gateway uses PostgreSQL (SNAPGATE_DATABASE_URL): back it up',
    "with PostgreSQL's own tools.",
    '',
    'A consistent copy, taken while the gateway serves (nightly, say):',
    `  ${dump}`,
    '  (the password from PGPASSWORD or ~/.pgpass, never on the command line)',
    'Restore it into an empty database, with every gateway instance stopped:',
    `  pg_restore --no-owner --dbname=<the empty database> ${shellWord(file)}`,
    '',
    'To lose no more than the last moments of payments, not a night of them: point-in-time recovery,',
    'a base backup (pg_basebackup) plus continuous WAL archiving (archive_mode = on with an',
    "archive_command, or pgBackRest, WAL-G or Barman), or your managed PostgreSQL's own PITR.",
    '',
    ...masterKeyLines(setup, place),
  ];
  for (const l of lines) o.out(l);
}

// ── SQLite ──────────────────────────────────────────────────────────────────────────────────

const SIDECARS = ['-wal', '-shm', '-journal'];
const withSidecars = (f: string) => [f, ...SIDECARS.map((s) => `${f}${s}`)];

const statOrUndefined = (f: string): Stats | undefined => {
  try {
    return statSync(f);
  } catch {
    return undefined;
  }
};

/**
 * The target's path with its folder's links resolved. Refuses (bad usage) a target whose folder
 * does not exist, a folder, and the database's own files (by name, or the same file by another).
 */
function targetOf(file: string, db: string): string {
  const abs = resolve(file);
  let folder: string;
  try {
    folder = realpathSync(dirname(abs));
  } catch {
    throw new UsageError(`the folder for the copy does not exist: ${dirname(abs)}`);
  }
  if (!statSync(folder).isDirectory()) throw new UsageError(`not a folder: ${dirname(abs)}`);
  const target = join(folder, basename(abs));
  const targetStat = statOrUndefined(target);
  const dbReal = existsSync(db) ? realpathSync(db) : db;
  const own = [...withSidecars(db), ...withSidecars(dbReal), masterKeyFileOf(db)];
  const same = own.some((f) => {
    if (f === abs || f === target) return true;
    const s = targetStat && statOrUndefined(f);
    return s !== undefined && targetStat !== undefined && s.dev === targetStat.dev && s.ino === targetStat.ino;
  });
  if (same) throw new UsageError(`${file} is the database itself (or its -wal, -shm or master key): name a new file`);
  if (targetStat?.isDirectory()) {
    throw new UsageError(`${file} is a folder: name the file to write, like ${join(file, 'snapgate-backup.db')}`);
  }
  return targetStat ? realpathSync(target) : target;
}

interface Facts {
  merchants?: number;
  transactions?: number;
  schemaVersion?: number;
  /** How many of the copy's secrets each master key id seals. */
  sealed?: Record<string, number>;
}

type Db = import('better-sqlite3').Database;

/** What the copy holds, cheaply; a database without these tables still gets its copy. */
async function factsOf(copy: Db): Promise<Facts> {
  const count = (text: string) => {
    try {
      return Number((copy.prepare(text).get() as { n: number | null }).n ?? 0);
    } catch {
      return undefined;
    }
  };
  const facts: Facts = {
    merchants: count('SELECT count(*) AS n FROM merchants'),
    transactions: count('SELECT count(*) AS n FROM transactions'),
    schemaVersion: count('SELECT max(version) AS n FROM schema_migrations'),
  };
  try {
    const { countSecretsByHead } = await import('../../store/parts/secrets.ts');
    const { SECRET_SETTINGS } = await import('../../store/sealed-store.ts');
    const sql = {
      dialect: 'sqlite' as const,
      all: async (text: string, params: readonly unknown[] = []) =>
        copy.prepare(text).all(...params) as Record<string, unknown>[],
      run: async (text: string, params: readonly unknown[] = []) => copy.prepare(text).run(...params).changes,
      bool: (v: boolean) => (v ? 1 : 0),
    };
    // keyIdOfRecord reads the record's head only: a sealer over any key names it.
    const reader = createSealer(randomBytes(32));
    const sealed: Record<string, number> = {};
    for (const [head, n] of Object.entries(await countSecretsByHead(sql, RECORD_HEAD_CHARS, SECRET_SETTINGS))) {
      const id = reader.keyIdOfRecord(head);
      if (id) sealed[id] = (sealed[id] ?? 0) + n;
    }
    facts.sealed = sealed;
  } catch {
    // An older or a foreign schema: no key ids to tell.
  }
  return facts;
}

const sizeOf = (bytes: number) =>
  bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : bytes >= 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${bytes} bytes`;

async function backupSqlite(o: Output, setup: Setup, file: string, force: boolean): Promise<void> {
  if (setup.sqlitePath === ':memory:') throw new Error('SNAPGATE_DB is :memory:, which has no file to copy');
  const db = resolve(setup.sqlitePath);
  const target = targetOf(file, db);
  // A -wal left next to an older copy would be replayed into the new one when it is opened.
  const taken = withSidecars(target).find((f) => existsSync(f));
  if (taken && !force) throw new UsageError(`${taken} already exists (--force replaces it)`);
  if (!existsSync(db)) {
    throw new Error(`there is no database at ${db}: set SNAPGATE_DB to the file the gateway serves from`);
  }
  const { default: Database } = await import('better-sqlite3');

  // Written under a name of its own in the target's folder and moved into place once it checks
  // out: a failed or interrupted backup never leaves half a file under the name given, nor loses
  // the copy --force replaces. Created 0600 before SQLite opens it (SQLite keeps an existing
  // file's mode): it holds the sealed secrets.
  const partial = join(
    dirname(target),
    `.${basename(target)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  closeSync(openSync(partial, 'wx', 0o600));
  let kept = false;
  try {
    // Read-write, but query_only: with the gateway stopped, the last connection to close removes
    // the -wal and -shm files it had to create, where a read-only one leaves them behind.
    const source = new Database(db, { fileMustExist: true });
    try {
      source.pragma('busy_timeout = 5000');
      source.pragma('query_only = ON');
      // Every page in one step, under one read transaction: the copy is the database as of one
      // commit, and in WAL mode that read holds up no writer. In small steps, every commit the
      // gateway made in between would restart the copy, for ever under steady traffic.
      await source.backup(partial, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }

    let facts: Facts;
    const copy = new Database(partial, { fileMustExist: true });
    try {
      // One self-contained file (the gateway turns WAL back on when it opens it): nothing beside
      // it to lose, and it opens read-only anywhere.
      copy.pragma('journal_mode = DELETE');
      const check = (copy.pragma('integrity_check') as Array<{ integrity_check: string }>).map(
        (r) => r.integrity_check,
      );
      if (check.length !== 1 || check[0] !== 'ok') {
        throw new Error(
          `the copy failed PRAGMA integrity_check, so it was deleted: ${check.slice(0, 3).join('; ')}` +
            `${check.length > 3 ? `; … (${check.length} problems)` : ''}. The database itself may be damaged: ` +
            `run sqlite3 ${shellWord(db)} 'PRAGMA integrity_check' with the gateway stopped`,
        );
      }
      facts = await factsOf(copy);
    } finally {
      copy.close();
    }

    if (force) {
      // What the copy replaces (and any -wal or -shm of it) goes only now.
      for (const f of withSidecars(target).slice(1)) rmSync(f, { force: true });
      renameSync(partial, target);
    } else {
      // A link, not a rename: a file that appeared under that name meanwhile is not replaced.
      try {
        linkSync(partial, target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new UsageError(`${target} already exists (--force replaces it)`);
        }
        throw e;
      }
      rmSync(partial);
    }
    kept = true;
    report(o, setup, { db, target, bytes: statSync(target).size, facts });
  } finally {
    if (!kept) for (const f of withSidecars(partial)) rmSync(f, { force: true });
  }
}

function report(o: Output, setup: Setup, r: { db: string; target: string; bytes: number; facts: Facts }): void {
  const place = masterKeyPlace(setup);
  const { facts } = r;
  if (o.json) {
    const body = {
      engine: 'sqlite',
      file: r.target,
      bytes: r.bytes,
      source: r.db,
      integrity: 'ok',
      merchants: facts.merchants ?? null,
      transactions: facts.transactions ?? null,
      schemaVersion: facts.schemaVersion ?? null,
      sealedSecretsByKeyId: facts.sealed ?? null,
      masterKey: place,
    };
    o.out(JSON.stringify(body, null, 2));
    return;
  }
  o.out(`wrote ${r.target} (${sizeOf(r.bytes)}, mode 0600): integrity_check ok`);
  o.out(`  copied online from ${r.db}, as of one commit`);
  const holds = [
    facts.merchants === undefined ? undefined : `${facts.merchants} merchant(s)`,
    facts.transactions === undefined ? undefined : `${facts.transactions} transaction(s)`,
    facts.schemaVersion === undefined ? undefined : `schema version ${facts.schemaVersion}`,
  ].filter((x) => x !== undefined);
  if (holds.length > 0) o.out(`  holds ${holds.join(', ')}`);
  for (const l of masterKeyLines(setup, place, facts.sealed)) o.out(l);
}

export const backupCommands: CommandSpec[] = [
  {
    path: 'backup',
    description:
      'copy the SQLite database (SNAPGATE_DB) into <file> while the gateway serves, check the copy, and say where the master key is; on PostgreSQL, print how to back it up',
    args: ['<file>'],
    flags: [flag('--force', 'replace <file> if it exists')],
    async run(ctx) {
      const file = onePositional(ctx, 'file to write');
      // A local command: the settings are this process's, as for `serve`.
      const setup = setupOf(process.env);
      if (setup.databaseUrl) postgresAdvice(ctx.o, setup, file);
      else await backupSqlite(ctx.o, setup, file, ctx.values.force === true);
    },
  },
];

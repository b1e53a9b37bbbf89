// `snapgate backup`: an online copy of a serving gateway's SQLite database, restored into a second
// gateway; and every refusal. Real gateway processes, the real CLI as a process, real files.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { runCliWithEnv } from '../helpers/cli.ts';
import { adminApiOf, GATEWAY_ROOT, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, type SnapCaller, snapCall } from '../helpers/snap.ts';

const ADMIN = 'backup-test-admin-token-0123456';
const admin = adminApiOf(ADMIN);

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** `snapgate <args>` as a process of its own, with exactly this environment (and PATH). */
function snapgate(env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(GATEWAY_ROOT, 'bin/snapgate.js'), ...args], {
      cwd: GATEWAY_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += String(c);
    });
    child.stderr.on('data', (c) => {
      err += String(c);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const modeOf = (f: string) => statSync(f).mode & 0o777;

describe('snapgate backup: a restore drill', () => {
  it('copies the database while the gateway keeps writing; a gateway on the copy has every write acknowledged before, and balanced books', {
    timeout: 120_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-backup-'));
    const live = join(dir, 'live');
    const restored = join(dir, 'restored');
    const copy = join(dir, 'nightly.db');
    // Sandbox mode without SNAPGATE_MASTER_KEY: the gateway makes master.key next to its database.
    const env = { SNAPGATE_DB: join(live, 'gw.db'), SNAPGATE_ADMIN_TOKEN: ADMIN, SNAPGATE_RATE_LIMIT: 'off' };
    let gw: GatewayProcess | undefined;
    let gw2: GatewayProcess | undefined;
    try {
      gw = await spawnGateway(env);
      const first = gw;
      const created = await admin(first, 'POST', '/merchants', { name: 'Backup Drill' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const m = created.body;
      const caller: SnapCaller = await authenticate(first.url, m);

      // What the gateway acknowledged: generated (answered 2xx), then paid (the status it answered).
      const acked = new Map<string, { partnerReferenceNo: string; paidStatus?: string }>();
      let ackedPayments = 0;
      let stop = false;
      let seq = 0;
      const writer = async (w: number) => {
        while (!stop) {
          const n = ++seq;
          const partnerReferenceNo = `BK-${w}-${n}`;
          const g = await snapCall(first.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
            partnerReferenceNo,
            amount: { value: '10000.00', currency: 'IDR' },
          });
          assert.equal(g.status, 200, g.text);
          const ref = g.body.referenceNo as string;
          acked.set(ref, { partnerReferenceNo });
          // Every other one is paid, so the copy holds both unpaid and paid transactions.
          if (n % 2 === 0) continue;
          const p = await admin(first, 'POST', `/sandbox/qris/${ref}/pay`, {});
          assert.equal(p.status, 200, JSON.stringify(p.body));
          acked.set(ref, { partnerReferenceNo, paidStatus: p.body.status });
          ackedPayments++;
        }
      };
      // A writer's failure stops the others and fails the test where it is awaited.
      let failure: unknown;
      const writers = [0, 1, 2, 3].map((w) =>
        writer(w).catch((e: unknown) => {
          failure ??= e;
          stop = true;
        }),
      );
      const writesOk = () => {
        if (failure) throw failure;
        return true;
      };
      try {
        await waitFor('payments before the backup', () => writesOk() && ackedPayments >= 40, 60_000);

        // Acknowledged before the backup command starts: each must be in the copy, as acknowledged.
        const before = new Map([...acked].map(([ref, a]) => [ref, { ...a }]));
        const run = await snapgate(env, 'backup', copy);
        const during = acked.size - before.size;
        stop = true;
        await Promise.all(writers);
        writesOk();

        assert.equal(run.code, 0, `${run.out}\n${run.err}`);
        assert.ok(during > 0, 'writes kept being acknowledged while the backup command ran');
        assert.match(run.out, /^wrote .*nightly\.db \(.* mode 0600\): integrity_check ok$/m);
        assert.match(run.out, /holds 2 merchant\(s\), \d+ transaction\(s\), schema version \d+/);
        assert.equal(modeOf(copy), 0o600);
        // One self-contained file: nothing left beside it, and no partial file.
        assert.deepEqual(readdirSync(dir).sort(), ['live', 'nightly.db']);

        // It says where the key is (and never what it is).
        const keyFile = join(live, 'master.key');
        const key = readFileSync(keyFile, 'utf8').trim();
        assert.ok(run.out.includes(`${keyFile} (key id `), run.out);
        assert.match(run.out, /Without its key, nothing sealed in a copy opens/);
        assert.equal(run.out.includes(key), false, 'the key itself is never printed');
        assert.equal(run.err.includes(key), false);

        // Restore: the copy and the same master key, in a folder of their own.
        mkdirSync(restored, { mode: 0o700 });
        copyFileSync(copy, join(restored, 'gw.db'));
        copyFileSync(keyFile, join(restored, 'master.key'));
        gw2 = await spawnGateway({ ...env, SNAPGATE_DB: join(restored, 'gw.db') });
        const second = gw2;
        assert.equal(readFileSync(join(restored, 'master.key'), 'utf8').trim(), key, 'no new key was made');

        // The merchant's sealed secret opens: its token is issued by the restored gateway.
        await authenticate(second.url, m);
        for (const [ref, a] of before) {
          const t = await admin(second, 'GET', `/transactions/${ref}`);
          assert.equal(t.status, 200, `${ref} acknowledged before the backup is in the copy`);
          assert.equal(t.body.partnerReferenceNo, a.partnerReferenceNo);
          if (a.paidStatus !== undefined) {
            assert.equal(t.body.status, a.paidStatus, `${ref} paid before the backup is paid in the copy`);
            assert.ok(t.body.paidAt, ref);
          }
        }
        const verify = await admin(second, 'GET', '/ledger/verify');
        assert.equal(verify.status, 200);
        assert.equal(verify.body.ok, true, JSON.stringify(verify.body.problems));
        assert.ok(verify.body.entries >= ackedPaymentsIn(before), 'a ledger entry for each payment');
      } finally {
        stop = true;
        await Promise.all(writers);
      }
    } finally {
      gw?.child.kill('SIGKILL');
      gw2?.child.kill('SIGKILL');
      await Promise.all([gw?.exited, gw2?.exited]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function ackedPaymentsIn(acked: Map<string, { paidStatus?: string }>): number {
  return [...acked.values()].filter((a) => a.paidStatus !== undefined).length;
}

describe('snapgate backup: refusals and advice', () => {
  let dir: string;
  let db: string;
  let env: Record<string, string>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'snapgate-backup-'));
    db = join(dir, 'gw.db');
    // A gateway's database (its schema and no traffic); the gateway itself is not needed to refuse.
    await new SqliteStore({ file: db }).close();
    env = { SNAPGATE_DB: db };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const refused = (r: Run, code: number, message: RegExp) => {
    assert.equal(r.code, code, `${r.out}\n${r.err}`);
    assert.match(r.err.trimEnd(), message);
    assert.equal(r.out, '');
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack');
  };

  it('needs a file', async () => {
    refused(
      await snapgate(env, 'backup'),
      2,
      /^snapgate backup: missing required argument 'file'\nusage: snapgate backup/,
    );
  });

  it('does not replace a file, unless --force', async () => {
    const target = join(dir, 'taken.db');
    writeFileSync(target, 'an older copy');
    refused(
      await snapgate(env, 'backup', target),
      2,
      /^snapgate backup: .*taken\.db already exists \(--force replaces it\)\nusage: snapgate backup/,
    );
    assert.equal(readFileSync(target, 'utf8'), 'an older copy');
    // A -wal of an older copy would be replayed into the new one: it counts as taken too.
    const walOnly = join(dir, 'wal-only.db');
    writeFileSync(`${walOnly}-wal`, 'stale');
    refused(await snapgate(env, 'backup', walOnly), 2, /wal-only\.db-wal already exists \(--force replaces it\)/);

    const forced = await snapgate(env, 'backup', '--force', target);
    assert.equal(forced.code, 0, forced.err);
    assert.equal(modeOf(target), 0o600);
    const forcedWal = await snapgate(env, 'backup', walOnly, '--force');
    assert.equal(forcedWal.code, 0, forcedWal.err);
    assert.equal(existsSync(`${walOnly}-wal`), false, 'the stale -wal is gone');
    for (const f of [target, walOnly]) {
      const c = new Database(f, { readonly: true, fileMustExist: true });
      try {
        assert.equal(c.pragma('integrity_check', { simple: true }), 'ok');
        assert.ok(c.prepare('SELECT count(*) AS n FROM schema_migrations').get());
      } finally {
        c.close();
      }
    }
  });

  it('never writes over the database, its -wal or -shm, by any name', async () => {
    const link = join(dir, 'link-to-db');
    symlinkSync(db, link);
    for (const target of [db, `${db}-wal`, `${db}-shm`, link, join(dir, 'master.key'), `${dir}/./gw.db`]) {
      for (const force of [[], ['--force']]) {
        refused(
          await snapgate(env, 'backup', ...force, target),
          2,
          /^snapgate backup: .* is the database itself \(or its -wal, -shm or master key\): name a new file\n/,
        );
      }
    }
    const c = new Database(db, { readonly: true, fileMustExist: true });
    try {
      assert.equal(c.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      c.close();
    }
  });

  it('needs an existing folder, and a file name rather than a folder', async () => {
    refused(
      await snapgate(env, 'backup', join(dir, 'no-such-folder', 'copy.db')),
      2,
      /^snapgate backup: the folder for the copy does not exist: .*no-such-folder\n/,
    );
    refused(
      await snapgate(env, 'backup', '--force', dir),
      2,
      /^snapgate backup: .* is a folder: name the file to write/,
    );
  });

  it('refuses a database that does not exist, and does not create one', async () => {
    const missing = join(dir, 'missing.db');
    refused(
      await snapgate({ SNAPGATE_DB: missing }, 'backup', join(dir, 'copy-of-missing.db')),
      1,
      /^snapgate backup: there is no database at .*missing\.db: set SNAPGATE_DB to the file the gateway serves from$/,
    );
    assert.equal(existsSync(missing), false);
    assert.equal(existsSync(join(dir, 'copy-of-missing.db')), false);
  });

  it('deletes a copy that fails the integrity check, and exits 1 saying so', async () => {
    // A database whose table and index disagree: it copies page for page, and fails the check.
    const bad = join(dir, 'damaged.db');
    const d = new Database(bad);
    d.exec("CREATE TABLE t (x TEXT); CREATE INDEX t_x ON t (x); INSERT INTO t VALUES ('value-to-damage-0123')");
    d.close();
    const bytes = readFileSync(bad);
    const at = bytes.indexOf('value-to-damage-0123'); // the table's page comes before the index's
    assert.ok(at > 0);
    bytes.write('VALUE', at);
    writeFileSync(bad, bytes);

    const folder = join(dir, 'damaged-copies');
    mkdirSync(folder);
    refused(
      await snapgate({ SNAPGATE_DB: bad }, 'backup', join(folder, 'copy.db')),
      1,
      /^snapgate backup: the copy failed PRAGMA integrity_check, so it was deleted: row 1 missing from index t_x\./,
    );
    assert.deepEqual(readdirSync(folder), [], 'neither the copy nor a partial file is left');
  });

  it('names SNAPGATE_MASTER_KEY, with its id, when the gateway has one; never the key', async () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const r = await snapgate(
      { ...env, SNAPGATE_MODE: 'production', SNAPGATE_MASTER_KEY: key },
      'backup',
      join(dir, 'prod.db'),
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^ {2}SNAPGATE_MASTER_KEY \(key id [0-9a-f]{8}\), which you hold/m);
    assert.equal(r.out.includes(key), false);
    // Production without the key in this shell: still a backup, and still the note.
    const unseen = await snapgate({ ...env, SNAPGATE_MODE: 'production' }, 'backup', join(dir, 'prod2.db'));
    assert.equal(unseen.code, 0, unseen.err);
    assert.match(unseen.out, /SNAPGATE_MASTER_KEY, which you hold \(it is not set where this command runs\)/);
  });

  it('on PostgreSQL prints the advice, without the password', async () => {
    const r = await snapgate(
      { SNAPGATE_DATABASE_URL: 'postgres://user:secret@127.0.0.1:5432/x', SNAPGATE_DB: db },
      'backup',
      join(dir, 'pg.dump'),
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(`${r.out}${r.err}`.includes('secret'), false, r.out);
    assert.match(r.out, /pg_dump --format=custom --file=\S+pg\.dump --dbname=postgres:\/\/user@127\.0\.0\.1:5432\/x/);
    assert.match(r.out, /point-in-time recovery/);
    assert.match(r.out, /WAL archiving/);
    assert.match(r.out, /master key: not in the copy/);
    assert.equal(existsSync(join(dir, 'pg.dump')), false, 'nothing is dumped');
    const param = await snapgate(
      { SNAPGATE_DATABASE_URL: 'postgresql://user@db.internal/x?sslmode=require&password=secret' },
      'backup',
      'x.dump',
    );
    assert.equal(param.code, 0, param.err);
    assert.equal(param.out.includes('secret'), false, param.out);
    assert.match(param.out, /sslmode=require/);
  });

  it('is in the help and the completion', async () => {
    const help = await runCliWithEnv({}, 'backup', '--help');
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, /^usage: snapgate backup \[options\] <file>/);
    assert.match(help.out, /--force\s+replace <file> if it exists/);
    const top = await runCliWithEnv({}, '--help');
    assert.match(top.out, /^ {2}backup \[options\] <file>/m);
    const completion = await runCliWithEnv({}, 'completion', 'bash');
    assert.match(completion.out, /'backup'\) echo '--force/);
  });
});

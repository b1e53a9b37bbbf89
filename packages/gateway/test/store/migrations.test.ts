// One numbered migration sequence for both stores, and databases migrated under SQLite's old
// numbering (which lacked PostgreSQL's 004_merchant_notify) upgrade in place.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { readMigrations, renumberedHistory } from '../../src/store/migrations.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

describe('the migration sequence', () => {
  const root = mkdtempSync(join(tmpdir(), 'snapgate-migrations-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('has the same numbered steps, with the same names, for SQLite and PostgreSQL', () => {
    const sqlite = readMigrations('sqlite');
    const postgres = readMigrations('postgres');
    assert.ok(sqlite.length >= 13);
    assert.deepEqual(
      sqlite.map((m) => [m.version, m.name]),
      postgres.map((m) => [m.version, m.name]),
    );
    assert.deepEqual(
      sqlite.map((m) => m.version),
      sqlite.map((_, i) => i + 1),
    );
    // A step both engines write alike is one file.
    assert.equal(
      sqlite.find((m) => m.name === '006_callback_modes.sql')?.sql,
      postgres.find((m) => m.name === '006_callback_modes.sql')?.sql,
    );
  });

  it('refuses a folder with a gap, a step written for one engine only, or a step written both ways', () => {
    const folder = (files: Record<string, string>) => {
      const dir = mkdtempSync(join(root, 'steps-'));
      for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql);
      return pathToFileURL(`${dir}/`);
    };
    assert.throws(() => readMigrations('sqlite', folder({ '001_a.sql': '', '003_c.sql': '' })), /gap/);
    assert.throws(
      () => readMigrations('sqlite', folder({ '001_a.sql': '', '002_b.sqlite.sql': '' })),
      /one file for each dialect/,
    );
    assert.throws(
      () => readMigrations('postgres', folder({ '001_a.sql': '', '001_a.postgres.sql': '', '001_a.sqlite.sql': '' })),
      /one file for each dialect/,
    );
    assert.throws(() => readMigrations('postgres', folder({ '001_a.sql': '', '001_b.sql': '' })), /two names/);
    mkdirSync(join(root, 'empty'));
    assert.deepEqual(readMigrations('sqlite', pathToFileURL(`${join(root, 'empty')}/`)), []);
  });

  it('renumbers a history by name and leaves a current one alone', () => {
    const migrations = readMigrations('sqlite');
    const current = migrations.map((m) => ({ version: m.version, name: m.name, appliedAt: 1 }));
    assert.equal(renumberedHistory(current, migrations), undefined);
    const old = [
      { version: 3, name: '003_delivery.sql', appliedAt: 1 },
      { version: 4, name: '004_providers.sql', appliedAt: 2 },
      { version: 99, name: '099_from_a_newer_snapgate.sql', appliedAt: 3 },
    ];
    assert.deepEqual(renumberedHistory(old, migrations), [
      { version: 3, name: '003_delivery.sql', appliedAt: 1 },
      { version: 5, name: '005_providers.sql', appliedAt: 2 },
      { version: 99, name: '099_from_a_newer_snapgate.sql', appliedAt: 3 },
    ]);
  });

  it('upgrades a SQLite database migrated under the old numbering, keeping its data', async () => {
    // The database as a gateway before the one sequence left it: the same steps, numbered 1 to 12
    // without 004_merchant_notify.
    const file = join(root, 'old.db');
    const db = new Database(file);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const steps = readMigrations('sqlite').filter((m) => m.name !== '004_merchant_notify.sql');
    steps.forEach((m, i) => {
      db.exec(m.sql);
      const oldName = `${String(i + 1).padStart(3, '0')}_${m.name.slice(4)}`;
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        i + 1,
        oldName,
        1000 + i,
      );
    });
    db.prepare("INSERT INTO settings (key, value) VALUES ('kept', 'yes')").run();
    assert.deepEqual(db.prepare('SELECT name FROM schema_migrations WHERE version = 4').get(), {
      name: '004_providers.sql',
    });
    db.close();

    const store = new SqliteStore({ file });
    assert.equal(await store.getSetting('kept'), 'yes');
    const history = store.db
      .prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version')
      .all() as Array<{
      version: number;
      name: string;
      applied_at: number;
    }>;
    assert.deepEqual(
      history.map((r) => [r.version, r.name]),
      readMigrations('sqlite').map((m) => [m.version, m.name]),
    );
    // What ran before keeps its time; the one step it lacked ran now.
    assert.equal(history.find((r) => r.name === '005_providers.sql')?.applied_at, 1003);
    assert.ok((history.find((r) => r.name === '004_merchant_notify.sql')?.applied_at ?? 0) > 1_000_000);
    await store.close();
    // And it opens again as it is.
    const again = new SqliteStore({ file });
    assert.equal(await again.getSetting('kept'), 'yes');
    await again.close();
  });
});

import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { readMigrations } from '../../src/store/migrations.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestDatabase } from './postgres.ts';
import { postgresRawSql, type RawSql, sqliteRawSql } from './sql-adapters.ts';
import type { StoreUnderTest } from './store-under-test.ts';

/** A database an older snapgate left: `open` is the current store on it, which migrates the rest of the way. */
export interface OldDatabase {
  open(): Promise<Store & { close(): Promise<void> | void }>;
  /** Raw SQL on it (`?` placeholders on both engines), with its foreign keys enforced, for what no store verb may do. */
  raw(): Promise<RawSql>;
  cleanup(): Promise<void>;
}

/**
 * A database of the store under test migrated up to `before` (the migrations of that time), with
 * `rows` written then as that version wrote them (in `dir` for SQLite). On PostgreSQL the ledger's
 * id sequence is moved past rows that name their ids, as the inserts would have left it.
 */
export async function oldDatabase(
  under: StoreUnderTest,
  dir: string,
  before: number,
  rows: readonly string[],
): Promise<OldDatabase> {
  if (under.name === 'SQLite') {
    const file = join(dir, 'old.db');
    const db = new Database(file);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    for (const m of readMigrations('sqlite').filter((m) => m.version <= before)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 1)').run(m.version, m.name);
    }
    for (const row of rows) db.exec(row);
    db.close();
    return {
      open: async () => new SqliteStore({ file }),
      raw: async () => sqliteRawSql(file, { foreignKeys: true }),
      cleanup: async () => undefined,
    };
  }
  const db = await createTestDatabase();
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
  );
  for (const m of readMigrations('postgres').filter((m) => m.version <= before)) {
    await c.query(m.sql);
    await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, 1)', [m.version, m.name]);
  }
  for (const row of rows) await c.query(row);
  if (before >= 15) {
    await c.query(
      `SELECT setval(pg_get_serial_sequence('ledger_entries', 'id'), COALESCE((SELECT max(id) FROM ledger_entries), 1))`,
    );
  }
  await c.end();
  return {
    async open() {
      const store = new PostgresStore({ connectionString: db.url });
      await store.migrate();
      return store;
    },
    raw: () => postgresRawSql(db.url),
    cleanup: db.drop,
  };
}

import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from './gateway.ts';
import { createTestDatabase } from './postgres.ts';

/** Raw SQL on a gateway's own database (`?` placeholders on both engines), for what no door may do. */
export interface RawSql {
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** The rows of a query (PostgreSQL's BIGINT columns come back as text). */
  all(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** A real gateway on a fresh database of the engine, with raw SQL beside it; `close` ends all three. */
export async function gatewayWithRawSql(
  engine: 'SQLite' | 'PostgreSQL',
): Promise<{ gw: TestGateway; raw: RawSql; close(): Promise<void> }> {
  if (engine === 'PostgreSQL') {
    const db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url });
    await store.migrate();
    const gw = await startGateway({ store });
    const raw = await postgresRawSql(db.url);
    return {
      gw,
      raw,
      async close() {
        await raw.close();
        await gw.close();
        await db.drop();
      },
    };
  }
  const gw = await startGateway();
  const raw = sqliteRawSql(join(gw.dir, 'snapgate.db'));
  return {
    gw,
    raw,
    async close() {
      await raw.close();
      await gw.close();
    },
  };
}

/** Raw SQL on a PostgreSQL database, its `?` placeholders numbered as PostgreSQL wants them. */
export async function postgresRawSql(url: string): Promise<RawSql> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const numbered = (sql: string) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  return {
    exec: async (sql, params = []) => void (await client.query(numbered(sql), params)),
    all: async (sql, params = []) => (await client.query(numbered(sql), params)).rows,
    close: () => client.end(),
  };
}

/**
 * Raw SQL on a SQLite file beside its gateway, waiting for the gateway's writes; with
 * `foreignKeys`, its foreign keys are enforced as the gateway's own connections enforce them.
 */
export function sqliteRawSql(file: string, options: { foreignKeys?: boolean } = {}): RawSql {
  const db = new Database(file);
  if (options.foreignKeys) db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  return {
    exec: async (sql, params = []) => void db.prepare(sql).run(...params),
    all: async (sql, params = []) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>,
    close: async () => void db.close(),
  };
}

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
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const numbered = (sql: string) => {
      let n = 0;
      return sql.replace(/\?/g, () => `$${++n}`);
    };
    const raw: RawSql = {
      exec: async (sql, params = []) => void (await client.query(numbered(sql), params)),
      all: async (sql, params = []) => (await client.query(numbered(sql), params)).rows,
      close: () => client.end(),
    };
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
  const db = new Database(join(gw.dir, 'snapgate.db'));
  db.pragma('busy_timeout = 5000');
  const raw: RawSql = {
    exec: async (sql, params = []) => void db.prepare(sql).run(...params),
    all: async (sql, params = []) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>,
    close: async () => void db.close(),
  };
  return {
    gw,
    raw,
    async close() {
      await raw.close();
      await gw.close();
    },
  };
}

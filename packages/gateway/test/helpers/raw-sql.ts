import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from './gateway.ts';
import { createTestDatabase } from './postgres.ts';

/** Raw SQL on a gateway's own database (`?` placeholders on both engines), for what no door may do. */
export interface RawSql {
  exec(sql: string, params?: unknown[]): Promise<void>;
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
    const raw: RawSql = {
      exec: async (sql, params = []) => {
        let n = 0;
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        );
      },
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

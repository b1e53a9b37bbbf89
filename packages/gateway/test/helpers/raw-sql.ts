import { join } from 'node:path';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from './gateway.ts';
import { createTestDatabase } from './postgres.ts';
import { postgresRawSql, type RawSql, sqliteRawSql } from './sql-adapters.ts';

export type { RawSql };

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

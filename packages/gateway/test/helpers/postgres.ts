import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Where the PostgreSQL suite finds a server: trust auth on 127.0.0.1, database `test`. */
export const PG_BASE_URL = process.env.SNAPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh database for one test (dropped by `drop`), so runs never see each other's rows. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `snapgate_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_BASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_BASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

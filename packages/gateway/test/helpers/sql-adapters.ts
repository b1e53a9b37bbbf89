import Database from 'better-sqlite3';
import pg from 'pg';

// Raw SQL on either engine's database, for what no door or store verb may do (tests and benches):
// no gateway here, so a test that needs only a database stays in the unit loop.

/** Raw SQL on a gateway's own database (`?` placeholders on both engines), for what no door may do. */
export interface RawSql {
  exec(sql: string, params?: unknown[]): Promise<void>;
  /** The rows of a query (PostgreSQL's BIGINT columns come back as text). */
  all(sql: string, params?: unknown[]): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
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

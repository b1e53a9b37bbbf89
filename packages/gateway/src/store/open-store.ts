import type { Config } from '../config.ts';
import { reasonOf, StartupError } from '../startup-error.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import { exitForSupervisor } from './sqlite/sqlite-writer.ts';
import type { Store } from './store.ts';

// Errors that may pass: the server is starting, restarting, or not reachable yet.
const TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  '57P03',
]);

/** Where a PostgreSQL URL points, without its credentials. */
function whereOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'SNAPGATE_DATABASE_URL';
  }
}

/**
 * Picks the store from the configuration: PostgreSQL when a URL is set, else the embedded file.
 * PostgreSQL is tried again for `SNAPGATE_DB_CONNECT_TIMEOUT_SEC` while it is unreachable (a
 * database starting with the gateway); what cannot work is said at once, in one line.
 */
export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'sqlitePath'> &
    Partial<Pick<Config, 'dbConnectTimeoutSec' | 'dbStatementTimeoutMs' | 'sqliteWriter'>>,
  events: { onAnnounceFailed?: (error: unknown) => void } = {},
): Promise<Store> {
  if (config.databaseUrl) {
    const { PostgresStore } = await import('./postgres/postgres-store.ts');
    const store = new PostgresStore({
      connectionString: config.databaseUrl,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      onAnnounceFailed: events.onAnnounceFailed,
    });
    const timeoutSec = config.dbConnectTimeoutSec ?? 30;
    const deadline = Date.now() + timeoutSec * 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        await store.migrate();
        return store;
      } catch (e) {
        const code = (e as { code?: string }).code ?? '';
        if (TRANSIENT.has(code) && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(250 * attempt, 2_000)));
          continue;
        }
        await store.close().catch(() => undefined);
        const where = whereOf(config.databaseUrl);
        if (TRANSIENT.has(code) || code === 'ENOTFOUND') {
          throw new StartupError(
            `PostgreSQL at ${where} is unreachable (${reasonOf(e)}; tried for ${timeoutSec} s): start it, fix SNAPGATE_DATABASE_URL, or wait longer with SNAPGATE_DB_CONNECT_TIMEOUT_SEC`,
            { cause: e },
          );
        }
        throw new StartupError(`PostgreSQL at ${where} refused the gateway: ${reasonOf(e)}`, { cause: e });
      }
    }
  }
  // Until the writer thread has opened the file, its failure is a start-up failure, said as one.
  let isStarted = false;
  let store: SqliteStore | undefined;
  try {
    store = new SqliteStore({
      file: config.sqlitePath,
      writer: config.sqliteWriter,
      onWriterLost: (e) => isStarted && exitForSupervisor(e),
    });
    await store.writer.ready;
    isStarted = true;
    return store;
  } catch (e) {
    await store?.close().catch(() => undefined);
    throw new StartupError(
      `cannot open the SQLite database ${config.sqlitePath} (${reasonOf(e)}): set SNAPGATE_DB to a file in a folder the gateway can write`,
      { cause: e },
    );
  }
}

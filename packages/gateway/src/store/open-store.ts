import type { Config } from '../config.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/** Picks the store from the configuration: PostgreSQL when a URL is set, else the embedded file. */
export async function openStore(config: Pick<Config, 'databaseUrl' | 'sqlitePath'>): Promise<Store> {
  if (config.databaseUrl) {
    const { PostgresStore } = await import('./postgres/postgres-store.ts');
    const store = new PostgresStore({ connectionString: config.databaseUrl });
    await store.migrate();
    return store;
  }
  return new SqliteStore({ file: config.sqlitePath });
}

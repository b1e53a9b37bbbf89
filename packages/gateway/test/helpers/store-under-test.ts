import { join } from 'node:path';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createTestDatabase } from './postgres.ts';

/** One suite, run on each store: SQLite files in `npm test`, PostgreSQL in `npm run test:pg`. */
export interface StoreUnderTest {
  name: 'SQLite' | 'PostgreSQL';
  /** For an in-process gateway (`startGateway({ store })`); undefined = its own SQLite file. */
  open(): Promise<{ store: Store | undefined; cleanup: () => Promise<void> }>;
  /** The environment that points a gateway process at a fresh database named `name`. */
  processEnv(dir: string, name: string): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>;
}

const nothing = async () => undefined;

export const SQLITE: StoreUnderTest = {
  name: 'SQLite',
  open: async () => ({ store: undefined, cleanup: nothing }),
  processEnv: async (dir, name) => ({ env: { SNAPGATE_DB: join(dir, `${name}.db`) }, cleanup: nothing }),
};

export const POSTGRES: StoreUnderTest = {
  name: 'PostgreSQL',
  async open() {
    const db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url });
    await store.migrate();
    return { store, cleanup: db.drop };
  },
  async processEnv() {
    const db = await createTestDatabase();
    return { env: { SNAPGATE_DATABASE_URL: db.url }, cleanup: db.drop };
  },
};

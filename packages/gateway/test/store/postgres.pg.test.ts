import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { storeContract } from './contract.ts';

let drop: (() => Promise<void>) | undefined;
storeContract('PostgreSQL', {
  open: async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    const store = new PostgresStore({ connectionString: db.url });
    await store.migrate();
    return store;
  },
  cleanup: async () => drop?.(),
});

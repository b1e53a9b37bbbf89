import { describe, it } from 'node:test';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway } from '../helpers/gateway.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { refundRace } from './refund-race.ts';

describe('concurrent refunds (PostgreSQL)', () => {
  it('never refund more than was paid, and never answer 5xx', async () => {
    const db = await createTestDatabase();
    const store = new PostgresStore({ connectionString: db.url });
    await store.migrate();
    const gw = await startGateway({ store, env: { SNAPGATE_RATE_LIMIT: 'off' } });
    try {
      await refundRace(gw);
    } finally {
      await gw.close();
      await db.drop();
    }
  });
});

import { describe, it } from 'node:test';
import { startGateway } from '../helpers/gateway.ts';
import { refundRace } from './refund-race.ts';

describe('concurrent refunds (SQLite)', () => {
  it('never refund more than was paid, and never answer 5xx', async () => {
    const gw = await startGateway({ env: { SNAPGATE_RATE_LIMIT: 'off' } });
    try {
      await refundRace(gw);
    } finally {
      await gw.close();
    }
  });
});

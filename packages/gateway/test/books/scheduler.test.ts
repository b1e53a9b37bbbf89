// SNAPGATE_SETTLEMENT_SCHEDULE on one gateway: a slot missed while it was down is run at start, and
// `off` runs nothing (docs/books.md#settlements).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSettlementScheduler } from '../../src/books/settlement-scheduler.ts';
import type { Clock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { stopWaitsForWork } from '../helpers/timers.ts';

const MINUTE_MS = 60_000;

async function paidMerchant(gw: Awaited<ReturnType<typeof startGateway>>) {
  const m = await gw.createMerchant({ name: 'Scheduled' });
  const caller = await authenticate(gw.url, m);
  const g = await snapCall(gw.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
    partnerReferenceNo: 'SCHED-1',
    amount: { value: '5000.00', currency: 'IDR' },
  });
  assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
  return m.id;
}

describe('the settlement schedule', () => {
  it('runs the slot it missed as it starts, with that slot as the cutoff', async () => {
    let offsetMs = 0;
    const clock: Clock = { now: () => Date.now() + offsetMs };
    const gw = await startGateway({ clock, env: { SNAPGATE_SETTLEMENT_SCHEDULE: 'daily 00:00' } });
    try {
      const merchantId = await paidMerchant(gw);
      // The next Jakarta midnight has passed (the gateway was down then): starting runs it.
      const midnight = Math.ceil((Date.now() + 7 * 3_600_000) / 86_400_000) * 86_400_000 - 7 * 3_600_000;
      offsetMs = midnight - Date.now() + 5 * MINUTE_MS;
      gw.gateway.settlementScheduler.start();
      let items: Array<{ cutoff: string; net: string }> = [];
      await waitFor('the missed slot’s settlement', async () => {
        items = (await gw.admin('GET', `/settlements?merchantId=${merchantId}`)).body.items;
        return items.length === 1;
      });
      assert.equal(items[0]?.cutoff, new Date(midnight).toISOString());
      assert.equal(items[0]?.net, '5000.00');
      await gw.gateway.settlementScheduler.stop();
    } finally {
      await gw.close();
    }
  });

  it('stops only once the slot being settled is settled (the store is not closed under it)', async () => {
    let release = () => {};
    const slots: Array<number | undefined> = [];
    const scheduler = createSettlementScheduler({
      settlements: {
        run: (input) => {
          slots.push(input.cutoff);
          return new Promise((resolve) => {
            release = () => resolve([]);
          });
        },
      },
      clock: { now: () => Date.now() },
      logger: createLogger('silent'),
      schedule: { kind: 'hourly', minute: 0 },
    });
    scheduler.start(); // the last hour's slot has come: it is settled at once
    await waitFor('the slot being settled', () => slots.length === 1);
    await stopWaitsForWork(
      () => scheduler.stop(),
      () => release(),
    );
    assert.equal(slots.length, 1);
  });

  it('refuses a schedule it cannot read, naming the forms it takes', () => {
    for (const bad of ['daily', 'daily 24:00', 'weekly 00:00', 'hourly 5', 'every minute']) {
      assert.throws(
        () => loadConfig({ SNAPGATE_SETTLEMENT_SCHEDULE: bad }),
        /SNAPGATE_SETTLEMENT_SCHEDULE.*daily HH:MM/s,
        bad,
      );
    }
    assert.deepEqual(loadConfig({ SNAPGATE_SETTLEMENT_SCHEDULE: 'off' }).settlementSchedule, { kind: 'off' });
    assert.deepEqual(loadConfig({}).settlementSchedule, { kind: 'daily', minuteOfDay: 0 });
  });
});

// SNAPGATE_SETTLEMENT_SCHEDULE with two instances on one PostgreSQL database: both run the same slot
// at the same minute, and each merchant gets one settlement of everything it was owed before it
// (docs/books.md#settlements).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/clock.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const MINUTE_MS = 60_000;

describe('the settlement schedule on two instances sharing PostgreSQL', () => {
  let db: { url: string; drop: () => Promise<void> };
  const gateways: TestGateway[] = [];
  /** Both instances read this clock: real time, moved on past the slot when the test says so. */
  let offsetMs = 0;
  const clock: Clock = { now: () => Date.now() + offsetMs };
  /** A whole minute at least two minutes ahead (the payments come well before it): an `hourly :MM` slot. */
  const slotMs = Math.ceil((Date.now() + 2 * MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const minute = String(new Date(slotMs).getUTCMinutes()).padStart(2, '0');

  before(async () => {
    db = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const store = new PostgresStore({ connectionString: db.url });
      await store.migrate();
      gateways.push(await startGateway({ store, clock, env: { SNAPGATE_SETTLEMENT_SCHEDULE: `hourly :${minute}` } }));
    }
  });
  after(async () => {
    for (const gw of gateways) await gw.close();
    await db.drop();
  });

  it('makes one settlement per merchant when both run the slot at once', { timeout: 60_000 }, async () => {
    const [a, b] = gateways as [TestGateway, TestGateway];
    const merchants: string[] = [];
    for (let m = 0; m < 3; m++) {
      const created = await a.createMerchant({ name: `Scheduled ${m}` });
      merchants.push(created.id);
      const caller = await authenticate(a.url, created);
      for (let k = 0; k < 3; k++) {
        const g = await snapCall(a.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
          partnerReferenceNo: `SCHED-${m}-${k}`,
          amount: { value: '1000.00', currency: 'IDR' },
        });
        assert.equal(g.status, 200, g.text);
        // Paid through either instance.
        const payer = k % 2 === 0 ? a : b;
        assert.equal((await payer.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      }
    }
    assert.ok(clock.now() < slotMs, 'every payment is before the slot');
    offsetMs = slotMs - Date.now() + 1_000;
    const made = await Promise.all([
      a.gateway.settlementScheduler.runSlot(slotMs),
      b.gateway.settlementScheduler.runSlot(slotMs),
      a.gateway.settlementScheduler.runSlot(slotMs),
    ]);
    assert.equal(
      made.reduce((x, y) => x + y, 0),
      3,
      'three settlements in all, whoever made them',
    );
    for (const id of merchants) {
      const listed = await b.admin('GET', `/settlements?merchantId=${id}`);
      assert.equal(listed.body.items.length, 1, `merchant ${id}: one settlement`);
      assert.equal(listed.body.items[0].net, '3000.00');
      assert.equal(listed.body.items[0].cutoff, new Date(slotMs).toISOString());
    }
    // The slot run again (a restart catching up) makes nothing more.
    assert.equal(await b.gateway.settlementScheduler.runSlot(slotMs), 0);
    assert.deepEqual((await a.admin('GET', '/ledger/verify')).body.problems, []);
  });
});

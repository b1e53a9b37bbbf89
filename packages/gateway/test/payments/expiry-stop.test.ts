import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/logger.ts';
import { createExpirySweeper } from '../../src/payments/expiry.ts';
import { createStatusChanger } from '../../src/payments/status-change.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { waitFor } from '../helpers/receiver.ts';
import { stopWaitsForWork } from '../helpers/timers.ts';
import { merchant, txn } from '../store/contract.ts';

describe('expiry sweeper: stop', () => {
  it('resolves only once the sweep in progress has ended, and that sweep touches nothing after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-expiry-stop-'));
    const store = new SqliteStore({ file: join(dir, 'stop.db') });
    const logged: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(c, _e, cb) {
          logged.push(String(c));
          cb();
        },
      }),
    );
    try {
      const m = merchant();
      await store.insertMerchant(m);
      // Two QRIS an upstream acquirer issued, both due: each is settled by asking the acquirer.
      const upstream = { providerId: 'acq-1', externalId: 'x-1', validUntil: 1000 };
      const due = [1, 2].map((i) => txn(m.id, { expiresAt: 1000 + i, details: { qrContent: '', upstream } }));
      for (const t of due) await store.insertTransaction(t);
      let release = () => {};
      let hang = true;
      const asked: string[] = [];
      const sweeper = createExpirySweeper({
        store,
        changer: createStatusChanger({ store, firstAttemptDelayMs: 0 }),
        clock: { now: () => 10_000 },
        logger,
        // The first acquirer question hangs until released: the sweep is in progress meanwhile.
        reconcile: (t) => {
          asked.push(t.referenceNo);
          if (!hang) return Promise.resolve();
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        },
      });
      sweeper.start(10);
      await waitFor('the sweep asking the acquirer', () => asked.length === 1);
      await stopWaitsForWork(
        () => sweeper.stop(),
        () => release(),
      );
      assert.deepEqual(asked, [due[0]?.referenceNo], 'the sweep ended before its next transaction');
      // A direct run still sweeps everything due (stop is for the timer's sweeps).
      hang = false;
      assert.equal(await sweeper.runOnce(), 2);
      // Closing the store now leaves no sweep to fail on it.
      await store.close();
      assert.equal(logged.filter((l) => l.includes('expiry sweep failed')).length, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

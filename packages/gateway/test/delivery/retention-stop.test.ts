import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createPruner } from '../../src/delivery/retention.ts';
import { createLogger } from '../../src/logger.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { waitFor } from '../helpers/receiver.ts';
import { stopWaitsForWork } from '../helpers/timers.ts';

describe('retention: stop', () => {
  it('resolves only once the run in progress has ended its batch, and that run prunes no further', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-retention-stop-'));
    const store = new SqliteStore({ file: join(dir, 'stop.db') });
    try {
      // Two idempotency keys past retention, pruned one per batch: two batches unless stopped.
      for (const externalId of ['old-1', 'old-2']) {
        const key = { merchantId: 'm-1', day: '1970-01-01', externalId };
        await store.insertIdempotency({ ...key, requestHash: 'h', httpStatus: 200, responseBody: '{}' }, 1000);
      }
      // The store's own pruning, held at its first batch until released.
      let release = () => {};
      let batches = 0;
      const held = new Proxy(store, {
        get(target, name, receiver) {
          if (name !== 'pruneBefore') return Reflect.get(target, name, receiver);
          return async (before: number, limit: number) => {
            batches++;
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            return target.pruneBefore(before, limit);
          };
        },
      }) as Store;
      const clock = { now: () => Date.now() };
      const pruner = createPruner({
        store: held,
        clock,
        logger: createLogger('silent'),
        retentionDays: 1,
        batch: 1,
        intervalMs: 10,
      });
      pruner.start();
      await waitFor('a run pruning its first batch', () => batches === 1);
      await stopWaitsForWork(
        () => pruner.stop(),
        () => release(),
      );
      assert.equal(batches, 1, 'the run ended after the batch in progress');
      assert.equal((await store.pruneBefore(Date.now(), 10)).idempotencyKeys, 1, 'the second key was left');
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

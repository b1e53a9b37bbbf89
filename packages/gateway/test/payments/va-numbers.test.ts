// VA numbers are reserved 32 at a time per merchant and bank (payments/va-numbers.ts) and handed
// out from memory: every number once, one reservation at a time, and a failed reservation is
// retried by the next VA rather than left stuck. On a real SQLite store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVaNumbers, VA_NUMBERS_RESERVED } from '../../src/payments/va-numbers.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { merchant } from '../store/contract.ts';

describe('VA numbers reserved in blocks', () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-va-numbers-'));
  let store: SqliteStore;
  const m = merchant();
  before(async () => {
    store = new SqliteStore({ file: join(dir, 'va.db') });
    await store.insertMerchant(m);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The store, counting its reservations; `failNext` makes the next one fail. */
  function counting() {
    const calls: number[] = [];
    let failNext = false;
    const s: Pick<Store, 'allocateVirtualAccounts'> = {
      allocateVirtualAccounts: async (merchantId, bankCode, count) => {
        calls.push(count);
        if (failNext) {
          failNext = false;
          throw new Error('disk full');
        }
        return store.allocateVirtualAccounts(merchantId, bankCode, count);
      },
    };
    return { s, calls, failOnce: () => (failNext = true) };
  }

  it('hands out 100 VAs created at once as 100 numbers, counting up, from 4 reservations', async () => {
    const { s, calls } = counting();
    const numbers = createVaNumbers(s);
    const got = await Promise.all(Array.from({ length: 100 }, () => numbers.next(m.id, '777')));
    const customerNos = got.map((g) => g.customerNo);
    assert.equal(new Set(customerNos).size, 100);
    assert.deepEqual(
      [...customerNos].sort(),
      Array.from({ length: 100 }, (_, i) => String(i + 1).padStart(12, '0')),
    );
    assert.equal(new Set(got.map((g) => g.partnerServiceId)).size, 1);
    assert.deepEqual(calls, [VA_NUMBERS_RESERVED, VA_NUMBERS_RESERVED, VA_NUMBERS_RESERVED, VA_NUMBERS_RESERVED]);
  });

  it('a second instance (another reservation holder) never gets a number the first has', async () => {
    const one = createVaNumbers(store);
    const two = createVaNumbers(store);
    const got = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? one : two).next(m.id, '778')));
    assert.equal(new Set(got.map((g) => g.customerNo)).size, 80);
  });

  it('keeps the merchant and bank apart', async () => {
    const numbers = createVaNumbers(store);
    const a = await numbers.next(m.id, '779');
    const b = await numbers.next(m.id, '780');
    assert.notEqual(a.partnerServiceId, b.partnerServiceId);
    assert.equal(a.customerNo, '000000000001');
    assert.equal(b.customerNo, '000000000001');
  });

  it('a failed reservation fails the VAs waiting for it, and the next VA reserves again', async () => {
    const { s, calls, failOnce } = counting();
    const numbers = createVaNumbers(s);
    failOnce();
    const waiting = await Promise.allSettled([numbers.next(m.id, '781'), numbers.next(m.id, '781')]);
    assert.deepEqual(
      waiting.map((w) => w.status),
      ['rejected', 'rejected'],
    );
    const next = await numbers.next(m.id, '781');
    assert.equal(next.customerNo, '000000000001');
    assert.equal(calls.length, 2);
  });
});

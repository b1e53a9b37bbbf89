// A database whose books were written before the running totals and the unsettled queue (migration
// 033): payments, a refund, a settlement paid out, a disbursement. After the upgrade the balance
// (one row now) is exactly what its entries say, and the next settlement takes exactly the entries no
// settlement had taken.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { balanceOf } from '../../src/books/ledger-service.ts';
import { settlementEntry } from '../../src/books/postings.ts';
import { oldDatabase } from '../helpers/old-database.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const BEFORE = 32;
const M = 'm-totals';
const entry = (id: number, at: number, kind: string, cause: string, amountSen: number, feeSen: number, more = '') =>
  `INSERT INTO ledger_entries (id, at, kind, cause, merchant_id, provider_id, reference_no, settlement_id, amount_sen, fee_sen)
   VALUES (${id}, ${at}, '${kind}', '${cause}', '${M}', ${more || 'NULL, NULL, NULL'}, ${amountSen}, ${feeSen})`;

/**
 * What a gateway of migration 032 wrote, through its triggers: three payments of 10,000.00 (fee
 * 70.00), a refund of 2,500.00, a settlement of the first two paid out, a disbursement of 1,000.00
 * (fee 25.00) still on its way.
 */
const OLD_ROWS: string[] = [
  ...[1, 2, 3].map((i) => entry(i, i * 10, 'payment', `payment:R${i}`, 1_000_000, 7_000, `'bank-1', 'R${i}', NULL`)),
  entry(4, 35, 'refund', 'refund:RF1', 250_000, 0, `'bank-1', 'R3', NULL`),
  `INSERT INTO settlements (id, merchant_id, cutoff, status, count, gross_sen, fees_sen, refunds_sen, net_sen, created_at,
     paid_at, bank_reference)
   VALUES ('stl-old', '${M}', 25, 'paid', 2, 2000000, 14000, 0, 1986000, 26, 27, 'TRF-1')`,
  "INSERT INTO settlement_items (entry_id, settlement_id) VALUES (1, 'stl-old'), (2, 'stl-old')",
  entry(5, 26, 'settlement', 'settlement:stl-old', 1_986_000, 0, `NULL, NULL, 'stl-old'`),
  entry(6, 27, 'payout', 'payout:stl-old', 1_986_000, 0, `NULL, NULL, 'stl-old'`),
  entry(7, 40, 'disbursement', 'disbursement:po_old', 100_000, 2_500, `NULL, 'POOLD', NULL`),
];

export function totalsUpgradeSuite(under: StoreUnderTest): void {
  describe(`books written before the running totals, upgraded (${under.name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-totals-upgrade-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('carries every balance over exactly, and queues exactly the entries no settlement took', async () => {
      const old = await oldDatabase(under, dir, BEFORE, OLD_ROWS);
      const store = await old.open();
      try {
        // 3 × 9,930.00 − 2,500.00 − 1,025.00 − 19,860.00 settled; 19,860.00 paid out; fees 210.00 + 25.00.
        const expected = { pendingSen: 640_500n, settlingSen: 0n, paidOutSen: 1_986_000n, feesSen: 23_500n };
        assert.deepEqual(await store.runningTotals(M), expected);
        assert.deepEqual(balanceOf(await store.ledgerTotals(M)), expected, 'the entries say the same');
        assert.deepEqual(await store.merchantsWithUnsettled(100), [M]);
        const made = await store.settleMerchant(
          { id: 'stl-new', merchantId: M, cutoff: 100, at: 100, slot: null },
          (s) => settlementEntry(s, 100),
        );
        assert.deepEqual(
          (await store.settlementEntries('stl-new')).map((e) => e.id).sort(),
          ['3', '4', '7'],
          'the payment, the refund and the disbursement no settlement had taken',
        );
        assert.equal(made?.netSen, 640_500n);
        assert.deepEqual(await store.runningTotals(M), { ...expected, pendingSen: 0n, settlingSen: 640_500n });
        assert.deepEqual(await store.merchantsWithUnsettled(1_000), [], 'the queue is empty');
      } finally {
        await store.close();
        await old.cleanup();
      }
    });
  });
}

// A database whose ledger was written before entries were named by their transactions (migration
// 019): each paid transaction names its payment entry after the upgrade, a refund still finds the
// provider to credit, and the lines read back as they were written; and the search index (migration 022)
// holds its old transactions.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { linesOf } from '../../src/books/postings.ts';
import { oldDatabase } from '../helpers/old-database.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const BEFORE = 18;
const M = 'm-upgrade';
const PAYMENT_LINES =
  '[{"account":"provider:bank-1","debit":1000000,"credit":0},{"account":"merchant:m-upgrade:pending","debit":0,"credit":993000},{"account":"fees","debit":0,"credit":7000}]';
const REFUND_LINES =
  '[{"account":"merchant:m-upgrade:pending","debit":250000,"credit":0},{"account":"provider:bank-1","debit":0,"credit":250000}]';

/** What a gateway of migration 018 wrote: a merchant, two paid transactions, one refunded in part, their entries. */
const OLD_ROWS: string[] = [
  `INSERT INTO merchants (id, name, client_key, client_secret, partner_id, token_signature, callback_signature,
     merchant_name, merchant_city, nmid, mcc, status, created_at, updated_at)
   VALUES ('${M}', 'Upgrade', 'ck-up', 's', 'p-up', 'any', 'hmac-sha512', 'Upgrade', 'JAKARTA', 'ID1', '5999', 'active', 1, 1)`,
  ...['261126000000000001', '261126000000000002'].map(
    (
      ref,
      i,
    ) => `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, seq, amount, currency,
       paid_amount, refunded_amount, fee_amount, bill_number, paid_at, details, created_at, updated_at)
     VALUES ('${ref}', '${M}', 'qris', 'pr-${i}', '00', 2, '10000.00', 'IDR', '10000.00', '${i === 0 ? '2500.00' : '0.00'}',
       '70.00', ${i + 1}, 2, '{}', 1, 2)`,
  ),
  `INSERT INTO refunds (refund_no, reference_no, merchant_id, partner_refund_no, amount, reason, created_at)
   VALUES ('RF0000000000000001', '261126000000000001', '${M}', 'prf-1', '2500.00', NULL, 3)`,
  ...['261126000000000001', '261126000000000002'].map(
    (
      ref,
    ) => `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen, lines)
     VALUES (2, 'payment', 'payment:${ref}', '${M}', 'bank-1', '${ref}', 1000000, 7000, '${PAYMENT_LINES}')`,
  ),
  `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, refund_no, amount_sen, fee_sen, lines)
   VALUES (3, 'refund', 'refund:RF0000000000000001', '${M}', 'bank-1', '261126000000000001', 'RF0000000000000001', 250000, 0,
     '${REFUND_LINES}')`,
];

export function ledgerUpgradeSuite(under: StoreUnderTest): void {
  describe(`a ledger written before 019, upgraded (${under.name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-ledger-upgrade-'));
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('names each payment entry from its transaction, finds refund entries, and reads the lines as written', async () => {
      const old = await oldDatabase(under, dir, BEFORE, OLD_ROWS);
      const store = await old.open();
      try {
        const payment = await store.findPaymentEntry('261126000000000001');
        assert.equal(payment?.cause, 'payment:261126000000000001');
        assert.equal(payment?.providerId, 'bank-1', 'a later refund is credited to this provider');
        assert.deepEqual(
          linesOf(payment as NonNullable<typeof payment>).map((l) => [
            l.account,
            Number(l.debitSen),
            Number(l.creditSen),
          ]),
          (JSON.parse(PAYMENT_LINES) as Array<{ account: string; debit: number; credit: number }>).map((l) => [
            l.account,
            l.debit,
            l.credit,
          ]),
        );
        const ofFirst = await store.listLedgerEntries({ referenceNo: '261126000000000001' }, { limit: 10 });
        assert.deepEqual(
          ofFirst.items.map((e) => e.kind),
          ['refund', 'payment'],
        );
        const refund = ofFirst.items[0] as (typeof ofFirst.items)[number];
        assert.deepEqual(
          linesOf(refund).map((l) => [l.account, Number(l.debitSen), Number(l.creditSen)]),
          (JSON.parse(REFUND_LINES) as Array<{ account: string; debit: number; credit: number }>).map((l) => [
            l.account,
            l.debit,
            l.credit,
          ]),
        );
        const ofSecond = await store.listLedgerEntries({ referenceNo: '261126000000000002' }, { limit: 10 });
        assert.deepEqual(
          ofSecond.items.map((e) => e.cause),
          ['payment:261126000000000002'],
        );
      } finally {
        await store.close();
        await old.cleanup();
      }
    });

    it('finds its old transactions by part of a reference after the search index came (migration 022)', async () => {
      const old = await oldDatabase(under, mkdtempSync(join(dir, 'search-')), BEFORE, OLD_ROWS);
      const store = await old.open();
      try {
        const found = async (reference: string) =>
          (await store.searchTransactions({ reference }, 10, 0)).map((t) => t.referenceNo);
        assert.deepEqual(await found('000000000002'), ['261126000000000002']);
        assert.deepEqual(await found('PR-1'), ['261126000000000002'], 'the partnerReferenceNo, another case');
        assert.deepEqual((await found('2611260000')).sort(), ['261126000000000001', '261126000000000002']);
      } finally {
        await store.close();
        await old.cleanup();
      }
    });
  });
}

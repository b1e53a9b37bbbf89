// Migration 039 takes the two-value CHECK off `kind` (a payment method is one module, src/methods/):
// on SQLite transactions and notifications are rebuilt. A database upgraded with QRIS and VA
// transactions, their history, a refund, a bank's payment flag, notifications and their attempts
// keeps every row as it was and every rule (foreign keys, uniqueness); the store then reads a kind
// it does not know as an error, never as another method's transaction.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { oldDatabase } from '../helpers/old-database.ts';
import type { RawSql } from '../helpers/sql-adapters.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const BEFORE = 38;
const M = 'm-kinds';

const OLD_ROWS: string[] = [
  `INSERT INTO merchants (id, name, client_key, client_secret, partner_id, token_signature, callback_signature,
     merchant_name, merchant_city, nmid, mcc, status, created_at, updated_at)
   VALUES ('${M}', 'Kinds', 'ck-kinds', 'secret', 'P-KINDS', 'any', 'hmac-sha512', 'KINDS', 'JAKARTA', 'ID1', '5812',
     'active', 1, 1)`,
  `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, status_desc, seq, amount,
     currency, paid_amount, refunded_amount, fee_amount, virtual_account_no, bill_number, expires_at, paid_at, details,
     created_at, updated_at, checkout_id)
   VALUES ('260101000000010001', '${M}', 'qris', 'ORDER-1', '04', 'Refunded', 3, '25000.00', 'IDR', '25000.00',
     '25000.00', '175.00', NULL, 100000000001, 1000, 20, '{"qrContent":"000201"}', 10, 30, 'co-qris')`,
  `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, status_desc, seq, amount,
     currency, paid_amount, refunded_amount, fee_amount, virtual_account_no, bill_number, expires_at, paid_at, details,
     created_at, updated_at, checkout_id)
   VALUES ('260101000000020002', '${M}', 'va', 'INV-1', '00', 'Success', 2, NULL, 'IDR', '150000.00', '0.00',
     '0.00', '   1234500000001', 100000000002, 2000, 40, '{"partnerServiceId":"   12345","customerNo":"00000001"}',
     11, 40, NULL)`,
  `INSERT INTO status_history (reference_no, seq, status, status_desc, reason, changed_at)
   VALUES ('260101000000010001', 1, '01', 'Initiated', NULL, 10), ('260101000000010001', 2, '00', 'Success', NULL, 20),
          ('260101000000010001', 3, '04', 'Refunded', 'refund', 30), ('260101000000020002', 1, '01', 'Initiated', NULL, 11),
          ('260101000000020002', 2, '00', 'Success', NULL, 40)`,
  `INSERT INTO refunds (refund_no, reference_no, merchant_id, partner_refund_no, amount, reason, created_at)
   VALUES ('RF0000000112345678', '260101000000010001', '${M}', 'REF-1', '25000.00', 'refund', 30)`,
  `INSERT INTO va_payments (provider_id, payment_request_id, reference_no, http_status, response_body, created_at)
   VALUES ('bank-1', 'PRQ-1', '260101000000020002', 200, '{}', 40)`,
  `INSERT INTO notifications (id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state, attempt_count,
     next_attempt_at, created_at, updated_at, delivered_at)
   VALUES ('17000000000000000001', '260101000000010001', '${M}', 'qris', 3, '04', '{"q":1}', 'delivered', 1, NULL, 30,
     31, 31),
          ('17000000000000000002', '260101000000020002', '${M}', 'va', 2, '00', '{"v":1}', 'retrying', 1, 5000, 40, 41,
     NULL),
          ('17000000000000000003', 'PO0000000001', '${M}', 'transfer', 1, '00', '{"t":1}', 'pending', 0, 6000, 50, 50,
     NULL)`,
  `INSERT INTO notification_attempts (notification_id, attempt_no, worker_id, started_at, url, request_headers,
     response_status, response_body, duration_ms, outcome, error)
   VALUES ('17000000000000000001', 1, 'w', 31, 'https://shop.test/q', '{}', 200, '{}', 3, 'acknowledged', NULL),
          ('17000000000000000002', 1, 'w', 41, 'https://shop.test/v', '{}', 500, '', 4, 'rejected', 'HTTP 500')`,
];

/**
 * The indexes, triggers and constraints of transactions and notifications, but for the CHECK on
 * `kind` (the one thing migration 039 takes away), as the engine reports them.
 */
async function schemaOf(under: StoreUnderTest, sql: RawSql): Promise<string[]> {
  const rows =
    under.name === 'SQLite'
      ? await sql.all(
          `SELECT type || ' ' || name || ': ' || coalesce(sql, '') AS d FROM sqlite_master
           WHERE tbl_name IN ('transactions', 'notifications') AND type IN ('index', 'trigger') ORDER BY name`,
        )
      : await sql.all(
          `SELECT 'index ' || indexname || ': ' || indexdef AS d FROM pg_indexes
             WHERE tablename IN ('transactions', 'notifications')
           UNION ALL SELECT 'trigger ' || tgname || ': ' || pg_get_triggerdef(oid) FROM pg_trigger
             WHERE tgrelid IN ('transactions'::regclass, 'notifications'::regclass) AND NOT tgisinternal
           UNION ALL SELECT 'constraint ' || conname || ': ' || pg_get_constraintdef(oid) FROM pg_constraint
             WHERE conrelid IN ('transactions'::regclass, 'notifications'::regclass) AND conname NOT LIKE '%kind_check'
           ORDER BY 1`,
        );
  return rows.map((r) => String(r.d)).filter((d) => !LATER.some((name) => d.includes(` ${name}`)));
}

/** Indexes later migrations add (044, 045: payment links), not this upgrade's business. */
const LATER = ['transactions_by_payment_link', 'transactions_payment_link_once'];

export function methodKindsUpgradeSuite(under: StoreUnderTest): void {
  describe(`payment methods without a two-value CHECK, upgraded (${under.name})`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-method-kinds-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const dirOf = (name: string) => {
      const d = join(dir, name);
      mkdirSync(d);
      return d;
    };

    it('keeps every transaction, its history, refunds, payment flags, notifications and attempts', async () => {
      const old = await oldDatabase(under, dirOf('rows'), BEFORE, OLD_ROWS);
      const store = await old.open();
      try {
        const qris = await store.findTransaction('260101000000010001');
        assert.equal(qris?.kind, 'qris');
        assert.equal(qris?.refundedAmount, '25000.00');
        assert.equal(qris?.checkoutId, 'co-qris');
        const va = await store.findTransactionByVirtualAccountNo('   1234500000001');
        assert.equal(va?.kind, 'va');
        assert.equal(va?.paidAmount, '150000.00');
        assert.deepEqual(
          (await store.statusHistory('260101000000010001')).map((h) => h.status),
          ['01', '00', '04'],
        );
        assert.equal((await store.findRefund(M, 'REF-1'))?.amount, '25000.00');
        assert.deepEqual(
          (await store.paidTransactionsByReference(['260101000000020002'])).map((p) => [p.kind, p.providerReference]),
          [['va', 'PRQ-1']],
        );
        const notifications = await store.notificationsOf('260101000000020002');
        assert.deepEqual(
          notifications.map((n) => [n.kind, n.state, n.attemptCount]),
          [['va', 'retrying', 1]],
        );
        assert.deepEqual(
          (await store.attemptsOf('17000000000000000001')).map((a) => a.outcome),
          ['acknowledged'],
        );
        assert.deepEqual(
          (await store.notificationsOf('PO0000000001')).map((n) => [n.kind, n.state]),
          [['transfer', 'pending']],
        );
      } finally {
        await store.close();
        await old.cleanup();
      }
    });

    it('keeps the rules, and reads a kind it does not know as an error', async () => {
      const old = await oldDatabase(under, dirOf('rules'), BEFORE, OLD_ROWS);
      const before = await old.raw();
      const schemaBefore = await schemaOf(under, before);
      assert.ok(schemaBefore.length >= 10, schemaBefore.join('\n'));
      await before.close();
      await (await old.open()).close();
      const sql = await old.raw();
      const store = await old.open();
      try {
        assert.deepEqual(await schemaOf(under, sql), schemaBefore, 'every index, trigger and key is there as before');
        await assert.rejects(
          sql.exec(`INSERT INTO status_history (reference_no, seq, status, changed_at) VALUES ('NOPE', 1, '01', 1)`),
          /foreign key/i,
        );
        await assert.rejects(
          sql.exec(`INSERT INTO notification_attempts (notification_id, attempt_no, worker_id, started_at,
              request_headers, duration_ms, outcome) VALUES ('NOPE', 1, 'w', 1, '{}', 1, 'error')`),
          /foreign key/i,
        );
        const txn = (ref: string, kind: string, partnerRef: string) =>
          sql.exec(
            `INSERT INTO transactions (reference_no, merchant_id, kind, partner_reference_no, status, seq, currency,
               bill_number, details, created_at, updated_at) VALUES (?, ?, ?, ?, '01', 1, 'IDR', 1, '{}', 50, 50)`,
            [ref, M, kind, partnerRef],
          );
        await assert.rejects(txn('260101000000030003', 'qris', 'ORDER-1'), /unique/i);
        // No CHECK refuses a method the code does not know: the store refuses to read it as one it does.
        await txn('260101000000040004', 'cheque', 'CHQ-1');
        await assert.rejects(store.findTransaction('260101000000040004'), /unknown payment method "cheque"/);
        // A notification of such a kind stops nothing: it is read as it is, and delivery finds it no URL.
        await sql.exec(
          `INSERT INTO notifications (id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state,
             created_at, updated_at) VALUES ('17000000000000000004', '260101000000040004', ?, 'cheque', 1, '01', '{}',
             'pending', 50, 50)`,
          [M],
        );
        assert.equal((await store.findNotification('17000000000000000004'))?.kind, 'cheque');
      } finally {
        await sql.close();
        await store.close();
        await old.cleanup();
      }
    });
  });
}

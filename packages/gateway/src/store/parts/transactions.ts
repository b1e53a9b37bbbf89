import type {
  IdempotencyKey,
  IdempotencyRecord,
  Page,
  PageRequest,
  RefundRecord,
  StatusHistoryEntry,
  TransactionFilter,
  TransactionKind,
  TransactionRecord,
  VaPaymentRecord,
} from '../../records/records.ts';
import { toPage } from '../cursor.ts';
import {
  historyFromRow,
  idempotencyFromRow,
  listSql,
  refundFromRow,
  transactionFromRow,
  transactionListSpec,
  vaPaymentFromRow,
} from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';

// Transactions as they are read: one by each of its numbers, its status history, the records a
// status change wrote with it (refund, payment flag, idempotency answer). Writing them is each
// engine's own (SQLite's group commit, PostgreSQL's one-statement status change).

const oneTransaction = async (sql: Sql, where: string, params: unknown[]) => {
  const r = await firstRow(sql.all(`SELECT * FROM transactions WHERE ${where}`, params));
  return r ? transactionFromRow(r) : undefined;
};

export const findTransaction = (sql: Sql, referenceNo: string): Promise<TransactionRecord | undefined> =>
  oneTransaction(sql, 'reference_no = ?', [referenceNo]);

export const findTransactionByPartnerRef = (
  sql: Sql,
  merchantId: string,
  kind: TransactionKind,
  partnerReferenceNo: string,
): Promise<TransactionRecord | undefined> =>
  oneTransaction(sql, 'merchant_id = ? AND kind = ? AND partner_reference_no = ?', [
    merchantId,
    kind,
    partnerReferenceNo,
  ]);

export const findTransactionByVirtualAccountNo = (
  sql: Sql,
  virtualAccountNo: string,
): Promise<TransactionRecord | undefined> => oneTransaction(sql, 'virtual_account_no = ?', [virtualAccountNo]);

export const findTransactionByCheckoutId = (sql: Sql, checkoutId: string): Promise<TransactionRecord | undefined> =>
  oneTransaction(sql, 'checkout_id = ?', [checkoutId]);

export async function listTransactions(
  sql: Sql,
  filter: TransactionFilter,
  page: PageRequest,
): Promise<Page<TransactionRecord>> {
  const { text, values } = listSql(transactionListSpec(filter, page), () => '?');
  const rows = await sql.all(text, values);
  return toPage(rows.map(transactionFromRow), page.limit, (t) => [t.createdAt, t.referenceNo]);
}

export async function statusHistory(sql: Sql, referenceNo: string): Promise<StatusHistoryEntry[]> {
  return (await sql.all('SELECT * FROM status_history WHERE reference_no = ? ORDER BY seq', [referenceNo])).map(
    historyFromRow,
  );
}

/** Transactions still open whose due time has come (expiry, or an upstream QRIS to reconcile). */
export async function findDueExpiries(sql: Sql, now: number, limit: number): Promise<TransactionRecord[]> {
  const rows = await sql.all(
    `SELECT * FROM transactions WHERE status IN ('01', '02', '03') AND expires_at IS NOT NULL AND expires_at <= ?
     ORDER BY expires_at LIMIT ?`,
    [now, limit],
  );
  return rows.map(transactionFromRow);
}

export async function findRefund(
  sql: Sql,
  merchantId: string,
  partnerRefundNo: string,
): Promise<RefundRecord | undefined> {
  const r = await firstRow(
    sql.all('SELECT * FROM refunds WHERE merchant_id = ? AND partner_refund_no = ?', [merchantId, partnerRefundNo]),
  );
  return r ? refundFromRow(r) : undefined;
}

export async function findVaPayment(
  sql: Sql,
  providerId: string,
  paymentRequestId: string,
): Promise<VaPaymentRecord | undefined> {
  const r = await firstRow(
    sql.all('SELECT * FROM va_payments WHERE provider_id = ? AND payment_request_id = ?', [
      providerId,
      paymentRequestId,
    ]),
  );
  return r ? vaPaymentFromRow(r) : undefined;
}

/** An answer kept under its X-EXTERNAL-ID, in the caller's transaction (idempotency.ts). */
export async function insertIdempotencyRow(sql: Sql, i: IdempotencyRecord, at: number): Promise<void> {
  await sql.run(
    ...insertRow('idempotency_keys', {
      merchant_id: i.merchantId,
      day: i.day,
      external_id: i.externalId,
      request_hash: i.requestHash,
      http_status: i.httpStatus,
      response_body: i.responseBody,
      created_at: at,
    }),
  );
}

export async function findIdempotency(sql: Sql, key: IdempotencyKey): Promise<IdempotencyRecord | undefined> {
  const r = await firstRow(
    sql.all('SELECT * FROM idempotency_keys WHERE merchant_id = ? AND day = ? AND external_id = ?', [
      key.merchantId,
      key.day,
      key.externalId,
    ]),
  );
  return r ? idempotencyFromRow(r) : undefined;
}

import { transactionFromRow } from '../rows.ts';
import type { Sql } from '../sql.ts';
import type { AttemptMinute, TransactionRecord, TransactionSearch } from '../store.ts';

// What the console's overview and search show: counts over a window, callbacks per minute.

const countsBy = async (sql: Sql, text: string, params: unknown[]): Promise<Record<string, number>> =>
  Object.fromEntries((await sql.all(text, params)).map((r) => [String(r.k), Number(r.n)]));

export const countTransactionsByStatus = (sql: Sql, since: number) =>
  countsBy(sql, 'SELECT status AS k, count(*) AS n FROM transactions WHERE created_at >= ? GROUP BY status', [since]);

export const countNotificationsByState = (sql: Sql) =>
  countsBy(sql, 'SELECT state AS k, count(*) AS n FROM notifications GROUP BY state', []);

export const countInboundByProvider = (sql: Sql, since: number) =>
  countsBy(sql, 'SELECT provider_id AS k, count(*) AS n FROM provider_inbound WHERE at >= ? GROUP BY provider_id', [
    since,
  ]);

export async function attemptsPerMinute(sql: Sql, since: number): Promise<AttemptMinute[]> {
  const rows = await sql.all(
    `SELECT (started_at / 60000) * 60000 AS minute,
            sum(CASE WHEN outcome = 'acknowledged' THEN 1 ELSE 0 END) AS ok,
            sum(CASE WHEN outcome = 'acknowledged' THEN 0 ELSE 1 END) AS failed
     FROM notification_attempts WHERE started_at >= ? GROUP BY 1 ORDER BY 1`,
    [since],
  );
  return rows.map((r) => ({ minute: Number(r.minute), acknowledged: Number(r.ok), failed: Number(r.failed) }));
}

/** The console's transaction search: newest first, a page by offset. */
export async function searchTransactions(
  sql: Sql,
  filter: TransactionSearch,
  limit: number,
  offset: number,
): Promise<TransactionRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, v: unknown, times = 1) => {
    if (v === undefined) return;
    where.push(clause);
    for (let i = 0; i < times; i++) params.push(v);
  };
  add('merchant_id = ?', filter.merchantId);
  add('status = ?', filter.status);
  add('kind = ?', filter.kind);
  add('created_at >= ?', filter.from);
  add('created_at < ?', filter.to);
  add('(reference_no = ? OR partner_reference_no = ? OR virtual_account_no = ?)', filter.reference, 3);
  const rows = await sql.all(
    `SELECT * FROM transactions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, reference_no DESC LIMIT ? OFFSET ?`,
    [...params, limit, offset],
  );
  return rows.map(transactionFromRow);
}

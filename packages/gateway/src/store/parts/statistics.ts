import type { AttemptMinute, TransactionRecord, TransactionSearch } from '../../records/records.ts';
import { transactionFromRow } from '../rows.ts';
import type { Sql } from '../sql.ts';

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

/** `%` and `_` (and the escape itself) as themselves in a LIKE pattern with ESCAPE '\\'. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The references of a transaction as one text, as the PostgreSQL trigram index has them (migration 022). */
const PG_REFS = "lower(reference_no || ' ' || partner_reference_no || ' ' || coalesce(virtual_account_no, ''))";

/**
 * A transaction whose referenceNo, partnerReferenceNo or VA number holds `term`, in any case. Three
 * characters or more read a trigram index (SQLite FTS5, PostgreSQL pg_trgm; measured at a million
 * transactions in docs/benchmarks.md); fewer cannot use one and read the table.
 */
function referenceMatch(sql: Sql, term: string): [string, unknown[]] {
  const like = `%${likeLiteral(term.toLowerCase())}%`;
  if (sql.dialect === 'postgres') return [`${PG_REFS} LIKE ? ESCAPE '\\'`, [like]];
  const likeAny = (t: string) =>
    `(${t}.reference_no LIKE ? ESCAPE '\\' OR ${t}.partner_reference_no LIKE ? ESCAPE '\\' OR ${t}.virtual_account_no LIKE ? ESCAPE '\\')`;
  if ([...term].length >= 3) {
    // A phrase of the term: FTS5's trigram tokenizer finds it as a substring, ignoring case. The
    // transactions still queued for the index (the last second or so) are matched one by one.
    return [
      `reference_no IN (SELECT reference_no FROM transactions_search WHERE refs MATCH ?
         UNION ALL SELECT q.reference_no FROM transactions_search_queue q
           JOIN transactions t ON t.reference_no = q.reference_no WHERE ${likeAny('t')})`,
      [`"${term.replace(/"/g, '""')}"`, like, like, like],
    ];
  }
  return [likeAny('transactions'), [like, like, like]];
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
  if (filter.reference !== undefined) {
    const [clause, values] = referenceMatch(sql, filter.reference);
    where.push(clause);
    params.push(...values);
  }
  const rows = await sql.all(
    `SELECT * FROM transactions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, reference_no DESC LIMIT ? OFFSET ?`,
    [...params, limit, offset],
  );
  return rows.map(transactionFromRow);
}

import { toMinorUnits } from '@snapgate/snap';
import { parseTransactionKind } from '../../methods/index.ts';
import {
  LEDGER_KINDS,
  type LedgerCheckpoint,
  type LedgerEntry,
  type LedgerFilter,
  type LedgerKind,
  type LedgerTotals,
  type NewLedgerEntry,
  type RunningTotals,
} from '../../records/book-records.ts';
import type { Page, PageRequest, PaidTransaction } from '../../records/records.ts';
import { decodeCursor, toPage } from '../cursor.ts';
import { numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';

// The ledger as written and read (docs/books.md#ledger). An entry is posted inside the database
// transaction of what causes it: a status change (each engine's own statement, with the columns
// and values below), a settlement or a payout (store/parts/settlements.ts).

/**
 * Sen as both engines return it: SQLite a number, or a BigInt past 2^53, or exact_sum's text past
 * 2^63; PostgreSQL's BIGINT and sums a string.
 */
export const sen = (v: unknown): bigint => (v === null || v === undefined ? 0n : BigInt(String(v)));

/** The columns of a new entry, in the order LEDGER_INSERT names them. */
export const LEDGER_COLUMNS = [
  'at',
  'kind',
  'cause',
  'merchant_id',
  'provider_id',
  'reference_no',
  'refund_no',
  'settlement_id',
  'amount_sen',
  'fee_sen',
] as const;

/** Each column's value; PostgreSQL's type for a SELECT of parameters. */
export function ledgerCells(e: NewLedgerEntry): Array<[string, unknown, 'text' | 'bigint']> {
  return [
    ['at', e.at, 'bigint'],
    ['kind', e.kind, 'text'],
    ['cause', e.cause, 'text'],
    ['merchant_id', e.merchantId, 'text'],
    ['provider_id', e.providerId, 'text'],
    ['reference_no', e.referenceNo, 'text'],
    ['refund_no', e.refundNo, 'text'],
    ['settlement_id', e.settlementId, 'text'],
    ['amount_sen', e.amountSen.toString(), 'bigint'],
    ['fee_sen', e.feeSen.toString(), 'bigint'],
  ];
}

export const LEDGER_INSERT = `INSERT INTO ledger_entries (${LEDGER_COLUMNS.join(', ')})
  VALUES (${LEDGER_COLUMNS.map(() => '?').join(', ')})`;

export const ledgerValues = (e: NewLedgerEntry): unknown[] => ledgerCells(e).map(([, v]) => v);

export function ledgerEntryFromRow(r: Row): LedgerEntry {
  return {
    id: String(r.id),
    at: Number(r.at),
    kind: String(r.kind) as LedgerKind,
    cause: String(r.cause),
    merchantId: String(r.merchant_id),
    providerId: strOrNull(r.provider_id),
    referenceNo: strOrNull(r.reference_no),
    refundNo: strOrNull(r.refund_no),
    settlementId: strOrNull(r.settlement_id),
    amountSen: sen(r.amount_sen),
    feeSen: sen(r.fee_sen),
  };
}

export async function postLedgerEntry(sql: Sql, entry: NewLedgerEntry): Promise<LedgerEntry> {
  const r = await firstRow(sql.all(`${LEDGER_INSERT} RETURNING *`, ledgerValues(entry)));
  return ledgerEntryFromRow(r as Row);
}

/** A transaction's payment entry, if it has one (the transaction names it). */
export async function findPaymentEntry(sql: Sql, referenceNo: string): Promise<LedgerEntry | undefined> {
  const r = await firstRow(
    sql.all(
      'SELECT e.* FROM transactions t JOIN ledger_entries e ON e.id = t.payment_entry_id WHERE t.reference_no = ?',
      [referenceNo],
    ),
  );
  return r ? ledgerEntryFromRow(r) : undefined;
}

/** The ids of a transaction's entries: its payment entry (named by the transaction), its refunds'. */
const ENTRIES_OF_TRANSACTION = `id IN (SELECT payment_entry_id FROM transactions WHERE reference_no = ?
  UNION ALL SELECT id FROM ledger_entries WHERE kind = 'refund' AND reference_no = ?)`;

/**
 * What a payment's commit adds after its entry: the transaction names the entry, once. The guarded
 * status change reaches 00 once; a transaction that already names one refuses another.
 */
export const LINK_PAYMENT_ENTRY =
  'UPDATE transactions SET payment_entry_id = ? WHERE reference_no = ? AND payment_entry_id IS NULL';

/** Newest first (by id), filtered. */
export async function listLedgerEntries(sql: Sql, filter: LedgerFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    values.push(value);
  };
  if (filter.merchantId !== undefined) add('merchant_id = ?', filter.merchantId);
  if (filter.referenceNo !== undefined) {
    where.push(ENTRIES_OF_TRANSACTION);
    values.push(filter.referenceNo, filter.referenceNo);
  }
  if (filter.kind !== undefined) add('kind = ?', filter.kind);
  if (filter.providerId !== undefined) add('provider_id = ?', filter.providerId);
  if (filter.since !== undefined) add('at >= ?', filter.since);
  if (filter.until !== undefined) add('at < ?', filter.until);
  if (page.cursor) add('id < ?', decodeCursor(page.cursor)[0]);
  values.push(page.limit + 1);
  const rows = await sql.all(
    `SELECT * FROM ledger_entries ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
    values,
  );
  return toPage(rows.map(ledgerEntryFromRow), page.limit, (e) => [Number(e.id), '']);
}

/** Every entry in id order from `afterId` (ledger verification reads the whole journal in pages). */
export async function scanLedger(sql: Sql, afterId: number, limit: number): Promise<LedgerEntry[]> {
  const rows = await sql.all('SELECT * FROM ledger_entries WHERE id > ? ORDER BY id LIMIT ?', [afterId, limit]);
  return rows.map(ledgerEntryFromRow);
}

/** A merchant's entries summed by kind. */
export async function ledgerTotals(sql: Sql, merchantId: string): Promise<LedgerTotals> {
  const rows = await sql.all(
    `SELECT kind, count(*) AS n, exact_sum(amount_sen) AS amount, exact_sum(fee_sen) AS fee FROM ledger_entries
     WHERE merchant_id = ? GROUP BY kind`,
    [merchantId],
  );
  return ledgerTotalsOf(rows, 'amount', 'fee');
}

/** Entries summed by kind, from rows of `kind`, `n` and the sums in the columns named (every kind, 0 for none). */
function ledgerTotalsOf(rows: Row[], amount: string, fee: string): LedgerTotals {
  const totals = Object.fromEntries(
    LEDGER_KINDS.map((k) => [k, { count: 0, amountSen: 0n, feeSen: 0n }]),
  ) as LedgerTotals;
  for (const r of rows) {
    totals[String(r.kind) as LedgerKind] = { count: Number(r.n), amountSen: sen(r[amount]), feeSen: sen(r[fee]) };
  }
  return totals;
}

/**
 * Locks the merchant's balance (stripe 0 of its running totals, migration 037), creating it when the
 * merchant has none yet. A settlement and a disbursement lock it first, so of those two at once each
 * waits for the one before; payments move other stripes and do not wait (ADR 0015).
 *
 * The lock order is stripe 0, then the others (foldStripes). A transaction that posts a payment entry
 * (stripe id mod 16) must post no other entry of the same merchant after it: payment then refund, or
 * two payments, would lock in the other order and deadlock against a settlement's fold.
 */
export async function lockBalance(sql: Sql, merchantId: string): Promise<void> {
  await sql.run(
    `INSERT INTO merchant_unsettled (merchant_id, stripe, volume_sen, pending_sen) VALUES (?, 0, 0, 0)
     ON CONFLICT (merchant_id, stripe) DO UPDATE SET pending_sen = merchant_unsettled.pending_sen`,
    [merchantId],
  );
}

/**
 * With the balance locked (lockBalance): the merchant's other stripes folded into stripe 0, each
 * taken whole as its last payment left it (a payment on it meanwhile is waited for), so no stripe
 * holds more than what came since the last fold. A payment whose stripe row is new and not yet
 * committed is not seen and keeps its row until the next fold; the sums stay exact either way.
 */
export async function foldStripes(sql: Sql, merchantId: string): Promise<void> {
  const rows = await sql.all(
    `DELETE FROM merchant_unsettled WHERE merchant_id = ? AND stripe <> 0
     RETURNING volume_sen, pending_sen, settling_sen, paid_out_sen, fees_sen`,
    [merchantId],
  );
  if (rows.length === 0) return;
  const total = (column: string) => rows.reduce((s, r) => s + sen(r[column]), 0n).toString();
  await sql.run(
    `UPDATE merchant_unsettled SET volume_sen = volume_sen + ?, pending_sen = pending_sen + ?,
       settling_sen = settling_sen + ?, paid_out_sen = paid_out_sen + ?, fees_sen = fees_sen + ?
     WHERE merchant_id = ? AND stripe = 0`,
    [
      total('volume_sen'),
      total('pending_sen'),
      total('settling_sen'),
      total('paid_out_sen'),
      total('fees_sen'),
      merchantId,
    ],
  );
}

/** The running totals' columns summed over the merchant's stripes (one row; zeros without any). */
const TOTALS_SUMS = `exact_sum(pending_sen) AS pending_sen, exact_sum(settling_sen) AS settling_sen,
  exact_sum(paid_out_sen) AS paid_out_sen, exact_sum(fees_sen) AS fees_sen`;

/** A merchant's running totals from its stripes summed; zero without any. */
const runningTotalsOf = (r: Row | undefined): RunningTotals => ({
  pendingSen: sen(r?.pending_sen),
  settlingSen: sen(r?.settling_sen),
  paidOutSen: sen(r?.paid_out_sen),
  feesSen: sen(r?.fees_sen),
});

/**
 * A merchant's running totals (migrations 033, 037): its balance as the ledger's inserts left it, at
 * most 16 rows, whatever the size of its history. Zero for a merchant without entries.
 */
export async function runningTotals(sql: Sql, merchantId: string): Promise<RunningTotals> {
  const r = await firstRow(
    sql.all(`SELECT ${TOTALS_SUMS} FROM merchant_unsettled WHERE merchant_id = ?`, [merchantId]),
  );
  return runningTotalsOf(r);
}

/** Every merchant that has an entry. */
export async function ledgerMerchants(sql: Sql): Promise<string[]> {
  return (await sql.all('SELECT DISTINCT merchant_id FROM ledger_entries ORDER BY merchant_id')).map((r) =>
    String(r.merchant_id),
  );
}

/** The provider reference a paid transaction is known by: its acquirer's or wallet's reference, or the bank's flag. */
function paidTransactionFromRow(r: Row): PaidTransaction {
  let providerReference = strOrNull(r.payment_request_id);
  if (providerReference === null) {
    // A QRIS's acquirer reference, or an e-wallet payment's wallet reference, is in its details (a
    // VA's is its bank's flag, above). SQLite keeps details as JSON text, PostgreSQL as jsonb (read
    // back as an object).
    const details = (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as {
      acquirerReferenceNo?: string | null;
      walletReferenceNo?: string | null;
    };
    providerReference = details.acquirerReferenceNo ?? details.walletReferenceNo ?? null;
  }
  return {
    referenceNo: String(r.reference_no),
    partnerReferenceNo: String(r.partner_reference_no),
    merchantId: String(r.merchant_id),
    kind: parseTransactionKind(r.kind),
    status: String(r.status),
    amount: strOrNull(r.amount),
    paidAmount: strOrNull(r.paid_amount),
    feeAmount: String(r.fee_amount),
    paidAt: numOrNull(r.paid_at),
    providerReference,
    paymentEntryId: r.payment_entry_id === null || r.payment_entry_id === undefined ? null : String(r.payment_entry_id),
  };
}

const PAID_COLUMNS = `t.reference_no, t.partner_reference_no, t.merchant_id, t.kind, t.status, t.amount, t.paid_amount, t.fee_amount, t.payment_entry_id,
  t.paid_at, t.details, (SELECT min(v.payment_request_id) FROM va_payments v WHERE v.reference_no = t.reference_no) AS payment_request_id`;

/** Transactions by referenceNo, as reconciliation reads them. */
export async function paidTransactionsByReference(sql: Sql, referenceNos: string[]): Promise<PaidTransaction[]> {
  const found: PaidTransaction[] = [];
  for (let i = 0; i < referenceNos.length; i += 500) {
    const chunk = referenceNos.slice(i, i + 500);
    const rows = await sql.all(
      `SELECT ${PAID_COLUMNS} FROM transactions t WHERE t.reference_no IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
    );
    found.push(...rows.map(paidTransactionFromRow));
  }
  return found;
}

/**
 * Transactions a provider collected, by their payment entries at or after `since` and before
 * `until`, a page at a time in the entries' order (a busy provider's day is more than one read
 * should hold the event loop for).
 */
export async function paidTransactionsOfProvider(
  sql: Sql,
  providerId: string,
  since: number,
  until: number,
  page: PageRequest,
): Promise<Page<PaidTransaction>> {
  const [afterAt, afterId] = page.cursor ? decodeCursor(page.cursor) : [since, '0'];
  const rows = await sql.all(
    `SELECT ${PAID_COLUMNS}, e.at AS entry_at, e.id AS entry_id
     FROM ledger_entries e JOIN transactions t ON t.reference_no = e.reference_no
     WHERE e.kind = 'payment' AND e.provider_id = ? AND e.at >= ? AND e.at < ? AND (e.at > ? OR (e.at = ? AND e.id > ?))
     ORDER BY e.at, e.id LIMIT ?`,
    [providerId, since, until, afterAt, afterAt, Number(afterId), page.limit + 1],
  );
  const { items, nextCursor } = toPage(rows, page.limit, (r) => [Number(r.entry_at), String(r.entry_id)]);
  return { items: items.map(paidTransactionFromRow), nextCursor };
}

/**
 * Transactions paid (00, or 04 after it) at or after `since`, a page at a time in the order they
 * were paid (verification; migration 036's index, so the cost is what was paid since).
 */
export async function paidTransactionsSince(
  sql: Sql,
  since: number,
  page: PageRequest,
): Promise<Page<PaidTransaction>> {
  const [afterAt, afterRef] = page.cursor ? decodeCursor(page.cursor) : [since, ''];
  const rows = await sql.all(
    `SELECT ${PAID_COLUMNS} FROM transactions t
     WHERE t.paid_at IS NOT NULL AND t.paid_at >= ? AND (t.paid_at > ? OR (t.paid_at = ? AND t.reference_no > ?))
       AND t.status IN ('00', '04')
     ORDER BY t.paid_at, t.reference_no LIMIT ?`,
    [since, afterAt, afterAt, afterRef, page.limit + 1],
  );
  const { items, nextCursor } = toPage(rows, page.limit, (r) => [Number(r.paid_at), String(r.reference_no)]);
  return { items: items.map(paidTransactionFromRow), nextCursor };
}

/** Refunds of transactions paid at or after `since`, summed per merchant (verification). */
export async function refundsSince(sql: Sql, since: number): Promise<Map<string, bigint>> {
  const rows = await sql.all(
    `SELECT r.merchant_id, r.amount FROM refunds r JOIN transactions t ON t.reference_no = r.reference_no
     WHERE t.paid_at >= ?`,
    [since],
  );
  const sums = new Map<string, bigint>();
  for (const r of rows) {
    const amount = toMinorUnits(String(r.amount));
    sums.set(String(r.merchant_id), (sums.get(String(r.merchant_id)) ?? 0n) + amount);
  }
  return sums;
}

/** Which causes exist for the entries verification checks: refunds, settlements, paid-out settlements. */
export async function knownCauses(sql: Sql): Promise<{ refunds: Set<string>; settlements: Map<string, string> }> {
  const refunds = new Set((await sql.all('SELECT refund_no FROM refunds')).map((r) => String(r.refund_no)));
  const settlements = new Map(
    (await sql.all('SELECT id, status FROM settlements')).map((r) => [String(r.id), String(r.status)] as const),
  );
  return { refunds, settlements };
}

/** The latest checkpoint of a clean verification (migration 035), if any. */
export async function latestLedgerCheckpoint(sql: Sql): Promise<LedgerCheckpoint | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM ledger_checkpoints ORDER BY id DESC LIMIT 1'));
  if (!r) return undefined;
  const accounts = JSON.parse(String(r.account_sums)) as Record<string, string>;
  const merchants = JSON.parse(String(r.merchant_sums)) as Record<string, { paidOut: string; fees: string }>;
  return {
    throughEntryId: Number(r.through_entry_id),
    entries: Number(r.entries),
    paidThrough: Number(r.paid_through),
    accounts: new Map(Object.entries(accounts).map(([k, v]) => [k, BigInt(v)])),
    merchants: new Map(
      Object.entries(merchants).map(([k, v]) => [k, { paidOutSen: BigInt(v.paidOut), feesSen: BigInt(v.fees) }]),
    ),
    at: Number(r.at),
  };
}

export async function saveLedgerCheckpoint(sql: Sql, cp: LedgerCheckpoint): Promise<void> {
  await sql.run(
    `INSERT INTO ledger_checkpoints (through_entry_id, entries, paid_through, account_sums, merchant_sums, at)
     VALUES (?, ?, ?, ?, ?, ?)`,
    [
      cp.throughEntryId,
      cp.entries,
      cp.paidThrough,
      JSON.stringify(Object.fromEntries([...cp.accounts].map(([k, v]) => [k, v.toString()]))),
      JSON.stringify(
        Object.fromEntries(
          [...cp.merchants].map(([k, v]) => [k, { paidOut: v.paidOutSen.toString(), fees: v.feesSen.toString() }]),
        ),
      ),
      cp.at,
    ],
  );
}

const inList = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Which of these refund numbers exist. */
export async function knownRefunds(sql: Sql, refundNos: string[]): Promise<Set<string>> {
  if (refundNos.length === 0) return new Set();
  const rows = await sql.all(
    `SELECT refund_no FROM refunds WHERE refund_no IN (${inList(refundNos.length)})`,
    refundNos,
  );
  return new Set(rows.map((r) => String(r.refund_no)));
}

/** The status of each of these settlements that exists. */
export async function settlementStatuses(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all(`SELECT id, status FROM settlements WHERE id IN (${inList(ids.length)})`, ids);
  return new Map(rows.map((r) => [String(r.id), String(r.status)] as const));
}

/** The state of each of these payouts that exists. */
export async function payoutStates(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.all(`SELECT id, state FROM payouts WHERE id IN (${inList(ids.length)})`, ids);
  return new Map(rows.map((r) => [String(r.id), String(r.state)] as const));
}

/**
 * A merchant's running totals and its entries summed by kind, read by one statement: one snapshot,
 * so they agree unless the totals are wrong, whatever commits meanwhile.
 */
export async function totalsAgainstEntries(
  sql: Sql,
  merchantId: string,
): Promise<{ totals: RunningTotals; entries: LedgerTotals }> {
  // The kinds' sums come in the first two sum columns (the union takes the first select's names).
  const rows = await sql.all(
    `SELECT 'totals' AS kind, 0 AS n, ${TOTALS_SUMS}
       FROM merchant_unsettled WHERE merchant_id = ?
     UNION ALL
     SELECT kind, count(*), exact_sum(amount_sen), exact_sum(fee_sen), 0, 0
       FROM ledger_entries WHERE merchant_id = ? GROUP BY kind`,
    [merchantId, merchantId],
  );
  return {
    totals: runningTotalsOf(rows.find((r) => r.kind === 'totals')),
    entries: ledgerTotalsOf(
      rows.filter((r) => r.kind !== 'totals'),
      'pending_sen',
      'settling_sen',
    ),
  };
}

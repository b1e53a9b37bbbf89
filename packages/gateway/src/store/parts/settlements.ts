import type {
  LedgerEntry,
  NewLedgerEntry,
  PayoutOutcome,
  SettlementFilter,
  SettlementRecord,
  SettlementRun,
} from '../../records/book-records.ts';
import { numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { foldStripes, ledgerEntryFromRow, lockBalance, postLedgerEntry, sen } from './ledger.ts';

// Settlements (docs/books.md#settlements); reconciliation runs are in reconciliations.ts. A
// settlement run and a payout are each one database transaction (the store's `transaction`), with
// their ledger entry.

export function settlementFromRow(r: Row): SettlementRecord {
  return {
    id: String(r.id),
    merchantId: String(r.merchant_id),
    cutoff: Number(r.cutoff),
    status: r.status === 'paid' || r.status === 'paying' ? r.status : 'open',
    count: Number(r.count),
    grossSen: sen(r.gross_sen),
    feesSen: sen(r.fees_sen),
    refundsSen: sen(r.refunds_sen),
    disbursedSen: sen(r.disbursed_sen),
    returnedSen: sen(r.returned_sen),
    netSen: sen(r.net_sen),
    createdAt: Number(r.created_at),
    paidAt: numOrNull(r.paid_at),
    bankReference: strOrNull(r.bank_reference),
    slot: strOrNull(r.slot),
    payoutId: strOrNull(r.payout_id),
    lastPayoutError: strOrNull(r.last_payout_error),
  };
}

/**
 * Which queued entries a settlement takes: those before its cutoff, and every disbursement asked
 * before it is made, whatever the cutoff: that money has left the merchant's pending balance
 * already, and a settlement that left it out would pay it to the merchant a second time. (A queue
 * row a settlement by an instance of an older version took stays queued; NOT EXISTS skips it.)
 */
const TAKEN = `(u.at < ? OR e.kind = 'disbursement')`;

/**
 * What an entry a settlement takes adds to its net. It takes what moves a merchant's pending
 * balance but settlements: payments, refunds, disbursements and returned ones (the unsettled queue
 * holds exactly those, migration 033).
 */
const NET_OF_ENTRY = `CASE e.kind WHEN 'payment' THEN e.amount_sen - e.fee_sen
  WHEN 'refund' THEN -e.amount_sen
  WHEN 'disbursement' THEN -(e.amount_sen + e.fee_sen)
  ELSE e.amount_sen + e.fee_sen END`;

/**
 * Merchants with entries before `cutoff` (payments, refunds, disbursements) that no settlement has
 * taken yet: read from the unsettled queue (migration 033) through its merchant index (migration
 * 038), so it costs what is unsettled.
 */
export async function merchantsWithUnsettled(sql: Sql, cutoff: number): Promise<string[]> {
  const rows = await sql.all('SELECT DISTINCT merchant_id FROM unsettled_entries WHERE at < ? ORDER BY merchant_id', [
    cutoff,
  ]);
  return rows.map((r) => String(r.merchant_id));
}

/**
 * The unsettled queue against the journal (the full verification): an entry a settlement will take
 * that is neither in the queue nor in a settlement (it would never be settled), or a queue row whose
 * entry a settlement already took (it would be taken twice). One statement: one snapshot, so a
 * settlement committing meanwhile is seen whole or not at all. At most `limit` rows.
 */
export async function unsettledQueueProblems(
  sql: Sql,
  limit: number,
): Promise<Array<{ entryId: string; merchantId: string; problem: 'missing' | 'taken' }>> {
  const rows = await sql.all(
    `SELECT e.id AS entry_id, e.merchant_id, 'missing' AS problem FROM ledger_entries e
     WHERE e.kind IN ('payment', 'refund', 'disbursement', 'disbursement_returned')
       AND NOT EXISTS (SELECT 1 FROM unsettled_entries u WHERE u.entry_id = e.id)
       AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = e.id)
     UNION ALL
     SELECT u.entry_id, u.merchant_id, 'taken' AS problem FROM unsettled_entries u
     WHERE EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = u.entry_id)
     LIMIT ?`,
    [limit],
  );
  return rows.map((r) => ({
    entryId: String(r.entry_id),
    merchantId: String(r.merchant_id),
    problem: r.problem === 'taken' ? 'taken' : 'missing',
  }));
}

/**
 * Inside a transaction that holds the settlement lock: takes every payment, refund, disbursement and
 * returned disbursement entry of the merchant before the cutoff that no settlement has taken, when
 * they add up to more than zero, into a new settlement with its ledger entry (pending → settling).
 * The merchant's balance row is written first, so a disbursement asked meanwhile waits for this
 * settlement and is funded from what it leaves (store/parts/payouts.ts). The entries are taken
 * first and the sums read from what was taken, so a payment committing meanwhile is either in it
 * whole or left pending. `undefined`: nothing to settle, or this scheduled run already settled the
 * merchant.
 */
export async function settleMerchant(
  sql: Sql,
  run: SettlementRun,
  entryFor: (settlement: SettlementRecord) => NewLedgerEntry,
): Promise<SettlementRecord | undefined> {
  if (run.slot !== null) {
    const done = await firstRow(
      sql.all('SELECT 1 AS done FROM settlements WHERE merchant_id = ? AND slot = ?', [run.merchantId, run.slot]),
    );
    if (done) return undefined;
  }
  await lockBalance(sql, run.merchantId);
  // What would be taken, summed by the database (the entries are read only once taken, below).
  const owed = (await firstRow(
    sql.all(
      `SELECT count(*) AS n, exact_sum(${NET_OF_ENTRY}) AS net
       FROM unsettled_entries u JOIN ledger_entries e ON e.id = u.entry_id
       WHERE u.merchant_id = ? AND ${TAKEN}
         AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = u.entry_id)`,
      [run.merchantId, run.cutoff],
    ),
  )) as Row;
  if (Number(owed.n) === 0 || sen(owed.net) <= 0n) return undefined;
  await foldStripes(sql, run.merchantId);
  await sql.run(
    `INSERT INTO settlements (id, merchant_id, cutoff, status, count, gross_sen, fees_sen, refunds_sen, net_sen,
       created_at, slot)
     VALUES (?, ?, ?, 'open', 0, 0, 0, 0, 0, ?, ?)`,
    [run.id, run.merchantId, run.cutoff, run.at, run.slot],
  );
  // Taken by id, under the same conditions: what another transaction committed since the read above
  // is taken too, and the sums below are read from what was taken.
  await sql.run(
    `INSERT INTO settlement_items (entry_id, settlement_id)
     SELECT u.entry_id, ? FROM unsettled_entries u JOIN ledger_entries e ON e.id = u.entry_id
     WHERE u.merchant_id = ? AND ${TAKEN}
       AND NOT EXISTS (SELECT 1 FROM settlement_items i WHERE i.entry_id = u.entry_id)`,
    [run.id, run.merchantId, run.cutoff],
  );
  // Taken: out of the queue.
  await sql.run(
    `DELETE FROM unsettled_entries
     WHERE entry_id IN (SELECT entry_id FROM settlement_items WHERE settlement_id = ?)`,
    [run.id],
  );
  const sums = (await firstRow(
    sql.all(
      `SELECT
         sum(CASE WHEN e.kind = 'payment' THEN 1 ELSE 0 END) AS count,
         exact_sum(CASE WHEN e.kind = 'payment' THEN e.amount_sen ELSE 0 END) AS gross,
         exact_sum(CASE WHEN e.kind = 'payment' THEN e.fee_sen ELSE 0 END) AS fees,
         exact_sum(CASE WHEN e.kind = 'refund' THEN e.amount_sen ELSE 0 END) AS refunds,
         exact_sum(CASE WHEN e.kind = 'disbursement' THEN e.amount_sen + e.fee_sen ELSE 0 END) AS disbursed,
         exact_sum(CASE WHEN e.kind = 'disbursement_returned' THEN e.amount_sen + e.fee_sen ELSE 0 END) AS returned
       FROM settlement_items i JOIN ledger_entries e ON e.id = i.entry_id WHERE i.settlement_id = ?`,
      [run.id],
    ),
  )) as Row;
  const gross = sen(sums.gross);
  const fees = sen(sums.fees);
  const refunds = sen(sums.refunds);
  const disbursed = sen(sums.disbursed);
  const returned = sen(sums.returned);
  const r = await firstRow(
    sql.all(
      `UPDATE settlements SET count = ?, gross_sen = ?, fees_sen = ?, refunds_sen = ?, disbursed_sen = ?,
         returned_sen = ?, net_sen = ? WHERE id = ?
       RETURNING *`,
      [
        Number(sums.count ?? 0),
        gross.toString(),
        fees.toString(),
        refunds.toString(),
        disbursed.toString(),
        returned.toString(),
        (gross - fees - refunds - disbursed + returned).toString(),
        run.id,
      ],
    ),
  );
  const settlement = settlementFromRow(r as Row);
  if (settlement.netSen <= 0n) throw new RangeError(`settlement ${run.id} would pay out ${settlement.netSen} sen`);
  await postLedgerEntry(sql, entryFor(settlement));
  return settlement;
}

export async function findSettlement(sql: Sql, id: string): Promise<SettlementRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM settlements WHERE id = ?', [id]));
  return r ? settlementFromRow(r) : undefined;
}

/** Newest first; at most `limit`. */
export async function listSettlements(sql: Sql, filter: SettlementFilter, limit: number): Promise<SettlementRecord[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (filter.merchantId !== undefined) {
    where.push('merchant_id = ?');
    values.push(filter.merchantId);
  }
  if (filter.status !== undefined) {
    where.push('status = ?');
    values.push(filter.status);
  }
  values.push(limit);
  const rows = await sql.all(
    `SELECT * FROM settlements ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, id DESC LIMIT ?`,
    values,
  );
  return rows.map(settlementFromRow);
}

/** The entries a settlement took (payments, refunds, disbursements), oldest first. */
export async function settlementEntries(sql: Sql, id: string): Promise<LedgerEntry[]> {
  const rows = await sql.all(
    `SELECT e.* FROM settlement_items i JOIN ledger_entries e ON e.id = i.entry_id
     WHERE i.settlement_id = ? ORDER BY e.at, e.id`,
    [id],
  );
  return rows.map(ledgerEntryFromRow);
}

/** A page of a settlement's entries in the order they were written, after entry `afterId` (keyset). */
export async function settlementEntriesPage(
  sql: Sql,
  id: string,
  afterId: number,
  limit: number,
): Promise<LedgerEntry[]> {
  const rows = await sql.all(
    `SELECT e.* FROM settlement_items i JOIN ledger_entries e ON e.id = i.entry_id
     WHERE i.settlement_id = ? AND i.entry_id > ? ORDER BY i.entry_id LIMIT ?`,
    [id, afterId, limit],
  );
  return rows.map(ledgerEntryFromRow);
}

/** Marks an open settlement paid with its payout entry (settling → cash), in one transaction. */
export async function payOut(
  sql: Sql,
  id: string,
  bankReference: string,
  at: number,
  entryFor: (settlement: SettlementRecord) => NewLedgerEntry,
): Promise<PayoutOutcome> {
  const r = await firstRow(
    sql.all(
      `UPDATE settlements SET status = 'paid', paid_at = ?, bank_reference = ? WHERE id = ? AND status = 'open'
       RETURNING *`,
      [at, bankReference, id],
    ),
  );
  if (!r) {
    const existing = await findSettlement(sql, id);
    return existing ? { outcome: 'already-paid', settlement: existing } : { outcome: 'not-found' };
  }
  const settlement = settlementFromRow(r);
  await postLedgerEntry(sql, entryFor(settlement));
  return { outcome: 'paid', settlement };
}

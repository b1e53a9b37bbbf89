import type { NewLedgerEntry, SettlementRecord } from '../../records/book-records.ts';
import type {
  PayoutChange,
  PayoutExchangeRecord,
  PayoutFilter,
  PayoutRecord,
  PayoutState,
} from '../../records/payout-records.ts';
import { num, numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';
import { lockBalance, postLedgerEntry, runningTotals, sen } from './ledger.ts';
import { findSettlement, settlementFromRow } from './settlements.ts';

// Payouts through the bank (docs/payouts.md#paying-a-settlement). A payout and its settlement move
// together, in one database transaction: `paying` with its payout `sending`; `paid` with the payout
// `paid` and the ledger's payout entry; `open` again with the payout `failed` or `rejected`.

export function payoutFromRow(r: Row): PayoutRecord {
  return {
    id: String(r.id),
    kind: String(r.kind) as PayoutRecord['kind'],
    merchantId: String(r.merchant_id),
    settlementId: strOrNull(r.settlement_id),
    referenceNo: strOrNull(r.reference_no),
    merchantReferenceNo: strOrNull(r.merchant_reference_no),
    externalId: strOrNull(r.external_id),
    additionalInfo:
      r.details === null || r.details === undefined ? null : (JSON.parse(String(r.details)) as Record<string, unknown>),
    amountSen: sen(r.amount_sen),
    feeSen: sen(r.fee_sen),
    beneficiary: {
      bankCode: String(r.beneficiary_bank_code),
      accountNo: String(r.beneficiary_account_no),
      name: String(r.beneficiary_name),
    },
    state: String(r.state) as PayoutState,
    partnerReferenceNo: String(r.partner_reference_no),
    service: String(r.service) as PayoutRecord['service'],
    transactionDate: strOrNull(r.transaction_date),
    requestedBy: String(r.requested_by),
    approvedBy: strOrNull(r.approved_by),
    bankReference: strOrNull(r.bank_reference),
    error: strOrNull(r.error),
    nextCheckAt: numOrNull(r.next_check_at),
    checks: num(r.checks),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** A new payout row: `claim` holds it for the instance that sends it, until its lease ends. */
export interface NewPayout {
  payout: PayoutRecord;
  claim: { owner: string; leaseUntil: number } | null;
}

export type PayoutStart =
  | { outcome: 'started'; settlement: SettlementRecord; payout: PayoutRecord }
  | { outcome: 'not-open'; settlement: SettlementRecord }
  | { outcome: 'not-found' };

/**
 * An open settlement becomes `paying` with its new payout, in one transaction: of two at once (or a
 * payout and a manual marking), one wins; the database's payouts_one_live backs it.
 */
export async function startSettlementPayout(sql: Sql, n: NewPayout): Promise<PayoutStart> {
  const p = n.payout;
  const settlementId = p.settlementId as string;
  const r = await firstRow(
    sql.all(
      `UPDATE settlements SET status = 'paying', payout_id = ?, last_payout_error = NULL
       WHERE id = ? AND status = 'open' RETURNING *`,
      [p.id, settlementId],
    ),
  );
  if (!r) {
    const existing = await findSettlement(sql, settlementId);
    return existing ? { outcome: 'not-open', settlement: existing } : { outcome: 'not-found' };
  }
  await insertPayout(sql, n);
  return { outcome: 'started', settlement: settlementFromRow(r), payout: p };
}

async function insertPayout(sql: Sql, n: NewPayout): Promise<void> {
  const p = n.payout;
  await sql.run(
    ...insertRow('payouts', {
      id: p.id,
      kind: p.kind,
      merchant_id: p.merchantId,
      settlement_id: p.settlementId,
      reference_no: p.referenceNo,
      merchant_reference_no: p.merchantReferenceNo ?? null,
      external_id: p.externalId ?? null,
      details: p.additionalInfo ? JSON.stringify(p.additionalInfo) : null,
      amount_sen: p.amountSen.toString(),
      fee_sen: p.feeSen.toString(),
      beneficiary_bank_code: p.beneficiary.bankCode,
      beneficiary_account_no: p.beneficiary.accountNo,
      beneficiary_name: p.beneficiary.name,
      state: p.state,
      partner_reference_no: p.partnerReferenceNo,
      service: p.service,
      transaction_date: p.transactionDate,
      requested_by: p.requestedBy,
      approved_by: p.approvedBy,
      bank_reference: p.bankReference,
      error: p.error,
      next_check_at: p.nextCheckAt,
      checks: p.checks,
      claimed_by: n.claim?.owner ?? null,
      lease_until: n.claim?.leaseUntil ?? null,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    }),
  );
}

/** A new disbursement: its payout row, its ledger entry, and the merchant's daily limit. */
export interface NewDisbursement extends NewPayout {
  entry: NewLedgerEntry;
  /** limits.disbursementDaily in sen, and the start of the Jakarta day it counts from. */
  dailyLimitSen: bigint;
  dayStart: number;
}

export type DisbursementStart =
  | { outcome: 'started'; payout: PayoutRecord }
  | { outcome: 'duplicate'; payout: PayoutRecord }
  | { outcome: 'insufficient'; pendingSen: bigint }
  | { outcome: 'over-limit'; usedSen: bigint };

/**
 * A merchant's disbursement asked (docs/payouts.md#disbursements), in one transaction: funded from
 * its pending balance (amount and fee), within its daily limit (amounts of the day's disbursements
 * not failed), its payout row and its `disbursement` entry written together, or nothing. The
 * merchant's balance row is written first: of disbursements at once (and a settlement of the same
 * merchant, which writes it first too), each waits for the one before, and reads the balance and
 * the day's total as that one left them, so no two spend the same rupiah.
 */
export async function startDisbursement(sql: Sql, n: NewDisbursement): Promise<DisbursementStart> {
  const p = n.payout;
  await lockBalance(sql, p.merchantId);
  // A partnerReferenceNo used before is a duplicate whatever the balance says (a retry of a transfer
  // that went out must not read as "not sent"); the unique index stands behind this.
  const twin = await firstRow(
    sql.all(`SELECT * FROM payouts WHERE merchant_id = ? AND merchant_reference_no = ?`, [
      p.merchantId,
      p.merchantReferenceNo,
    ]),
  );
  if (twin) return { outcome: 'duplicate', payout: payoutFromRow(twin) };
  // Every stripe as committed: payments meanwhile only add to it, and whatever takes from it
  // (settlements, refunds' stripe, disbursements) waits for the lock held here.
  const pendingSen = (await runningTotals(sql, p.merchantId)).pendingSen;
  if (pendingSen < p.amountSen + p.feeSen) return { outcome: 'insufficient', pendingSen };
  const day = await firstRow(
    sql.all(
      `SELECT exact_sum(amount_sen) AS used FROM payouts
       WHERE merchant_id = ? AND kind = 'disbursement' AND created_at >= ? AND state <> 'failed'`,
      [p.merchantId, n.dayStart],
    ),
  );
  const usedSen = sen(day?.used);
  if (usedSen + p.amountSen > n.dailyLimitSen) return { outcome: 'over-limit', usedSen };
  await insertPayout(sql, n);
  await postLedgerEntry(sql, n.entry);
  return { outcome: 'started', payout: p };
}

/** A merchant's disbursement by its partnerReferenceNo or by the gateway's referenceNo (both when given). */
export async function findDisbursement(
  sql: Sql,
  merchantId: string,
  by: { merchantReferenceNo?: string | undefined; referenceNo?: string | undefined },
): Promise<PayoutRecord | undefined> {
  const where = [`merchant_id = ?`, `kind = 'disbursement'`];
  const values: unknown[] = [merchantId];
  if (by.merchantReferenceNo !== undefined) {
    where.push('merchant_reference_no = ?');
    values.push(by.merchantReferenceNo);
  }
  if (by.referenceNo !== undefined) {
    where.push('reference_no = ?');
    values.push(by.referenceNo);
  }
  const r = await firstRow(sql.all(`SELECT * FROM payouts WHERE ${where.join(' AND ')}`, values));
  return r ? payoutFromRow(r) : undefined;
}

/**
 * What ledger verification checks disbursement entries against: each disbursement payout's kind and
 * state (by id), and per merchant what its disbursements not failed took (amounts and fees); the
 * amounts still on their way out.
 */
export async function disbursementFacts(sql: Sql): Promise<{
  states: Map<string, PayoutState>;
  spentByMerchant: Map<string, bigint>;
  inFlightSen: bigint;
}> {
  const rows = await sql.all(
    `SELECT id, merchant_id, state, amount_sen, fee_sen FROM payouts WHERE kind = 'disbursement'`,
  );
  const states = new Map<string, PayoutState>();
  const spentByMerchant = new Map<string, bigint>();
  let inFlightSen = 0n;
  for (const r of rows) {
    const state = String(r.state) as PayoutState;
    states.set(String(r.id), state);
    if (state === 'failed') continue;
    const merchantId = String(r.merchant_id);
    spentByMerchant.set(merchantId, (spentByMerchant.get(merchantId) ?? 0n) + sen(r.amount_sen) + sen(r.fee_sen));
    if (state === 'sending' || state === 'pending') inFlightSen += sen(r.amount_sen);
  }
  return { states, spentByMerchant, inFlightSen };
}

export async function findPayout(sql: Sql, id: string): Promise<PayoutRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM payouts WHERE id = ?', [id]));
  return r ? payoutFromRow(r) : undefined;
}

/** Newest first; at most `limit`. */
export async function listPayouts(sql: Sql, filter: PayoutFilter, limit: number): Promise<PayoutRecord[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of [
    ['kind', filter.kind],
    ['state', filter.state],
    ['merchant_id', filter.merchantId],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    values.push(value);
  }
  values.push(limit);
  const rows = await sql.all(
    `SELECT * FROM payouts ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY created_at DESC, id DESC LIMIT ?`,
    values,
  );
  return rows.map(payoutFromRow);
}

function exchangeFromRow(r: Row): PayoutExchangeRecord {
  const response = strOrNull(r.response);
  const error = strOrNull(r.error);
  return {
    at: num(r.at),
    service: String(r.service) as PayoutExchangeRecord['service'],
    request: JSON.parse(String(r.request)),
    status: numOrNull(r.status),
    response: response === null ? null : JSON.parse(response),
    ...(error === null ? {} : { error }),
  };
}

/** A payout's exchanges with the bank, oldest first. */
export async function payoutExchanges(sql: Sql, payoutId: string): Promise<PayoutExchangeRecord[]> {
  const rows = await sql.all('SELECT * FROM payout_exchanges WHERE payout_id = ? ORDER BY id', [payoutId]);
  return rows.map(exchangeFromRow);
}

async function appendExchange(sql: Sql, payoutId: string, e: PayoutExchangeRecord): Promise<void> {
  await sql.run(
    ...insertRow('payout_exchanges', {
      payout_id: payoutId,
      at: e.at,
      service: e.service,
      request: JSON.stringify(e.request),
      status: e.status,
      response: e.response === null ? null : JSON.stringify(e.response),
      error: e.error ?? null,
    }),
  );
}

/**
 * What a payout's end posts, in the transaction that records it: a settlement's payout entry, or a
 * disbursement's paid or returned entry.
 */
export interface PayoutPostings {
  settlementPaid(settlement: SettlementRecord): NewLedgerEntry;
  disbursementEnded(payout: PayoutRecord, state: 'paid' | 'failed'): NewLedgerEntry;
  /**
   * The callback that tells a disbursement's end to its merchant (when it was answered pending),
   * written into the outbox in the same transaction; none when the merchant had its answer.
   */
  transferNotice?(payout: PayoutRecord, state: 'paid' | 'failed'): TransferNotice | undefined;
}

/** A transfer callback as the outbox keeps it (docs/payouts.md#transfer-callbacks). */
export interface TransferNotice {
  id: string;
  body: string;
  at: number;
}

/**
 * Records what the bank answered for a payout still `sending` or `pending` (its claim ends), and
 * moves what it pays with it: a settlement paid (with the payout entry) or open again; a
 * disbursement's amount paid out or returned to the merchant (with its entry). The exchange is kept
 * whatever it changes. The payout as it is after; undefined when there is none.
 */
export async function recordPayoutAnswer(
  sql: Sql,
  id: string,
  change: PayoutChange,
  exchange: PayoutExchangeRecord | null,
  at: number,
  postings: PayoutPostings,
): Promise<PayoutRecord | undefined> {
  if (exchange) await appendExchange(sql, id, exchange);
  const set: Array<[string, unknown]> = [
    ['state', change.state],
    ['claimed_by', null],
    ['lease_until', null],
    ['updated_at', at],
  ];
  if (change.transactionDate !== undefined) set.push(['transaction_date', change.transactionDate]);
  if (change.state === 'failed') set.push(['error', change.error], ['next_check_at', null]);
  if (change.state === 'paid') set.push(['error', null], ['next_check_at', null]);
  if (change.state !== 'failed' && change.bankReference !== null) set.push(['bank_reference', change.bankReference]);
  if (change.state === 'pending') {
    set.push(['error', change.error], ['next_check_at', change.nextCheckAt], ['checks', change.checks]);
  }
  const r = await firstRow(
    sql.all(
      `UPDATE payouts SET ${set.map(([c]) => `${c} = ?`).join(', ')}
       WHERE id = ? AND state IN ('sending', 'pending') RETURNING *`,
      [...set.map(([, v]) => v), id],
    ),
  );
  if (!r) return findPayout(sql, id);
  const payout = payoutFromRow(r);
  if (change.state === 'pending') return payout;
  if (payout.kind === 'disbursement') {
    await postLedgerEntry(sql, postings.disbursementEnded(payout, change.state));
    const notice = postings.transferNotice?.(payout, change.state);
    if (notice) await insertTransferNotice(sql, payout, change.state, notice);
    return payout;
  }
  if (payout.settlementId === null) return payout;
  if (change.state === 'paid') {
    const s = await firstRow(
      sql.all(
        `UPDATE settlements SET status = 'paid', paid_at = ?, bank_reference = ?, last_payout_error = NULL
         WHERE id = ? AND status = 'paying' AND payout_id = ? RETURNING *`,
        [at, payout.bankReference ?? payout.partnerReferenceNo, payout.settlementId, payout.id],
      ),
    );
    if (s) await postLedgerEntry(sql, postings.settlementPaid(settlementFromRow(s)));
    return payout;
  }
  await reopenSettlement(sql, payout, change.error);
  return payout;
}

/** A disbursement's end into the outbox, due now: the dispatcher sends it as any callback. */
async function insertTransferNotice(
  sql: Sql,
  payout: PayoutRecord,
  state: 'paid' | 'failed',
  notice: TransferNotice,
): Promise<void> {
  await sql.run(
    ...insertRow('notifications', {
      id: notice.id,
      reference_no: payout.referenceNo,
      merchant_id: payout.merchantId,
      kind: 'transfer',
      txn_seq: 1,
      latest_status: state === 'paid' ? '00' : '06',
      body: notice.body,
      state: 'pending',
      attempt_count: 0,
      next_attempt_at: notice.at,
      created_at: notice.at,
      updated_at: notice.at,
    }),
  );
}

async function reopenSettlement(sql: Sql, payout: PayoutRecord, error: string): Promise<void> {
  await sql.run(
    `UPDATE settlements SET status = 'open', last_payout_error = ?
     WHERE id = ? AND status = 'paying' AND payout_id = ?`,
    [error, payout.settlementId, payout.id],
  );
}

/**
 * Scheduled settlements of merchants paid out automatically that no payout was ever asked for
 * (the instance that made one stopped before paying it), made between `since` and `before`: the
 * payout job pays them. One the schedule could not pay has its `last_payout_error`, and is left to
 * an operator.
 */
export async function unpaidAutomaticSettlements(
  sql: Sql,
  since: number,
  before: number,
  limit: number,
): Promise<SettlementRecord[]> {
  const rows = await sql.all(
    `SELECT s.* FROM settlements s JOIN merchants m ON m.id = s.merchant_id
     WHERE s.status = 'open' AND s.slot IS NOT NULL AND s.payout_id IS NULL AND s.last_payout_error IS NULL
       AND s.created_at >= ? AND s.created_at < ? AND m.payout_schedule = 'auto'
     ORDER BY s.created_at LIMIT ?`,
    [since, before, limit],
  );
  return rows.map(settlementFromRow);
}

/** Why an open settlement could not be paid out (no payout was made): kept for the operator. */
export async function noteSettlementPayoutError(sql: Sql, id: string, error: string): Promise<void> {
  await sql.run(`UPDATE settlements SET last_payout_error = ? WHERE id = ? AND status = 'open'`, [error, id]);
}

const ASKABLE = `state IN ('sending', 'pending') AND next_check_at IS NOT NULL`;

/**
 * Claims payouts due for a status query (their next check passed, no live claim): each is asked by
 * the one claimant until `leaseUntil`. The conditions are in the outer WHERE too, so PostgreSQL
 * checks them again on a row another instance claimed meanwhile.
 */
export async function claimDuePayouts(
  sql: Sql,
  now: number,
  owner: string,
  leaseUntil: number,
  limit: number,
): Promise<PayoutRecord[]> {
  const rows = await sql.all(
    `UPDATE payouts SET claimed_by = ?, lease_until = ?
     WHERE id IN (SELECT id FROM payouts WHERE ${ASKABLE} AND next_check_at <= ?
                    AND (lease_until IS NULL OR lease_until <= ?) ORDER BY next_check_at LIMIT ?)
       AND ${ASKABLE} AND next_check_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
     RETURNING *`,
    [owner, leaseUntil, now, now, limit, now, now],
  );
  return rows.map(payoutFromRow);
}

/** One payout claimed to be asked about now (someone looked at it), unless another claim is live. */
export async function claimPayout(
  sql: Sql,
  id: string,
  now: number,
  owner: string,
  leaseUntil: number,
): Promise<PayoutRecord | undefined> {
  const r = await firstRow(
    sql.all(
      `UPDATE payouts SET claimed_by = ?, lease_until = ?
       WHERE id = ? AND state IN ('sending', 'pending') AND (lease_until IS NULL OR lease_until <= ?)
       RETURNING *`,
      [owner, leaseUntil, id, now],
    ),
  );
  return r ? payoutFromRow(r) : undefined;
}

/** An awaiting payout approved: `sending`, claimed by the approver's instance to send it now. */
export async function approvePayout(
  sql: Sql,
  id: string,
  approvedBy: string,
  at: number,
  claim: { owner: string; leaseUntil: number; nextCheckAt: number },
): Promise<PayoutRecord | undefined> {
  const r = await firstRow(
    sql.all(
      `UPDATE payouts SET state = 'sending', approved_by = ?, claimed_by = ?, lease_until = ?, next_check_at = ?,
         updated_at = ?
       WHERE id = ? AND state = 'awaiting_approval' RETURNING *`,
      [approvedBy, claim.owner, claim.leaseUntil, claim.nextCheckAt, at, id],
    ),
  );
  return r ? payoutFromRow(r) : undefined;
}

/** An awaiting payout rejected, its settlement open again, in one transaction. */
export async function rejectPayout(
  sql: Sql,
  id: string,
  rejectedBy: string,
  at: number,
): Promise<PayoutRecord | undefined> {
  const error = `rejected by ${rejectedBy}`;
  const r = await firstRow(
    sql.all(
      `UPDATE payouts SET state = 'rejected', approved_by = NULL, error = ?, next_check_at = NULL, updated_at = ?
       WHERE id = ? AND state = 'awaiting_approval' RETURNING *`,
      [error, at, id],
    ),
  );
  if (!r) return undefined;
  const payout = payoutFromRow(r);
  if (payout.settlementId !== null) await reopenSettlement(sql, payout, error);
  return payout;
}

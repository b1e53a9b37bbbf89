import type Database from 'better-sqlite3';
import type { NewLedgerEntry } from '../../records/book-records.ts';
import type {
  AttemptRecord,
  IdempotencyRecord,
  InboundCall,
  MovedNotification,
  NewNotification,
  NotificationRecord,
  StatusChange,
  StatusChanged,
  TransactionRecord,
  TransactionUpdate,
  VirtualAccountNumbers,
} from '../../records/records.ts';
import { LEDGER_INSERT, LINK_PAYMENT_ENTRY, ledgerValues } from '../parts/ledger.ts';
import {
  customerNosFrom,
  MOVED_NOTIFICATION_COLUMNS,
  movedNotificationFromRow,
  type NotifiedHead,
  newNotificationRecord,
  notificationFromRow,
  partnerServiceIdFor,
  type Row,
  statusChangeColumns,
  transactionFromRow,
  transactionToRow,
  updateColumns,
} from '../rows.ts';
import { isUniqueError, preparedOnce, uniqueViolation } from './sqlite-kit.ts';

// The hot writes of the embedded store (status changes, new transactions, idempotency records, VA
// numbers, claims, attempt results, inbound logs) and their group commit. They run on whichever
// connection owns them: the writer thread's (docs/adr/0009-sqlite-writer-thread.md), or the store's
// own when the writes stay on the main thread (an in-memory database, test fault hooks).

type Db = Database.Database;

/** What each hot write takes and answers: plain data, so that it crosses to a writer thread. */
export interface WriteOps {
  recordInbound(calls: readonly InboundCall[]): void;
  insertIdempotency(record: IdempotencyRecord, at: number): void;
  insertTransaction(txn: TransactionRecord, idempotency?: IdempotencyRecord): void;
  changeStatus(change: StatusChange): StatusChanged | undefined;
  /** changeStatus, answering only whether it applied and its notification was claimed: the caller knows the rest. */
  changeStatusLean(change: StatusChange, head: ChangedHead): { claimed: boolean } | undefined;
  updateTransaction(update: TransactionUpdate): TransactionRecord | undefined;
  allocateVirtualAccounts(merchantId: string, bankCode: string, count: number): VirtualAccountNumbers;
  claimDue(workerId: string, now: number, leaseMs: number, limit: number): NotificationRecord[];
  recordAttempts(attempts: readonly AttemptRecord[]): MovedNotification[];
  indexSearch(limit: number): number;
}

export type WriteName = keyof WriteOps;

/** What a status change's notification row takes of its transaction that the change itself does not say. */
export type ChangedHead = Pick<TransactionRecord, 'merchantId' | 'kind'>;

/** One write asked for: its name and its arguments. */
export type WriteRequest = { [K in WriteName]: { name: K; args: Parameters<WriteOps[K]> } }[WriteName];

/** One write's outcome in a group commit: its answer, or what refused it (its savepoint undone). */
export type WriteOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Test hooks that throw inside a transaction, to prove it leaves nothing behind. */
export interface WriteFaults {
  afterStatusUpdate?: () => void;
}

/** What every connection of the embedded store sets on open (measured: a reopened WAL database resets synchronous). */
export function configureConnection(db: Db, pageCacheKib: number): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // Measured (docs/benchmarks.md): with SQLite's default 2 MiB page cache, every status change and
  // claim on a database of some 100k notifications read its index pages back from the OS.
  db.pragma(`cache_size = -${pageCacheKib}`);
  registerExactSum(db);
}

const INT64_MAX = 2n ** 63n - 1n;

/**
 * `exact_sum(x)`: SQLite's `sum()` of integers fails past 2^63 and `total()` is a float, while the
 * books must sum sen exactly at any size of history (docs/operations.md#money-bounds). This one adds
 * BigInts and answers an integer, or the decimal text of a sum too large for one. PostgreSQL has
 * its own (migration 028). Sums of nothing are 0.
 */
function registerExactSum(db: Db): void {
  db.aggregate('exact_sum', {
    start: 0n,
    step: (total: bigint, value: unknown) => (value === null ? total : total + BigInt(value as bigint | number)),
    result: (total: bigint) => (total > INT64_MAX || total < -INT64_MAX ? total.toString() : total),
    safeIntegers: true,
    deterministic: true,
  });
}

const TRANSACTION_COLUMNS = Object.keys(transactionToRow({ details: {} } as TransactionRecord));

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

// The hot inserts and updates bind by position: measured, binding an object's properties by name
// (better-sqlite3 looks each one up through V8's API) cost the writer thread about 3 µs a callback
// (docs/benchmarks.md#delivery-against-bullmq). Each call below gives its values in the statement's
// order; better-sqlite3 binds numbered parameters (?1) by name only, so a value used twice is given twice.
const STATEMENTS = {
  insertInbound: `INSERT INTO provider_inbound (provider_id, at, method, path, request_body, http_status, response_code,
      response_body, duration_ms)
    VALUES (${placeholders(9)})`,
  insertVaPayment: `INSERT INTO va_payments (provider_id, payment_request_id, reference_no, http_status, response_body, created_at)
    VALUES (@providerId, @paymentRequestId, @referenceNo, @httpStatus, @responseBody, @createdAt)`,
  insertIdempotency: `INSERT INTO idempotency_keys (merchant_id, day, external_id, request_hash, http_status, response_body, created_at)
    VALUES (${placeholders(7)})`,
  insertTransaction: `INSERT INTO transactions (${TRANSACTION_COLUMNS.join(', ')})
    VALUES (${placeholders(TRANSACTION_COLUMNS.length)})`,
  insertHistory:
    'INSERT INTO status_history (reference_no, seq, status, status_desc, reason, changed_at) VALUES (?, ?, ?, ?, ?, ?)',
  supersede: `UPDATE notifications SET state = 'superseded', next_attempt_at = NULL, updated_at = ?
    WHERE reference_no = ? AND state IN ('pending', 'retrying')`,
  insertNotification: `INSERT INTO notifications (id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state,
      attempt_count, next_attempt_at, created_at, updated_at, request_id, claimed_by, lease_until, callback_url)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)`,
  // The transaction has another undelivered notification: a new one is not claimed at birth.
  undeliveredSibling: `SELECT 1 FROM notifications WHERE reference_no = ? AND +state IN ('pending', 'retrying', 'delivering') LIMIT 1`,
  insertRefund: `INSERT INTO refunds (refund_no, reference_no, merchant_id, partner_refund_no, amount, reason, created_at)
    VALUES (@refundNo, @referenceNo, @merchantId, @partnerRefundNo, @amount, @reason, @createdAt)`,
  vaPrefix: 'SELECT * FROM va_prefixes WHERE merchant_id = ? AND bank_code = ?',
  countVaPrefixes: 'SELECT count(*) AS n FROM va_prefixes WHERE bank_code = ?',
  insertVaPrefix:
    'INSERT INTO va_prefixes (merchant_id, bank_code, partner_service_id, next_customer_no) VALUES (?, ?, ?, 1)',
  takeCustomerNos: `UPDATE va_prefixes SET next_customer_no = next_customer_no + @count
    WHERE merchant_id = @merchantId AND bank_code = @bankCode
    RETURNING partner_service_id, next_customer_no - @count AS first`,
  retireStaleClaims: `UPDATE notifications SET state = 'superseded', claimed_by = NULL, lease_until = NULL, updated_at = @now
    WHERE state = 'delivering' AND lease_until <= @now
      AND EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = notifications.reference_no AND o.txn_seq > notifications.txn_seq)`,
  // Each branch walks its own index and stops at @limit (a backlog is never sorted whole); the
  // sibling checks use notifications_by_txn (`+o.state` keeps SQLite from picking another index).
  claimDue: `UPDATE notifications SET state = 'delivering', claimed_by = @worker, lease_until = @now + @lease, updated_at = @now
    WHERE id IN (
      SELECT id FROM (
        SELECT * FROM (
          SELECT n.id, n.next_attempt_at AS due FROM notifications n INDEXED BY notifications_due
          WHERE n.state IN ('pending', 'retrying') AND n.next_attempt_at <= @now
            AND NOT EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = n.reference_no AND o.txn_seq > n.txn_seq)
            AND NOT EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = n.reference_no AND o.id <> n.id
                              AND +o.state = 'delivering' AND o.lease_until > @now)
          ORDER BY n.next_attempt_at LIMIT @limit)
        UNION ALL
        SELECT * FROM (
          SELECT n.id, n.lease_until AS due FROM notifications n
          WHERE n.state = 'delivering' AND n.lease_until <= @now
            AND NOT EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = n.reference_no AND o.txn_seq > n.txn_seq)
            AND NOT EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = n.reference_no AND o.id <> n.id
                              AND +o.state = 'delivering' AND o.lease_until > @now)
          ORDER BY n.lease_until LIMIT @limit)
      ) ORDER BY due LIMIT @limit)
    RETURNING *`,
  insertAttempt: `INSERT INTO notification_attempts (notification_id, attempt_no, worker_id, started_at, url, request_headers,
      response_status, response_body, duration_ms, outcome, error)
    VALUES (?, (SELECT attempt_count + 1 FROM notifications WHERE id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  finishAttempt: `UPDATE notifications SET
      attempt_count = attempt_count + 1,
      state = CASE
        WHEN ? = 1 THEN 'delivered'
        WHEN EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = notifications.reference_no AND o.txn_seq > notifications.txn_seq) THEN 'superseded'
        WHEN ? IS NULL THEN 'dead'
        ELSE 'retrying' END,
      next_attempt_at = CASE WHEN ? = 1 THEN NULL ELSE ? END,
      delivered_at = CASE WHEN ? = 1 THEN ? ELSE delivered_at END,
      last_error = ?, claimed_by = NULL, lease_until = NULL, updated_at = ?
    WHERE id = ? AND claimed_by = ? AND state = 'delivering'
    RETURNING ${MOVED_NOTIFICATION_COLUMNS}`,
  // The search queue (migration 022): the oldest `limit` new transactions, into the trigram index.
  searchQueueUpTo: 'SELECT max(id) AS id FROM (SELECT id FROM transactions_search_queue ORDER BY id LIMIT ?)',
  indexQueued: `INSERT INTO transactions_search (reference_no, refs)
    SELECT t.reference_no, t.reference_no || ' ' || t.partner_reference_no || ' ' || coalesce(t.virtual_account_no, '')
    FROM transactions_search_queue q JOIN transactions t ON t.reference_no = q.reference_no WHERE q.id <= ?`,
  dequeueIndexed: 'DELETE FROM transactions_search_queue WHERE id <= ?',
} as const;

/** The hot writes on one connection, and the group commit that runs them. */
export class SqliteWrites implements WriteOps {
  private readonly stmt: Record<keyof typeof STATEMENTS, Database.Statement>;
  /** Statements built from a patch's columns: prepared once per distinct SQL text. */
  private readonly prepared: (sql: string) => Database.Statement;
  private readonly savepoint: (work: () => unknown) => unknown;

  constructor(
    private readonly db: Db,
    private readonly faults: WriteFaults = {},
  ) {
    this.stmt = Object.fromEntries(
      Object.entries(STATEMENTS).map(([name, text]) => [name, db.prepare(text)]),
    ) as SqliteWrites['stmt'];
    // A transaction function called inside another runs as a savepoint.
    this.savepoint = db.transaction((work: () => unknown) => work());
    this.prepared = preparedOnce(db);
  }

  /**
   * Group commit (measured: one FULL-sync commit costs 0.2–1 ms, and capped status changes near
   * 3–5k/s and payment API writes near 1k/s when each had its own): the writes handed over together
   * commit in one IMMEDIATE transaction, each in its own savepoint, so one write's failure undoes
   * only that write. The outcomes exist only after the COMMIT, so an answer never gets ahead of
   * durability. Throws when the transaction itself fails (BEGIN, COMMIT, or an error after which
   * SQLite rolled the whole transaction back): then nothing of the batch is written.
   */
  commit(requests: readonly WriteRequest[]): WriteOutcome[] {
    // Measured: a savepoint per write was a tenth of the writer's time. The batch runs without them
    // first; only when one write is refused is it run again, each write in its own savepoint.
    if (requests.length > 1) {
      let isRefusal = false;
      try {
        return this.db
          .transaction(() =>
            requests.map((request): WriteOutcome => {
              try {
                return { ok: true, value: this.run(request) };
              } catch (error) {
                // Still in the transaction: this write alone was refused (its partial work goes with
                // the rollback below). Otherwise SQLite rolled everything back: see commitEach.
                isRefusal = this.db.inTransaction;
                throw error;
              }
            }),
          )
          .immediate();
      } catch (error) {
        if (!isRefusal) throw error;
      }
    }
    return this.commitEach(requests);
  }

  private commitEach(requests: readonly WriteRequest[]): WriteOutcome[] {
    const outcomes: WriteOutcome[] = [];
    this.db
      .transaction(() => {
        for (const request of requests) {
          try {
            outcomes.push({ ok: true, value: this.savepoint(() => this.run(request)) });
          } catch (error) {
            // Some errors (a full disk, I/O, out of memory) make SQLite roll back the whole
            // transaction, not the savepoint: nothing of this batch is written, and a later
            // write must not run on its own as a transaction of its own. Every caller is refused.
            if (!this.db.inTransaction) throw error;
            outcomes.push({ ok: false, error: isUniqueError(error) ? uniqueViolation(error) : error });
          }
        }
      })
      .immediate();
    return outcomes;
  }

  private run(request: WriteRequest): unknown {
    switch (request.name) {
      case 'recordInbound':
        return this.recordInbound(...request.args);
      case 'insertIdempotency':
        return this.insertIdempotency(...request.args);
      case 'insertTransaction':
        return this.insertTransaction(...request.args);
      case 'changeStatus':
        return this.changeStatus(...request.args);
      case 'changeStatusLean':
        return this.changeStatusLean(...request.args);
      case 'updateTransaction':
        return this.updateTransaction(...request.args);
      case 'allocateVirtualAccounts':
        return this.allocateVirtualAccounts(...request.args);
      case 'claimDue':
        return this.claimDue(...request.args);
      case 'recordAttempts':
        return this.recordAttempts(...request.args);
      case 'indexSearch':
        return this.indexSearch(...request.args);
      default:
        throw new TypeError(`no write ${(request as { name: string }).name}`);
    }
  }

  recordInbound(calls: readonly InboundCall[]): void {
    for (const c of calls) {
      this.stmt.insertInbound.run(
        c.providerId,
        c.at,
        c.method,
        c.path,
        c.requestBody,
        c.httpStatus,
        c.responseCode,
        c.responseBody,
        Math.round(c.durationMs),
      );
    }
  }

  insertIdempotency(r: IdempotencyRecord, at: number): void {
    this.stmt.insertIdempotency.run(r.merchantId, r.day, r.externalId, r.requestHash, r.httpStatus, r.responseBody, at);
  }

  insertTransaction(txn: TransactionRecord, idempotency?: IdempotencyRecord): void {
    if (idempotency) this.insertIdempotency(idempotency, txn.createdAt);
    const row = transactionToRow(txn);
    this.stmt.insertTransaction.run(TRANSACTION_COLUMNS.map((c) => row[c]));
    this.stmt.insertHistory.run(txn.referenceNo, txn.seq, txn.status, txn.statusDesc, null, txn.createdAt);
  }

  changeStatus(change: StatusChange): StatusChanged | undefined {
    const r = this.updateGuarded(change.referenceNo, change.expectedSeq, statusChangeColumns(change));
    if (!r) return undefined;
    const txn = transactionFromRow(r);
    const n = this.afterStatusUpdate(change, txn);
    return { txn, claimed: n?.state === 'delivering' ? n : undefined };
  }

  /**
   * The same change, without reading the row back or building records to send: the writer thread's
   * answer to the status changer, which knows the transaction as the change makes it (measured in
   * docs/benchmarks.md#delivery-against-bullmq: the row's object and its copy across threads were
   * a tenth of the writer's time).
   */
  changeStatusLean(change: StatusChange, head: ChangedHead): { claimed: boolean } | undefined {
    const sets = statusChangeColumns(change);
    const applied = this.prepared(guardedUpdate(sets, '')).run(
      ...sets.map(([, v]) => v),
      change.referenceNo,
      change.expectedSeq,
    ).changes;
    if (applied !== 1) return undefined;
    const { referenceNo, status, statusDesc } = change;
    const n = this.afterStatusUpdate(change, { ...head, referenceNo, seq: change.expectedSeq + 1, status, statusDesc });
    return { claimed: n?.state === 'delivering' };
  }

  /** What a status change writes besides the row: its history, its notification, refund, flag and entry. */
  private afterStatusUpdate(
    change: StatusChange,
    txn: NotifiedHead & Pick<TransactionRecord, 'statusDesc'>,
  ): NotificationRecord | undefined {
    this.stmt.insertHistory.run(txn.referenceNo, txn.seq, txn.status, txn.statusDesc, change.reason, change.at);
    this.faults.afterStatusUpdate?.();
    const n = change.notification && this.addNotification(txn, change.notification, change.at);
    if (change.refund) this.stmt.insertRefund.run(change.refund);
    if (change.idempotency) this.insertIdempotency(change.idempotency, change.at);
    if (change.vaPayment) this.stmt.insertVaPayment.run(change.vaPayment);
    if (change.ledger) this.postEntry(change.ledger);
    return n;
  }

  updateTransaction(update: TransactionUpdate): TransactionRecord | undefined {
    const r = this.updateGuarded(update.referenceNo, update.expectedSeq, updateColumns(update));
    if (!r) return undefined;
    if (update.idempotency) this.insertIdempotency(update.idempotency, update.at);
    return transactionFromRow(r);
  }

  allocateVirtualAccounts(merchantId: string, bankCode: string, count: number): VirtualAccountNumbers {
    if (!this.stmt.vaPrefix.get(merchantId, bankCode)) {
      const n = (this.stmt.countVaPrefixes.get(bankCode) as { n: number }).n;
      this.stmt.insertVaPrefix.run(merchantId, bankCode, partnerServiceIdFor(bankCode, n + 1));
    }
    const r = this.stmt.takeCustomerNos.get({ merchantId, bankCode, count }) as {
      partner_service_id: string;
      first: number;
    };
    return { partnerServiceId: r.partner_service_id, customerNos: customerNosFrom(r.first, count) };
  }

  claimDue(workerId: string, now: number, leaseMs: number, limit: number): NotificationRecord[] {
    this.stmt.retireStaleClaims.run({ now });
    return (this.stmt.claimDue.all({ worker: workerId, now, lease: leaseMs, limit }) as Row[]).map(notificationFromRow);
  }

  /** One savepoint for the whole batch (measured: 31k rows/s against 5.1k one by one). */
  recordAttempts(attempts: readonly AttemptRecord[]): MovedNotification[] {
    const moved: MovedNotification[] = [];
    for (const a of attempts) {
      this.stmt.insertAttempt.run(
        a.notificationId,
        a.notificationId,
        a.workerId,
        a.startedAt,
        a.url,
        JSON.stringify(a.requestHeaders),
        a.responseStatus,
        a.responseBody,
        a.durationMs,
        a.outcome,
        a.error,
      );
      const acknowledged = a.outcome === 'acknowledged' ? 1 : 0;
      const next = a.nextAttemptAt ?? null;
      // In the statement's order: the state's CASE, next_attempt_at, delivered_at, the rest, the row.
      const r = this.stmt.finishAttempt.get(
        acknowledged,
        next,
        acknowledged,
        next,
        acknowledged,
        a.finishedAt,
        a.error,
        a.finishedAt,
        a.notificationId,
        a.workerId,
      ) as Row | undefined;
      if (r) moved.push(movedNotificationFromRow(r));
    }
    return moved;
  }

  /** Moves up to `limit` queued new transactions into the search index (one FTS5 segment for all); how many. */
  indexSearch(limit: number): number {
    const upTo = (this.stmt.searchQueueUpTo.get(limit) as { id: number | null }).id;
    if (upTo === null) return 0;
    this.stmt.indexQueued.run(upTo);
    return this.stmt.dequeueIndexed.run(upTo).changes;
  }

  private addNotification(txn: NotifiedHead, n: NewNotification, at: number): NotificationRecord {
    // Claimed at birth only when the transaction has no other undelivered notification (the rule
    // both stores keep; on PostgreSQL it is what makes a concurrent claim safe).
    const hasUndelivered = this.stmt.undeliveredSibling.get(txn.referenceNo) !== undefined;
    const isClaimed = n.claim !== undefined && !hasUndelivered;
    // Latest wins (docs/protocol.md#callbacks): an undelivered older notification of this transaction
    // is superseded (a payment's first notification has none: the update is not run for nothing).
    if (hasUndelivered) this.stmt.supersede.run(at, txn.referenceNo);
    const r = newNotificationRecord(txn, n, at, isClaimed);
    // In the statement's order (created_at twice: created and updated).
    this.stmt.insertNotification.run(
      r.id,
      r.referenceNo,
      r.merchantId,
      r.kind,
      r.txnSeq,
      r.latestStatus,
      r.body,
      r.state,
      r.nextAttemptAt,
      r.createdAt,
      r.createdAt,
      r.requestId,
      r.claimedBy,
      r.leaseUntil,
      r.callbackUrl,
    );
    return r;
  }

  /** An entry, inside the write that causes it; a payment's is named by its transaction, once. */
  private postEntry(entry: NewLedgerEntry): void {
    const id = this.prepared(LEDGER_INSERT).run(...ledgerValues(entry)).lastInsertRowid;
    if (entry.kind !== 'payment') return;
    if (this.prepared(LINK_PAYMENT_ENTRY).run(id, entry.referenceNo).changes !== 1) {
      throw new Error(`transaction ${entry.referenceNo} already has its payment entry`);
    }
  }

  /** `UPDATE transactions … WHERE seq = expected`: no row when another write got there first. */
  private updateGuarded(referenceNo: string, expectedSeq: number, sets: Array<[string, unknown]>): Row | undefined {
    return this.prepared(guardedUpdate(sets, ' RETURNING *')).get(
      ...sets.map(([, v]) => v),
      referenceNo,
      expectedSeq,
    ) as Row | undefined;
  }
}

/** The seq-guarded UPDATE of a transaction's columns (then `returning`): the one rule of every change. */
const guardedUpdate = (sets: Array<[string, unknown]>, returning: '' | ' RETURNING *') =>
  `UPDATE transactions SET ${sets.map(([c]) => `${c} = ?`).join(', ')} WHERE reference_no = ? AND seq = ?${returning}`;

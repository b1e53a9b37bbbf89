import pg from 'pg';
import type { ProviderRecord } from '../../records/provider-records.ts';
import type {
  AttemptRecord,
  IdempotencyRecord,
  InboundCall,
  MerchantRecord,
  MovedNotification,
  NotificationRecord,
  StatusChange,
  StatusChanged,
  TransactionRecord,
  TransactionUpdate,
  VirtualAccountNumbers,
} from '../../records/records.ts';
import { anySecret, type Reseal, resealRow, SECRET_COLUMNS, SECRET_TABLES } from '../client-rows.ts';
import { readMigrations, renumberedHistory } from '../migrations.ts';
import { revokeAdminKey } from '../parts/access.ts';
import { ledgerCells } from '../parts/ledger.ts';
import { createRecordCache, noRecordCache } from '../record-cache.ts';
import {
  customerNosFrom,
  movedNotificationFromRow,
  newNotificationRecord,
  notificationFromRow,
  partnerServiceIdFor,
  type Row,
  statusChangeColumns,
  transactionFromRow,
  transactionToRow,
  updateColumns,
} from '../rows.ts';
import type { Sql } from '../sql.ts';
import { SqlStore } from '../sql-store.ts';
import type { AdminKeyRevocation, Store } from '../store.ts';
import { type PgListener, startPgListener } from './listener.ts';
import {
  type Client,
  DELIVERING_SIBLING_EXISTS,
  idempotencyCells,
  insertCells,
  insertSql,
  isStalePlan,
  MOVED_COLUMNS_OF_N,
  NEWER_EXISTS,
  query,
  refundCells,
  rethrowUnique,
  sqlOn,
  vaPaymentCells,
} from './statements.ts';
import { ANNOUNCE, createAnnouncer, parseAnnouncement, STATUS_CHANNEL, type StatusWatcher } from './status-notify.ts';

/** Migration 004's trigger announces every write to merchants here. */
const MERCHANTS_CHANNEL = 'snapgate_merchants';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Pool size per gateway process. */
  max?: number;
  /**
   * How long one statement may run, or wait for a lock, before PostgreSQL cancels it (0: no bound):
   * a table locked for long makes requests fail fast instead of piling up. Migrations are not bound.
   */
  statementTimeoutMs?: number | undefined;
  /** Told when the database refuses a committed status change's announcement (NOTIFY); the gateway logs it. */
  onAnnounceFailed?: ((error: unknown) => void) | undefined;
}

/**
 * The store on PostgreSQL, for several gateway instances sharing one database. Every verb is
 * one database transaction; claims use `FOR UPDATE SKIP LOCKED` so instances never take the
 * same notification, and uniqueness is always a constraint, never a read-then-write.
 */
export class PostgresStore extends SqlStore implements Store {
  readonly kind = 'postgres' as const;
  readonly pool: pg.Pool;
  protected readonly sql: Sql;
  private readonly connectionString: string;
  private listener: PgListener | undefined;
  private isClosed = false;
  private readonly statusWatchers = new Set<StatusWatcher>();
  /** Committed status changes, announced to every instance after their commit (status-notify.ts). */
  private readonly announcer: ReturnType<typeof createAnnouncer>;
  /** Merchants are cached only while this instance hears every instance's merchant writes. */
  protected readonly merchantCache = createRecordCache<MerchantRecord>({
    isOn: () => this.listener?.isListening === true,
  });
  // Providers are read without a cache: there are few, and a disabled one must be refused at
  // once on every instance.
  protected readonly providerCache = noRecordCache<ProviderRecord>();

  constructor(options: PostgresStoreOptions) {
    super();
    this.connectionString = options.connectionString;
    const timeoutMs = options.statementTimeoutMs ?? 5_000;
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.max ?? 16,
      ...(timeoutMs > 0 ? { statement_timeout: timeoutMs, lock_timeout: timeoutMs } : {}),
    });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    this.sql = sqlOn(this.pool);
    this.announcer = createAnnouncer(
      (p) => this.run(this.pool, ANNOUNCE, [STATUS_CHANNEL, p]),
      options.onAnnounceFailed,
    );
  }

  /**
   * The merchant cache is on only while this instance listens for `snapgate_merchants`
   * (migration 004): every write to merchants, from any instance, empties every cache. The same
   * connection hears every instance's status changes (`snapgate_status`, status-notify.ts).
   */
  private async listen(): Promise<void> {
    if (this.isClosed || this.listener) return;
    this.listener = startPgListener({
      connectionString: this.connectionString,
      channels: [MERCHANTS_CHANNEL, STATUS_CHANNEL],
      events: {
        onNotification: (channel, payload) => {
          if (channel !== STATUS_CHANNEL) return this.merchantCache.forget();
          for (const change of parseAnnouncement(payload)) for (const w of this.statusWatchers) w.change(change);
        },
        onUp: () => {
          this.merchantCache.forget();
          for (const w of this.statusWatchers) w.resync();
        },
        // A silent listener must not keep serving cached merchants.
        onDown: () => this.merchantCache.forget(),
      },
    });
    await this.listener.ready;
  }

  /**
   * Every instance's committed status changes, as announced by their own statements; `resync`
   * after each gap in what this instance heard (its listener reconnected). Returns the stop.
   */
  watchStatusChanges(watcher: StatusWatcher): () => void {
    this.statusWatchers.add(watcher);
    return () => this.statusWatchers.delete(watcher);
  }

  protected transaction<T>(work: (sql: Sql) => Promise<T>, lockKey?: number): Promise<T> {
    return this.tx(async (c) => {
      if (lockKey !== undefined) await this.run(c, 'SELECT pg_advisory_xact_lock($1)', [lockKey]);
      return work(sqlOn(c));
    }).catch(rethrowUnique);
  }

  private async tx<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const c = await this.pool.connect();
      try {
        await this.run(c, 'BEGIN');
        const r = await work(c);
        await this.run(c, 'COMMIT');
        return r;
      } catch (e) {
        await this.run(c, 'ROLLBACK').catch(() => undefined);
        // A table a newer instance changed under a prepared statement: nothing of this
        // transaction was written; run it again under freshly prepared statements.
        if (isStalePlan(e) && attempt === 0) continue;
        throw e;
      } finally {
        c.release();
      }
    }
  }

  private async rows(client: Client, text: string, values: unknown[] = []): Promise<Row[]> {
    return (await query(client, text, values)).rows as Row[];
  }

  /** A statement whose answer is not read (its row count may be). */
  private run(client: Client, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
    return query(client, text, values);
  }

  async migrate(): Promise<void> {
    await this.tx(async (c) => {
      // A migration may rewrite a large table and wait for another instance's: never bounded.
      await this.run(c, 'SET LOCAL statement_timeout = 0');
      await this.run(c, 'SET LOCAL lock_timeout = 0');
      // One instance migrates at a time; the others wait and find nothing left to do.
      await this.run(c, 'SELECT pg_advisory_xact_lock(7061686761)');
      await this.run(
        c,
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)',
      );
      const migrations = readMigrations('postgres');
      const history = (await this.rows(c, 'SELECT version, name, applied_at FROM schema_migrations')).map((r) => ({
        version: Number(r.version),
        name: String(r.name),
        appliedAt: Number(r.applied_at),
      }));
      const renumbered = renumberedHistory(history, migrations);
      if (renumbered) {
        await this.run(c, 'DELETE FROM schema_migrations');
        for (const r of renumbered) {
          await this.run(c, 'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
            r.version,
            r.name,
            r.appliedAt,
          ]);
        }
      }
      const applied = new Set((renumbered ?? history).map((r) => r.version));
      for (const m of migrations) {
        if (applied.has(m.version)) continue;
        await c.query(m.sql);
        await this.run(c, 'INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          m.version,
          m.name,
          Date.now(),
        ]);
      }
    });
    await this.listen();
  }

  async ping(): Promise<void> {
    await this.run(this.pool, 'SELECT 1');
  }

  async close(): Promise<void> {
    this.isClosed = true;
    await this.announcer.drain();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.close();
    await this.pool.end().catch(() => undefined);
  }

  async resealSecrets(reseal: Reseal, settings: ReadonlySet<string>): Promise<number> {
    const changed = await this.tx(async (c) => {
      let n = 0;
      for (const table of SECRET_TABLES) {
        const columns = SECRET_COLUMNS[table];
        const rows = await this.rows(
          c,
          `SELECT id, ${columns.join(', ')} FROM ${table} WHERE ${anySecret(columns)} FOR UPDATE`,
        );
        for (const row of rows) {
          const next = resealRow(table, row, reseal);
          if (!next) continue;
          await this.run(
            c,
            `UPDATE ${table} SET ${columns.map((col, i) => `${col} = $${i + 1}`).join(', ')} WHERE id = $${columns.length + 1}`,
            [...columns.map((col) => next[col]), row.id],
          );
          n++;
        }
      }
      for (const key of settings) {
        const r = await this.rows(c, 'SELECT value FROM settings WHERE key = $1 FOR UPDATE', [key]);
        const next = r[0] ? reseal(String(r[0].value), { table: 'settings', key }) : undefined;
        if (next === undefined) continue;
        await this.run(c, 'UPDATE settings SET value = $1 WHERE key = $2', [next, key]);
        n++;
      }
      return n;
    });
    this.merchantCache.forget();
    return changed;
  }

  /**
   * The key and every active admin key are locked first: a revoke of another admin key in flight
   * makes this one wait until it commits, and the conditional UPDATE, a new statement under READ
   * COMMITTED, then sees that key revoked and refuses the last one. All in one statement and in
   * one order (by id), the update touching only a row already locked: two revokes never deadlock
   * (SELECT … FOR UPDATE keeps the lock of a row it skips once re-checked, so locking only the
   * active keys, then the key, could).
   */
  override revokeAdminKey(id: string, at: number): Promise<AdminKeyRevocation> {
    return this.tx(async (c) => {
      await this.run(
        c,
        `SELECT id FROM admin_keys WHERE id = $1 OR (scope = 'admin' AND revoked_at IS NULL) ORDER BY id FOR UPDATE`,
        [id],
      );
      return revokeAdminKey(sqlOn(c), id, at);
    });
  }

  async recordInbound(calls: readonly InboundCall[]): Promise<void> {
    if (calls.length === 0) return;
    // One statement for the batch: parallel arrays unnested into rows.
    const column = <K extends keyof InboundCall>(k: K) => calls.map((c) => c[k]);
    await this.run(
      this.pool,
      `INSERT INTO provider_inbound (provider_id, at, method, path, request_body, http_status, response_code,
         response_body, duration_ms)
       SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
         $8::text[], $9::int[])`,
      [
        column('providerId'),
        column('at'),
        column('method'),
        column('path'),
        column('requestBody'),
        column('httpStatus'),
        column('responseCode'),
        column('responseBody'),
        calls.map((c) => Math.round(c.durationMs)),
      ],
    );
  }

  async pruneBefore(before: number, limit: number): Promise<{ attempts: number; idempotencyKeys: number }> {
    const attempts = await this.run(
      this.pool,
      `UPDATE notification_attempts SET request_headers = '{}'::jsonb, response_body = NULL
       WHERE id IN (
         SELECT a.id FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id
         WHERE a.started_at < $1 AND a.request_headers <> '{}'::jsonb AND n.state IN ('delivered', 'superseded')
         ORDER BY a.started_at LIMIT $2)`,
      [before, limit],
    );
    const keys = await this.run(
      this.pool,
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE created_at < $1 ORDER BY created_at LIMIT $2)`,
      [before, limit],
    );
    return { attempts: attempts.rowCount ?? 0, idempotencyKeys: keys.rowCount ?? 0 };
  }

  private async putIdempotency(c: Client, record: IdempotencyRecord, at: number): Promise<void> {
    const values: unknown[] = [];
    await this.run(c, insertCells('idempotency_keys', idempotencyCells(record, at), values), values);
  }

  async insertIdempotency(record: IdempotencyRecord, at: number): Promise<void> {
    await this.putIdempotency(this.pool, record, at).catch(rethrowUnique);
  }

  async insertTransaction(txn: TransactionRecord, idempotency?: IdempotencyRecord): Promise<void> {
    await this.tx(async (c) => {
      if (idempotency) await this.putIdempotency(c, idempotency, txn.createdAt);
      const { text, values } = insertSql('transactions', transactionToRow(txn));
      await c.query(text, values);
      await this.run(
        c,
        'INSERT INTO status_history (reference_no, seq, status, status_desc, reason, changed_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [txn.referenceNo, txn.seq, txn.status, txn.statusDesc, null, txn.createdAt],
      );
    }).catch(rethrowUnique);
  }

  private async updateGuarded(
    c: pg.PoolClient,
    referenceNo: string,
    expectedSeq: number,
    sets: Array<[string, unknown]>,
  ): Promise<Row | undefined> {
    const values = sets.map(([, v]) => v);
    values.push(referenceNo, expectedSeq);
    const r = await this.rows(
      c,
      `UPDATE transactions SET ${sets.map(([col], i) => `${col} = $${i + 1}`).join(', ')}
       WHERE reference_no = $${values.length - 1} AND seq = $${values.length} RETURNING *`,
      values,
    );
    return r[0];
  }

  /**
   * One statement, so one round trip and no BEGIN/COMMIT (measured: each round trip to PostgreSQL
   * cost the gateway ~50 µs of socket writes on the project's machines, and a change was six): the
   * guarded update, its history row, superseding older undelivered notifications, the new one,
   * and the change's refund, idempotency record and payment flag are data-modifying CTEs of one
   * atomic statement. Every insert reads from the update, so a lost race writes nothing.
   */
  async changeStatus(change: StatusChange): Promise<StatusChanged | undefined> {
    const values: unknown[] = [];
    const $ = (value: unknown, type: string) => {
      values.push(value);
      return `$${values.length}::${type}`;
    };
    const sets = statusChangeColumns(change)
      .map(([col, v]) => {
        values.push(v);
        return `${col} = $${values.length}`;
      })
      .join(', ');
    const at = $(change.at, 'bigint');
    // A payment's entry is named by its transaction, once: its id is drawn first and set by the
    // guarded update itself (only while the transaction names none).
    const isPayment = change.ledger?.kind === 'payment';
    const ctes = [
      ...(isPayment ? [`e AS (SELECT nextval(pg_get_serial_sequence('ledger_entries', 'id')) AS id)`] : []),
      `u AS (UPDATE transactions SET ${sets}${isPayment ? ', payment_entry_id = (SELECT id FROM e)' : ''}
         WHERE reference_no = ${$(change.referenceNo, 'text')} AND seq = ${$(change.expectedSeq, 'integer')}
         ${isPayment ? 'AND payment_entry_id IS NULL' : ''} RETURNING *)`,
      `h AS (INSERT INTO status_history (reference_no, seq, status, status_desc, reason, changed_at)
         SELECT reference_no, seq, status, status_desc, ${$(change.reason, 'text')}, ${at} FROM u)`,
    ];
    const n = change.notification;
    if (n) {
      // Latest wins (docs/protocol.md#callbacks): an undelivered older notification is superseded.
      // The new one is claimed at birth only when the transaction has no other undelivered
      // notification at all, as this statement's snapshot sees it: a claim of an older one that
      // another instance commits meanwhile can then never put two of them in flight.
      ctes.push(
        `s AS (UPDATE notifications SET state = 'superseded', next_attempt_at = NULL, updated_at = ${at}
           WHERE reference_no = (SELECT reference_no FROM u) AND state IN ('pending', 'retrying'))`,
        `b AS (SELECT EXISTS (SELECT 1 FROM notifications WHERE reference_no = (SELECT reference_no FROM u)
           AND state IN ('pending', 'retrying', 'delivering')) AS busy)`,
        `n AS (INSERT INTO notifications (id, reference_no, merchant_id, kind, txn_seq, latest_status, body, state,
           attempt_count, next_attempt_at, created_at, updated_at, request_id, claimed_by, lease_until, callback_url)
         SELECT ${$(n.id, 'text')}, u.reference_no, u.merchant_id, u.kind, u.seq, u.status, ${$(n.body, 'text')},
           CASE WHEN b.busy THEN 'pending' ELSE ${$(n.claim ? 'delivering' : 'pending', 'text')} END, 0,
           ${$(n.nextAttemptAt, 'bigint')}, ${at}, ${at}, ${$(n.requestId ?? null, 'text')},
           CASE WHEN b.busy THEN NULL ELSE ${$(n.claim?.workerId ?? null, 'text')} END,
           CASE WHEN b.busy THEN NULL ELSE ${$(n.claim?.leaseUntil ?? null, 'bigint')} END,
           ${$(n.callbackUrl ?? null, 'text')}
         FROM u, b RETURNING state)`,
      );
    }
    // Each insert reads from the guarded update: nothing is written when the change lost its race.
    if (change.refund) ctes.push(`r AS (${insertCells('refunds', refundCells(change.refund), values, 'u')})`);
    if (change.idempotency) {
      ctes.push(
        `i AS (${insertCells('idempotency_keys', idempotencyCells(change.idempotency, change.at), values, 'u')})`,
      );
    }
    if (change.vaPayment)
      ctes.push(`v AS (${insertCells('va_payments', vaPaymentCells(change.vaPayment), values, 'u')})`);
    if (change.ledger) {
      const cells = ledgerCells(change.ledger);
      ctes.push(
        `l AS (${insertCells('ledger_entries', cells, values, isPayment ? 'u, e' : 'u', isPayment ? [['id', 'e.id']] : [])})`,
      );
    }
    const rows = await this.rows(
      this.pool,
      `WITH ${ctes.join(',\n')}
       SELECT u.*, ${n ? '(SELECT state FROM n)' : 'NULL'} AS notification_state FROM u`,
      values,
    ).catch(rethrowUnique);
    const row = rows[0];
    if (!row) return undefined;
    const txn = transactionFromRow(row);
    this.announcer.announce(txn);
    if (!n || row.notification_state !== 'delivering') return { txn };
    return { txn, claimed: newNotificationRecord(txn, n, change.at, true) };
  }

  async updateTransaction(update: TransactionUpdate): Promise<TransactionRecord | undefined> {
    return this.tx(async (c) => {
      const r = await this.updateGuarded(c, update.referenceNo, update.expectedSeq, updateColumns(update));
      if (!r) return undefined;
      if (update.idempotency) await this.putIdempotency(c, update.idempotency, update.at);
      return transactionFromRow(r);
    }).catch(rethrowUnique);
  }

  async allocateVirtualAccounts(merchantId: string, bankCode: string, count: number): Promise<VirtualAccountNumbers> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.tx(async (c) => {
          // Two merchants taking their first number at the same bank may pick the same prefix:
          // the unique constraint decides, and the loser draws again.
          const taken = await this.rows(c, 'SELECT count(*) AS n FROM va_prefixes WHERE bank_code = $1', [bankCode]);
          await this.run(
            c,
            `INSERT INTO va_prefixes (merchant_id, bank_code, partner_service_id, next_customer_no) VALUES ($1, $2, $3, 1)
             ON CONFLICT (merchant_id, bank_code) DO NOTHING`,
            [merchantId, bankCode, partnerServiceIdFor(bankCode, Number(taken[0]?.n ?? 0) + 1)],
          );
          const r = await this.rows(
            c,
            `UPDATE va_prefixes SET next_customer_no = next_customer_no + $3 WHERE merchant_id = $1 AND bank_code = $2
             RETURNING partner_service_id, next_customer_no - $3 AS first`,
            [merchantId, bankCode, count],
          );
          const row = r[0] as Row;
          return {
            partnerServiceId: String(row.partner_service_id),
            customerNos: customerNosFrom(Number(row.first), count),
          };
        });
      } catch (e) {
        if ((e as { code?: string }).code === '23505' && attempt < 5) continue;
        throw e;
      }
    }
  }

  async claimDueNotifications(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<NotificationRecord[]> {
    // One statement, so one round trip and its own transaction. A claim left by a worker that
    // died, of a notification a newer one has superseded since, is retired on the way.
    const rows = await this.rows(
      this.pool,
      // Each branch walks its own index and stops at the limit (measured: one query over both
      // states sorted the whole due backlog, 33 ms per claim of 200 at a backlog of 20,000,
      // against 7.5 ms). Expired leases are other instances' work that never came back.
      `WITH retired AS (
         UPDATE notifications n SET state = 'superseded', claimed_by = NULL, lease_until = NULL, updated_at = $1
         WHERE n.state = 'delivering' AND n.lease_until <= $1 AND ${NEWER_EXISTS}),
       expired AS (
         SELECT n.id, n.lease_until AS due FROM notifications n
         WHERE n.state = 'delivering' AND n.lease_until <= $1
           AND NOT ${NEWER_EXISTS} AND NOT ${DELIVERING_SIBLING_EXISTS}
         ORDER BY n.lease_until LIMIT $4
         FOR UPDATE SKIP LOCKED),
       pending AS (
         SELECT n.id, n.next_attempt_at AS due FROM notifications n
         WHERE n.state IN ('pending', 'retrying') AND n.next_attempt_at <= $1
           AND NOT ${NEWER_EXISTS} AND NOT ${DELIVERING_SIBLING_EXISTS}
         ORDER BY n.next_attempt_at LIMIT $4
         FOR UPDATE SKIP LOCKED),
       candidates AS (
         SELECT id FROM (SELECT * FROM expired UNION ALL SELECT * FROM pending) c ORDER BY due LIMIT $4)
       UPDATE notifications SET state = 'delivering', claimed_by = $2, lease_until = $1 + $3, updated_at = $1
       FROM candidates WHERE notifications.id = candidates.id
       RETURNING notifications.*`,
      [now, workerId, leaseMs, limit],
    );
    return rows.map(notificationFromRow);
  }

  async recordAttempts(attempts: AttemptRecord[]): Promise<MovedNotification[]> {
    if (attempts.length === 0) return [];
    // One set-based statement per batch, whatever its size (a round trip per attempt was the
    // single-instance limit on PostgreSQL, docs/benchmarks.md): the attempt rows and the
    // notifications' new states commit together. Both parts see the notifications as they were,
    // so attempt_no is the count before this attempt, plus one.
    const col = <T>(f: (a: AttemptRecord) => T) => attempts.map(f);
    const rows = await this.rows(
      this.pool,
      `WITH x AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::int[], $7::text[],
           $8::int[], $9::text[], $10::text[], $11::bool[], $12::bigint[], $13::bigint[])
           AS x(id, worker, started, url, headers, status, body, duration, outcome, error, ack, next, finished)),
       attempts AS (
         INSERT INTO notification_attempts (notification_id, attempt_no, worker_id, started_at, url, request_headers,
           response_status, response_body, duration_ms, outcome, error)
         SELECT x.id, (SELECT attempt_count + 1 FROM notifications WHERE id = x.id), x.worker, x.started, x.url,
           x.headers::jsonb, x.status, x.body, x.duration, x.outcome, x.error
         FROM x)
       UPDATE notifications n SET
         attempt_count = n.attempt_count + 1,
         state = CASE
           WHEN x.ack THEN 'delivered'
           WHEN ${NEWER_EXISTS} THEN 'superseded'
           WHEN x.next IS NULL THEN 'dead'
           ELSE 'retrying' END,
         next_attempt_at = CASE WHEN x.ack THEN NULL ELSE x.next END,
         delivered_at = CASE WHEN x.ack THEN x.finished ELSE n.delivered_at END,
         last_error = x.error, claimed_by = NULL, lease_until = NULL, updated_at = x.finished
       FROM x
       WHERE n.id = x.id AND n.claimed_by = x.worker AND n.state = 'delivering'
       RETURNING ${MOVED_COLUMNS_OF_N}`,
      [
        col((a) => a.notificationId),
        col((a) => a.workerId),
        col((a) => a.startedAt),
        col((a) => a.url),
        col((a) => JSON.stringify(a.requestHeaders)),
        col((a) => a.responseStatus),
        col((a) => a.responseBody),
        col((a) => a.durationMs),
        col((a) => a.outcome),
        col((a) => a.error),
        col((a) => a.outcome === 'acknowledged'),
        col((a) => a.nextAttemptAt ?? null),
        col((a) => a.finishedAt),
      ],
    );
    return rows.map(movedNotificationFromRow);
  }

  async releaseClaims(workerId: string, now: number, keep: readonly string[] = []): Promise<number> {
    const r = await this.run(
      this.pool,
      `UPDATE notifications SET state = CASE WHEN attempt_count = 0 THEN 'pending' ELSE 'retrying' END,
         next_attempt_at = $2, claimed_by = NULL, lease_until = NULL, updated_at = $2
       WHERE claimed_by = $1 AND state = 'delivering' AND NOT (id = ANY($3::text[]))`,
      [workerId, now, [...keep]],
    );
    return r.rowCount ?? 0;
  }
}

import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
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
import { createRecordCache } from '../record-cache.ts';
import { newNotificationRecord, type Row } from '../rows.ts';
import type { Sql } from '../sql.ts';
import { SqlStore } from '../sql-store.ts';
import type { CommitStats, Store } from '../store.ts';
import { isUniqueError, preparedOnce, uniqueViolation } from './sqlite-kit.ts';
import { exitForSupervisor, InlineWriter, ThreadWriter, type Writer, type WriterLost } from './sqlite-writer.ts';
import {
  configureConnection,
  SqliteWrites,
  type WriteFaults,
  type WriteOutcome,
  type WriteRequest,
} from './sqlite-writes.ts';

type Db = Database.Database;

export interface SqliteStoreOptions {
  /** File path, or `:memory:`. */
  file: string;
  /**
   * Where the hot writes run (docs/adr/0009-sqlite-writer-thread.md): on a writer thread with its
   * own connection (the default for a file), or on this connection in the calling thread (always
   * for `:memory:`, and with `faults`, whose functions cannot cross to another thread).
   */
  writer?: 'thread' | 'inline';
  /** The writer thread is gone: the default ends the process, which must not serve without its database. */
  onWriterLost?: (e: WriterLost) => void;
  /** Test hooks that throw inside a transaction, to prove it leaves nothing behind (inline writes). */
  faults?: WriteFaults;
}

/**
 * The database holds every merchant's keys: only the gateway's user may read it. A folder the
 * gateway creates is 0700; the database file is created 0600 (SQLite gives its -wal and -shm files
 * the database file's mode), and an existing one readable by others is tightened to 0600.
 */
function privateDatabaseFiles(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(f)) chmodSync(f, 0o600);
}

const PAGE_SIZE = 2048;
/** The search queue's batches (migration 022): how often, and how many transactions at most each. */
const SEARCH_EVERY_MS = 1000;
const SEARCH_BATCH = 5000;
/** SQLite's page cache for the store's own connection (its reads): 64 MiB. */
const PAGE_CACHE_KIB = 64 * 1024;
/**
 * The writer thread's page cache: 4 MiB. Measured (docs/benchmarks.md, Measured decisions):
 * SQLite (3.53) swaps b-tree pages through the page number of the lock byte when a page splits, and
 * the next COMMIT then walks every slot of the connection's page-cache hash table, which grows
 * with the pages cached (32,768 slots at 64 MiB): 13 % of the writer thread's time under delivery
 * load at 64 MiB, 5–7 % at 16 MiB, 2 % at 4 MiB, on any database under 1 GiB. The writer touches the
 * right edges of its indexes and the paths to them (its reads from the file were as many at 4 MiB
 * as at 16: they are the checkpoints'); the reads that want a large cache run on the store's own
 * connection.
 */
const WRITER_PAGE_CACHE_KIB = 4 * 1024;

/**
 * Integers read exactly: sen past 2^53 (docs/operations.md#money-bounds) stay BigInts, which the
 * books read with `sen()`; every other integer (counts, times, ids) comes back a number as before.
 */
function exactRows(rows: Row[]): Row[] {
  for (const row of rows) {
    for (const key in row) {
      const v = row[key];
      if (typeof v === 'bigint' && v <= MAX_SAFE && v >= -MAX_SAFE) row[key] = Number(v);
    }
  }
  return rows;
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The embedded default store: better-sqlite3, WAL, synchronous=FULL on every open. */
export class SqliteStore extends SqlStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly db: Db;
  protected readonly sql: Sql;
  private readonly stmt: Record<string, Database.Statement>;
  /** Statements of the parts and of retention: prepared once per distinct SQL text. */
  private readonly prepared: (sql: string) => Database.Statement;
  /** Where the hot writes commit: the writer thread, or this connection. */
  readonly writer: Writer;
  private closed = false;
  private readonly commitObservers = new Set<(commit: CommitStats) => void>();
  private readonly searchTimer: NodeJS.Timeout;
  // One process owns an embedded database, so a cache invalidated by this store's own writes is
  // exact. It spares the token and payment hot paths a lookup per request; providers likewise:
  // every provider call reads its provider (token check, then the guard).
  private readonly banksByCode = new Map<string, ProviderRecord[]>();
  protected readonly merchantCache = createRecordCache<MerchantRecord>();
  protected readonly providerCache = createRecordCache<ProviderRecord>({ onForget: () => this.banksByCode.clear() });

  constructor(options: SqliteStoreOptions) {
    super();
    if (options.file !== ':memory:') privateDatabaseFiles(options.file);
    this.db = new Database(options.file);
    // A new database gets 2 KiB pages (measured: every commit writes each page it dirtied whole to
    // the WAL, a dozen index leaves per payment, so 4 KiB pages cost 15–20 % more CPU per payment
    // call). SQLite ignores this for a database that already has tables.
    this.db.pragma(`page_size = ${PAGE_SIZE}`);
    configureConnection(this.db, PAGE_CACHE_KIB);
    this.applyMigrations();
    this.stmt = this.prepareStatements();
    this.prepared = preparedOnce(this.db);
    // The writer opens the file after the migrations, so it prepares against the schema as it is.
    const inline = options.writer === 'inline' || options.faults !== undefined || options.file === ':memory:';
    this.writer = inline
      ? new InlineWriter(new SqliteWrites(this.db, options.faults))
      : new ThreadWriter(options.file, WRITER_PAGE_CACHE_KIB, options.onWriterLost ?? exitForSupervisor);
    // A metric never fails a write (the commit is done, its callers are answered whatever an observer
    // does), nor costs another observer its figures.
    this.writer.onCommit = (commit) => {
      for (const observe of this.commitObservers) {
        try {
          observe(commit);
        } catch {
          // A metric's own failure is nobody's answer.
        }
      }
    };
    // New transactions reach the search index within about a second (a search reads the queue too).
    this.searchTimer = setInterval(() => void this.catchUpSearch().catch(() => undefined), SEARCH_EVERY_MS);
    this.searchTimer.unref();
    // The rest of the store's statements run here; one that writes keeps the writer from starting a
    // commit meanwhile (Writer.mainWrite), reads go on beside its commits (WAL).
    this.sql = {
      dialect: 'sqlite',
      all: async (text, params = []) =>
        this.statement(text, (st) => exactRows(st.safeIntegers(true).all(...params) as Row[])),
      run: async (text, params = []) => this.statement(text, (st) => st.run(...params).changes),
      bool: (value) => (value ? 1 : 0),
    };
  }

  private statement<T>(text: string, work: (st: Database.Statement) => T): T {
    const st = this.prepared(text);
    return this.guardUnique(() => (st.readonly ? work(st) : this.writer.mainWrite(() => work(st))));
  }

  private applyMigrations(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const migrations = readMigrations('sqlite');
    const history = () =>
      (this.db.prepare('SELECT version, name, applied_at FROM schema_migrations').all() as Row[]).map((r) => ({
        version: Number(r.version),
        name: String(r.name),
        appliedAt: Number(r.applied_at),
      }));
    // Renumbered only when the history needs it (reading takes no write lock), then decided again
    // inside the write transaction: another process may be opening the same file.
    if (renumberedHistory(history(), migrations)) {
      this.db
        .transaction(() => {
          const renumbered = renumberedHistory(history(), migrations);
          if (!renumbered) return;
          this.db.exec('DELETE FROM schema_migrations');
          const insert = this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
          for (const r of renumbered) insert.run(r.version, r.name, r.appliedAt);
        })
        .immediate();
    }
    const applied = new Set(history().map((r) => r.version));
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      this.db
        .transaction(() => {
          // Another process opening the same file may have applied it meanwhile.
          if (this.db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return;
          this.db.exec(m.sql);
          this.db
            .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
            .run(m.version, m.name, Date.now());
        })
        .immediate();
    }
  }

  private prepareStatements(): Record<string, Database.Statement> {
    const p = (sql: string) => this.db.prepare(sql);
    return {
      getSetting: p('SELECT value FROM settings WHERE key = ?'),
      searchQueued: p('SELECT 1 FROM transactions_search_queue LIMIT 1'),
      releaseClaims: p(
        `UPDATE notifications SET state = CASE WHEN attempt_count = 0 THEN 'pending' ELSE 'retrying' END,
           next_attempt_at = @now, claimed_by = NULL, lease_until = NULL, updated_at = @now
         WHERE claimed_by = @worker AND state = 'delivering' AND id NOT IN (SELECT value FROM json_each(@keep))`,
      ),
    };
  }

  async migrate(): Promise<void> {
    // Migrations run on open; kept for the interface.
  }

  observeCommits(observer: (commit: CommitStats) => void): void {
    this.commitObservers.add(observer);
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    if (this.writer.isLost) throw new Error('the SQLite writer thread is gone');
  }

  async close(): Promise<void> {
    clearInterval(this.searchTimer);
    // Writes asked for before close still commit (and answer) first.
    this.commitWrites();
    this.closed = true;
    await this.writer.close();
    if (this.db.open) this.db.close();
  }

  async resealSecrets(reseal: Reseal, settings: ReadonlySet<string>): Promise<number> {
    let changed = 0;
    const run = this.db.transaction(() => {
      for (const table of SECRET_TABLES) {
        const columns = SECRET_COLUMNS[table];
        const update = this.db.prepare(`UPDATE ${table} SET ${columns.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`);
        for (const row of this.db
          .prepare(`SELECT id, ${columns.join(', ')} FROM ${table} WHERE ${anySecret(columns)}`)
          .all() as Row[]) {
          const next = resealRow(table, row, reseal);
          if (!next) continue;
          update.run(...columns.map((c) => next[c]), row.id);
          changed++;
        }
      }
      const setSetting = this.db.prepare('UPDATE settings SET value = ? WHERE key = ?');
      for (const key of settings) {
        const row = this.s('getSetting').get(key) as { value: string } | undefined;
        const next = row ? reseal(row.value, { table: 'settings', key }) : undefined;
        if (next === undefined) continue;
        setSetting.run(next, key);
        changed++;
      }
    });
    // What a rewrite replaces is zeroed, and the old page images leave the write-ahead log: a clear
    // secret sealed now is not left behind in the file.
    this.writer.mainWrite(() => {
      this.db.pragma('secure_delete = ON');
      try {
        // IMMEDIATE: a deferred transaction that reads first cannot wait for the writer thread's lock (SQLITE_BUSY at once).
        run.immediate();
      } finally {
        this.db.pragma('secure_delete = OFF');
      }
      if (changed > 0) this.db.pragma('wal_checkpoint(TRUNCATE)');
    });
    this.merchantCache.forget();
    this.providerCache.forget();
    return changed;
  }

  override async findBanks(bankCode: string): Promise<ProviderRecord[]> {
    // Every VA create in production asks; the answer changes only with a provider write here.
    let banks = this.banksByCode.get(bankCode);
    if (!banks) {
      const generation = this.providerCache.generation();
      banks = (await super.findBanks(bankCode)).map((p) => {
        const known = this.providerCache.get('id', p.id);
        if (known) return known;
        this.providerCache.remember(p, generation);
        return p;
      });
      // A provider write since the read leaves the list out of the cache, as it does each record.
      if (this.providerCache.generation() === generation) this.banksByCode.set(bankCode, banks);
    }
    return [...banks];
  }

  async recordInbound(calls: readonly InboundCall[]): Promise<void> {
    return this.write({ name: 'recordInbound', args: [calls] });
  }

  async pruneBefore(before: number, limit: number): Promise<{ attempts: number; idempotencyKeys: number }> {
    return this.writer.mainWrite(() => {
      const attempts = this.prepared(
        `UPDATE notification_attempts SET request_headers = '{}', response_body = NULL
       WHERE id IN (
         SELECT a.id FROM notification_attempts a JOIN notifications n ON n.id = a.notification_id
         WHERE a.started_at < ? AND a.request_headers <> '{}' AND n.state IN ('delivered', 'superseded')
         ORDER BY a.started_at LIMIT ?)`,
      ).run(before, limit).changes;
      const idempotencyKeys = this.prepared(
        `DELETE FROM idempotency_keys WHERE rowid IN (
         SELECT rowid FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
      ).run(before, limit).changes;
      return { attempts, idempotencyKeys };
    });
  }

  async insertIdempotency(record: IdempotencyRecord, at: number): Promise<void> {
    return this.write({ name: 'insertIdempotency', args: [record, at] });
  }

  async insertTransaction(txn: TransactionRecord, idempotency?: IdempotencyRecord): Promise<void> {
    return this.write({ name: 'insertTransaction', args: [txn, idempotency] });
  }

  async changeStatus(change: StatusChange): Promise<StatusChanged | undefined> {
    const { next, ...rest } = change;
    if (!next) return this.write<StatusChanged | undefined>({ name: 'changeStatus', args: [change] });
    // The answer is taken on trust: a post-image of another row or another change is a caller's bug.
    if (
      next.referenceNo !== change.referenceNo ||
      next.seq !== change.expectedSeq + 1 ||
      next.status !== change.status
    ) {
      throw new TypeError(`the post-image of ${change.referenceNo} is not this change's`);
    }
    // The caller knows the row as the change makes it: the writer answers only whether it applied.
    const lean = await this.write<{ claimed: boolean } | undefined>({
      name: 'changeStatusLean',
      args: [rest, { merchantId: next.merchantId, kind: next.kind }],
    });
    if (!lean) return undefined;
    const n = lean.claimed ? change.notification : undefined;
    return { txn: next, claimed: n && newNotificationRecord(next, n, change.at, true) };
  }

  async updateTransaction(update: TransactionUpdate): Promise<TransactionRecord | undefined> {
    return this.write({ name: 'updateTransaction', args: [update] });
  }

  async allocateVirtualAccounts(merchantId: string, bankCode: string, count: number): Promise<VirtualAccountNumbers> {
    return this.write({ name: 'allocateVirtualAccounts', args: [merchantId, bankCode, count] });
  }

  async claimDueNotifications(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<NotificationRecord[]> {
    // The dispatcher's claims and results are batches already: they go at once, with whatever else
    // is waiting (measured: waiting for the turn added 5–8 ms to every callback's latency).
    return this.write({ name: 'claimDue', args: [workerId, now, leaseMs, limit] }, 'now');
  }

  async recordAttempts(attempts: AttemptRecord[]): Promise<MovedNotification[]> {
    return this.write({ name: 'recordAttempts', args: [attempts] }, 'now');
  }

  /**
   * Moves the transactions queued for the search index into it, in batches (migration 022): run
   * about once a second by the store itself, and by tests. How many were indexed.
   */
  async catchUpSearch(): Promise<number> {
    let moved = 0;
    while (!this.closed && this.db.open && this.s('searchQueued').get() !== undefined) {
      const n = await this.write<number>({ name: 'indexSearch', args: [SEARCH_BATCH] }, 'now');
      moved += n;
      if (n < SEARCH_BATCH) break;
    }
    return moved;
  }

  async releaseClaims(workerId: string, now: number, keep: readonly string[] = []): Promise<number> {
    return this.writer.mainWrite(
      () => this.s('releaseClaims').run({ worker: workerId, now, keep: JSON.stringify(keep) }).changes,
    );
  }

  /**
   * Group commit: every hot write asked for in one event-loop turn (status changes, new
   * transactions, VA numbers, …) goes to the writer in one batch, where it commits with whatever
   * else is waiting, each write in its own savepoint (SqliteWrites.commit). Every caller is answered
   * after the COMMIT, so an answer never gets ahead of durability; a failed COMMIT fails them all.
   */
  private write<T>(request: WriteRequest, when: 'this turn' | 'now' = 'this turn'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pendingWrites.push({ request, resolve: resolve as (v: unknown) => void, reject });
      // An explicit transaction is open (it ends within this turn): the batch commits after it.
      if (this.isInExplicitTransaction)
        return void (this.pendingWrites.length === 1 && setImmediate(() => this.commitWrites()));
      if (when === 'now') this.commitWrites();
      // A timer here would only add latency for callers who wait for their answer before sending
      // more (measured in bench:delivery); the writes of this turn are all queued by setImmediate.
      else if (this.pendingWrites.length === 1) setImmediate(() => this.commitWrites());
    });
  }

  private readonly pendingWrites: Array<{
    request: WriteRequest;
    resolve: (value: unknown) => void;
    reject: (e: unknown) => void;
  }> = [];

  private isInExplicitTransaction = false;

  /** Several statements through `sql` (a settlement): synchronous underneath, it ends within the turn. */
  protected async transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    this.commitWrites();
    if (this.isInExplicitTransaction || this.db.inTransaction) throw new TypeError('a transaction is already open');
    this.isInExplicitTransaction = true;
    const { writer } = this;
    return writer.mainWrite(async () => {
      this.db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(this.sql);
        this.db.exec('COMMIT');
        return result;
      } catch (e) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        throw e;
      } finally {
        this.isInExplicitTransaction = false;
      }
    });
  }

  private commitWrites(): void {
    if (this.isInExplicitTransaction) return;
    const batch = this.pendingWrites.splice(0);
    if (batch.length === 0) return;
    if (!this.db.open || this.closed) {
      for (const item of batch) item.reject(new Error('the store is closed'));
      return;
    }
    this.writer.submit(batch.map((item) => item.request)).then(
      (outcomes) =>
        batch.forEach((item, i) => {
          const o = outcomes[i] as WriteOutcome;
          if (o.ok) item.resolve(o.value);
          else item.reject(o.error);
        }),
      (error) => {
        for (const item of batch) item.reject(error);
      },
    );
  }

  private guardUnique<T>(work: () => T): T {
    try {
      return work();
    } catch (e) {
      if (isUniqueError(e)) throw uniqueViolation(e);
      throw e;
    }
  }

  protected s(name: string): Database.Statement {
    const st = this.stmt[name];
    if (!st) throw new TypeError(`no prepared statement ${name}`);
    return st;
  }
}

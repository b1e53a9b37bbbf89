import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { decodeCursor, toPage } from '../cursor.ts';
import { readMigrations } from '../migrations.ts';
import { MERCHANT_COLUMNS, merchantFromRow, merchantToRow, type Row } from '../rows.ts';
import {
  type MerchantPatch,
  type MerchantRecord,
  type Page,
  type PageRequest,
  type Store,
  UniqueViolation,
} from '../store.ts';

type Db = Database.Database;

function isUniqueError(e: unknown): e is Error & { code: string; message: string } {
  return (
    e instanceof Error &&
    ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' ||
      (e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}

/** Turns `UNIQUE constraint failed: merchants.partner_id` into `merchants.partner_id`. */
export function uniqueViolation(e: Error): UniqueViolation {
  const m = /constraint failed: (.+)$/.exec(e.message);
  return new UniqueViolation(m?.[1] ?? 'unknown', e);
}

export interface SqliteStoreOptions {
  /** File path, or `:memory:`. */
  file: string;
}

/** The embedded default store: better-sqlite3, WAL, synchronous=FULL on every open. */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly db: Db;
  private readonly stmt: Record<string, Database.Statement>;

  constructor(options: SqliteStoreOptions) {
    if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true });
    this.db = new Database(options.file);
    this.db.pragma('journal_mode = WAL');
    // STACK: reopening a WAL database resets synchronous to its default.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.applyMigrations();
    this.stmt = this.prepareStatements();
  }

  private applyMigrations(): void {
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
    );
    const applied = new Set(
      (this.db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version),
    );
    for (const m of readMigrations(new URL('./migrations/', import.meta.url))) {
      if (applied.has(m.version)) continue;
      this.db
        .transaction(() => {
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
      insertSetting: p('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING'),
      insertMerchant: p(
        `INSERT INTO merchants (${Object.keys(merchantToRow({} as MerchantRecord)).join(', ')})
         VALUES (${Object.keys(merchantToRow({} as MerchantRecord))
           .map((k) => `@${k}`)
           .join(', ')})`,
      ),
      merchantById: p('SELECT * FROM merchants WHERE id = ?'),
      merchantByClientKey: p('SELECT * FROM merchants WHERE client_key = ?'),
      countMerchants: p('SELECT count(*) AS n FROM merchants'),
      listMerchantsFirst: p('SELECT * FROM merchants ORDER BY created_at, id LIMIT ?'),
      listMerchantsAfter: p(
        'SELECT * FROM merchants WHERE (created_at > @t OR (created_at = @t AND id > @id)) ORDER BY created_at, id LIMIT @limit',
      ),
      rotateSecret: p(
        `UPDATE merchants SET previous_secret = client_secret, previous_valid_until = ?, client_secret = ?,
           secret_version = secret_version + 1, updated_at = ? WHERE id = ?`,
      ),
    };
  }

  async migrate(): Promise<void> {
    // Migrations run on open; kept for the interface.
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async getSetting(key: string): Promise<string | undefined> {
    return (this.s('getSetting').get(key) as { value: string } | undefined)?.value;
  }

  async getOrCreateSetting(key: string, create: () => string): Promise<string> {
    const existing = await this.getSetting(key);
    if (existing !== undefined) return existing;
    this.s('insertSetting').run(key, create());
    return (await this.getSetting(key)) as string;
  }

  async insertMerchant(merchant: MerchantRecord): Promise<void> {
    try {
      this.s('insertMerchant').run(merchantToRow(merchant));
    } catch (e) {
      if (isUniqueError(e)) throw uniqueViolation(e);
      throw e;
    }
  }

  async findMerchantById(id: string): Promise<MerchantRecord | undefined> {
    const r = this.s('merchantById').get(id) as Row | undefined;
    return r ? merchantFromRow(r) : undefined;
  }

  async findMerchantByClientKey(clientKey: string): Promise<MerchantRecord | undefined> {
    const r = this.s('merchantByClientKey').get(clientKey) as Row | undefined;
    return r ? merchantFromRow(r) : undefined;
  }

  async countMerchants(): Promise<number> {
    return (this.s('countMerchants').get() as { n: number }).n;
  }

  async listMerchants(page: PageRequest): Promise<Page<MerchantRecord>> {
    const after = page.cursor ? decodeCursor(page.cursor) : undefined;
    const rows = (
      after
        ? this.s('listMerchantsAfter').all({ t: after[0], id: after[1], limit: page.limit + 1 })
        : this.s('listMerchantsFirst').all(page.limit + 1)
    ) as Row[];
    return toPage(rows.map(merchantFromRow), page.limit, (m) => [m.createdAt, m.id]);
  }

  async updateMerchant(id: string, patch: MerchantPatch, updatedAt: number): Promise<MerchantRecord | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const column = MERCHANT_COLUMNS[field];
      if (!column || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(value);
    }
    sets.push('updated_at = ?');
    values.push(updatedAt, id);
    try {
      this.db.prepare(`UPDATE merchants SET ${sets.join(', ')} WHERE id = ?`).run(...values);
    } catch (e) {
      if (isUniqueError(e)) throw uniqueViolation(e);
      throw e;
    }
    return this.findMerchantById(id);
  }

  async rotateMerchantSecret(
    id: string,
    rotation: { clientSecret: string; previousValidUntil: number; rotatedAt: number },
  ): Promise<MerchantRecord | undefined> {
    this.s('rotateSecret').run(rotation.previousValidUntil, rotation.clientSecret, rotation.rotatedAt, id);
    return this.findMerchantById(id);
  }

  protected s(name: string): Database.Statement {
    const st = this.stmt[name];
    if (!st) throw new TypeError(`no prepared statement ${name}`);
    return st;
  }
}

// PostgreSQL's own way of running statements: named prepared statements (rerun once when a newer
// instance changed a table under them), unique violations as UniqueViolation, typed insert cells.
import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  DatabaseTimeout,
  type IdempotencyRecord,
  type RefundRecord,
  UniqueViolation,
  type VaPaymentRecord,
} from '../../records/records.ts';
import { MOVED_NOTIFICATION_COLUMNS, type Row } from '../rows.ts';
import { numberedPlaceholders, type Sql } from '../sql.ts';

export type Client = pg.PoolClient | pg.Pool;

const statementDigests = new Map<string, string>();
/** Bumped when a newer instance changed a table under prepared statements (a rolling upgrade). */
let statementGeneration = 0;
/**
 * Every statement with parameters is a named prepared statement (its name a digest of its text):
 * each connection parses and plans it once, then only binds and runs it (measured: parsing and
 * planning were a large part of PostgreSQL's CPU per callback, docs/benchmarks.md).
 */
function prepared(text: string, values: unknown[]): pg.QueryConfig | string {
  // Without parameters (BEGIN, COMMIT, a migration's script) it is a plain query.
  if (values.length === 0) return text;
  let digest = statementDigests.get(text);
  if (digest === undefined) {
    digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
    statementDigests.set(text, digest);
  }
  return { name: `sg${statementGeneration}_${digest}`, text, values };
}

/** PostgreSQL refuses a prepared `SELECT *` whose table gained a column since it was prepared. */
export const isStalePlan = (e: unknown) =>
  (e as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String(e));

export async function query(client: Client, text: string, values: unknown[]): Promise<pg.QueryResult> {
  const q = prepared(text, values);
  if (typeof q === 'string') return client.query(q);
  try {
    return await client.query(q);
  } catch (e) {
    if (!isStalePlan(e)) throw e;
    // Prepared anew under fresh names (once per generation); the old ones die with their connections.
    if (q.name === `sg${statementGeneration}_${statementDigests.get(text)}`) statementGeneration++;
    // Inside a transaction the error aborted it: the transaction is run again whole (tx()).
    if (!(client instanceof pg.Pool)) throw e;
    return client.query(prepared(text, values));
  }
}

/** The statements of store/parts/ run on the pool, or on one client inside a transaction. */
export function sqlOn(client: Client): Sql {
  const rows = async (text: string, params: readonly unknown[]) =>
    query(client, numberedPlaceholders(text), [...params]).catch(rethrowUnique);
  return {
    dialect: 'postgres',
    all: async (text, params = []) => (await rows(text, params)).rows as Row[],
    run: async (text, params = []) => (await rows(text, params)).rowCount ?? 0,
    bool: (value) => value,
  };
}

/** PostgreSQL's codes for a statement cancelled by statement_timeout and for lock_timeout. */
const TIMED_OUT = new Set(['57014', '55P03']);

/** A unique violation as UniqueViolation, a statement or lock timeout as DatabaseTimeout. */
export function rethrowUnique(e: unknown): never {
  const err = e as { code?: string; constraint?: string };
  if (err.code === '23505') throw new UniqueViolation(err.constraint ?? 'unknown', e);
  if (err.code !== undefined && TIMED_OUT.has(err.code)) throw new DatabaseTimeout(e);
  throw e;
}

/** `INSERT INTO t (a, b) VALUES ($1, $2)` from a row object. */
export function insertSql(table: string, row: Row): { text: string; values: unknown[] } {
  const cols = Object.keys(row);
  return {
    text: `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
    values: cols.map((c) => row[c]),
  };
}

/** A row to insert: each column with its value and PostgreSQL type (a SELECT of parameters needs the casts). */
export type Cells = Array<[column: string, value: unknown, type: 'text' | 'integer' | 'bigint']>;

/**
 * `INSERT INTO table (…) SELECT $n::type, …`, from `source` when given; its parameters go on
 * `values`. `computed` columns take an SQL expression of the source instead of a parameter.
 */
export function insertCells(
  table: string,
  cells: Cells,
  values: unknown[],
  source?: string,
  computed: Array<[column: string, expression: string]> = [],
): string {
  const params = cells.map(([, value, type]) => {
    values.push(value);
    return `$${values.length}::${type}`;
  });
  const columns = [...computed.map(([column]) => column), ...cells.map(([column]) => column)];
  return `INSERT INTO ${table} (${columns.join(', ')})
    SELECT ${[...computed.map(([, expression]) => expression), ...params].join(', ')}${source ? ` FROM ${source}` : ''}`;
}

export const refundCells = (r: RefundRecord): Cells => [
  ['refund_no', r.refundNo, 'text'],
  ['reference_no', r.referenceNo, 'text'],
  ['merchant_id', r.merchantId, 'text'],
  ['partner_refund_no', r.partnerRefundNo, 'text'],
  ['amount', r.amount, 'text'],
  ['reason', r.reason, 'text'],
  ['created_at', r.createdAt, 'bigint'],
];

export const idempotencyCells = (i: IdempotencyRecord, at: number): Cells => [
  ['merchant_id', i.merchantId, 'text'],
  ['day', i.day, 'text'],
  ['external_id', i.externalId, 'text'],
  ['request_hash', i.requestHash, 'text'],
  ['http_status', i.httpStatus, 'integer'],
  ['response_body', i.responseBody, 'text'],
  ['created_at', at, 'bigint'],
];

export const vaPaymentCells = (v: VaPaymentRecord): Cells => [
  ['provider_id', v.providerId, 'text'],
  ['payment_request_id', v.paymentRequestId, 'text'],
  ['reference_no', v.referenceNo, 'text'],
  ['http_status', v.httpStatus, 'integer'],
  ['response_body', v.responseBody, 'text'],
  ['created_at', v.createdAt, 'bigint'],
];

export const NEWER_EXISTS = `EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = n.reference_no AND o.txn_seq > n.txn_seq)`;
export const MOVED_COLUMNS_OF_N = MOVED_NOTIFICATION_COLUMNS.split(', ')
  .map((c) => `n.${c}`)
  .join(', ');
/** Another notification of the same transaction is being sent (its lease still runs). */
export const DELIVERING_SIBLING_EXISTS = `EXISTS (SELECT 1 FROM notifications o WHERE o.reference_no = n.reference_no
  AND o.id <> n.id AND o.state = 'delivering' AND o.lease_until > $1)`;

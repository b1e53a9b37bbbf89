import type { ProviderPatch, ProviderRecord } from '../../records/provider-records.ts';
import type { MerchantPatch, MerchantRecord, Page, PageRequest, StoredInboundCall } from '../../records/records.ts';
import {
  inboundFromRow,
  merchantFromRow,
  merchantToRow,
  merchantUpdateColumns,
  providerFromRow,
  providerToRow,
  providerUpdateColumns,
} from '../client-rows.ts';
import { decodeCursor, toPage } from '../cursor.ts';
import type { Row } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';

// Clients: merchants and providers, the two kinds of party that hold SNAP credentials here. Their
// tables differ in columns, not in how they are written, read, listed or rotated: one code for both.

/** How one kind of client is stored. */
export interface ClientTable<T, P> {
  table: 'merchants' | 'providers';
  toRow(record: T, sql: Sql): Row;
  fromRow(row: Row): T;
  updateColumns(patch: P, updatedAt: number): Array<[string, unknown]>;
}

export const MERCHANTS: ClientTable<MerchantRecord, MerchantPatch> = {
  table: 'merchants',
  toRow: (m) => merchantToRow(m),
  fromRow: merchantFromRow,
  updateColumns: (patch, at) => merchantUpdateColumns(patch, at),
};

export const PROVIDERS: ClientTable<ProviderRecord, ProviderPatch> = {
  table: 'providers',
  toRow: (p, sql) => providerToRow(p, sql.dialect === 'sqlite'),
  fromRow: providerFromRow,
  updateColumns: (patch, at) => providerUpdateColumns(patch, at),
};

/** A secret rotation: the current secret becomes the previous one, valid until `previousValidUntil`. */
export interface SecretRotation {
  clientSecret: string;
  previousValidUntil: number;
  rotatedAt: number;
  /** Rotates only while the secret is still this version (what the rotating page showed). */
  fromVersion?: number | undefined;
}

export async function insertClient<T, P>(sql: Sql, t: ClientTable<T, P>, record: T): Promise<void> {
  await sql.run(...insertRow(t.table, t.toRow(record, sql)));
}

export async function findClient<T, P>(
  sql: Sql,
  t: ClientTable<T, P>,
  by: 'id' | 'client_key',
  key: string,
): Promise<T | undefined> {
  const r = await firstRow(sql.all(`SELECT * FROM ${t.table} WHERE ${by} = ?`, [key]));
  return r ? t.fromRow(r) : undefined;
}

/** Oldest first, paged by (created_at, id). */
export async function listClients<T extends { createdAt: number; id: string }, P>(
  sql: Sql,
  t: ClientTable<T, P>,
  page: PageRequest,
): Promise<Page<T>> {
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  // Newest first, as every admin list that is not a log (`oldestFirst` turns it around).
  const [cmp, dir] = page.oldestFirst ? ['>', 'ASC'] : ['<', 'DESC'];
  const rows = after
    ? await sql.all(
        `SELECT * FROM ${t.table} WHERE (created_at ${cmp} ? OR (created_at = ? AND id ${cmp} ?))
         ORDER BY created_at ${dir}, id ${dir} LIMIT ?`,
        [after[0], after[0], after[1], page.limit + 1],
      )
    : await sql.all(`SELECT * FROM ${t.table} ORDER BY created_at ${dir}, id ${dir} LIMIT ?`, [page.limit + 1]);
  return toPage(rows.map(t.fromRow), page.limit, (c) => [c.createdAt, c.id]);
}

export async function updateClient<T, P>(
  sql: Sql,
  t: ClientTable<T, P>,
  id: string,
  patch: P,
  updatedAt: number,
): Promise<T | undefined> {
  const sets = t.updateColumns(patch, updatedAt);
  const r = await firstRow(
    sql.all(`UPDATE ${t.table} SET ${sets.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ? RETURNING *`, [
      ...sets.map(([, v]) => v),
      id,
    ]),
  );
  return r ? t.fromRow(r) : undefined;
}

export async function rotateClientSecret<T, P>(
  sql: Sql,
  t: ClientTable<T, P>,
  id: string,
  rotation: SecretRotation,
): Promise<T | undefined> {
  const r = await firstRow(
    sql.all(
      `UPDATE ${t.table} SET previous_secret = client_secret, previous_valid_until = ?, client_secret = ?,
         secret_version = secret_version + 1, updated_at = ?
       WHERE id = ?${rotation.fromVersion === undefined ? '' : ' AND secret_version = ?'} RETURNING *`,
      [
        rotation.previousValidUntil,
        rotation.clientSecret,
        rotation.rotatedAt,
        id,
        ...(rotation.fromVersion === undefined ? [] : [rotation.fromVersion]),
      ],
    ),
  );
  return r ? t.fromRow(r) : undefined;
}

export async function countMerchants(sql: Sql): Promise<number> {
  return Number((await firstRow(sql.all('SELECT count(*) AS n FROM merchants')))?.n ?? 0);
}

/** The real (not sandbox) banks with a bankCode, oldest first. */
export async function findBanks(sql: Sql, bankCode: string): Promise<ProviderRecord[]> {
  const rows = await sql.all(
    `SELECT * FROM providers WHERE kind = 'bank' AND bank_code = ? AND is_sandbox = ? ORDER BY created_at, id`,
    [bankCode, sql.bool(false)],
  );
  return rows.map(providerFromRow);
}

/** The acquirer named to acquire the QRIS snapgate issues itself, if one is. */
export async function findGatewayQrisAcquirer(sql: Sql): Promise<ProviderRecord | undefined> {
  const rows = await sql.all('SELECT * FROM providers WHERE acquires_gateway_qris = 1');
  return rows[0] ? providerFromRow(rows[0]) : undefined;
}

/** The active e-wallet provider that serves this wallet (`payOption`), if one does. */
export async function findWallet(sql: Sql, payOption: string): Promise<ProviderRecord | undefined> {
  const rows = await sql.all(
    `SELECT * FROM providers WHERE kind = 'ewallet' AND pay_option = ? AND status = 'active'`,
    [payOption],
  );
  return rows[0] ? providerFromRow(rows[0]) : undefined;
}

/** The provider that is the payout bank (payouts set), if one is. */
export async function findPayoutBank(sql: Sql): Promise<ProviderRecord | undefined> {
  const rows = await sql.all('SELECT * FROM providers WHERE payouts IS NOT NULL');
  return rows[0] ? providerFromRow(rows[0]) : undefined;
}

/** A provider's inbound calls, newest first. */
export async function listInbound(sql: Sql, providerId: string, page: PageRequest): Promise<Page<StoredInboundCall>> {
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  const rows = await sql.all(
    'SELECT * FROM provider_inbound WHERE provider_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
    [providerId, after ? after[0] : Number.MAX_SAFE_INTEGER, page.limit + 1],
  );
  return toPage(rows.map(inboundFromRow), page.limit, (c) => [c.id, '']);
}

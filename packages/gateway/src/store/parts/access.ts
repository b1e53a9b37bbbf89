import type {
  AdminKeyRecord,
  AdminScope,
  AuditEntry,
  AuditOutcome,
  Page,
  PageRequest,
  StoredAuditEntry,
} from '../../records/records.ts';
import { decodeCursor, toPage } from '../cursor.ts';
import { num, numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import type { AdminKeyRevocation, PortalLinkUse } from '../store.ts';

// Access and audit: named admin keys (stored hashed), console sessions, the append-only audit log.

export function adminKeyFromRow(r: Row): AdminKeyRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    scope: r.scope as AdminScope,
    tokenSha256: String(r.token_sha256),
    createdAt: num(r.created_at),
    lastUsedAt: numOrNull(r.last_used_at),
    revokedAt: numOrNull(r.revoked_at),
    sessionsNotBefore: numOrNull(r.sessions_not_before),
  };
}

export function adminKeyToRow(k: AdminKeyRecord): Row {
  return {
    id: k.id,
    name: k.name,
    scope: k.scope,
    token_sha256: k.tokenSha256,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
  };
}

export function auditToRow(e: AuditEntry): Row {
  return {
    at: e.at,
    key_id: e.keyId,
    key_name: e.keyName,
    address: e.address,
    method: e.method,
    path: e.path,
    action: e.action,
    target: e.target,
    http_status: e.httpStatus,
    request: e.request,
    before: e.before,
    after: e.after,
  };
}

export function auditFromRow(r: Row): StoredAuditEntry {
  return {
    id: num(r.id),
    at: num(r.at),
    keyId: String(r.key_id),
    keyName: String(r.key_name),
    address: String(r.address),
    method: String(r.method),
    path: String(r.path),
    action: String(r.action),
    target: strOrNull(r.target),
    httpStatus: num(r.http_status),
    request: strOrNull(r.request),
    before: strOrNull(r.before),
    after: strOrNull(r.after),
  };
}

/** One admin list query: equality filters, a time range, a search over several columns, a cursor. */

/** `INSERT INTO table (a, b, …) VALUES (?, ?, …)` with the values of a row object. */
export function insertRow(table: string, row: Row): [text: string, values: unknown[]] {
  const columns = Object.keys(row);
  return [
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    columns.map((c) => row[c]),
  ];
}

export async function insertAdminKey(sql: Sql, key: AdminKeyRecord): Promise<void> {
  await sql.run(...insertRow('admin_keys', adminKeyToRow(key)));
}

export async function findAdminKeyByHash(sql: Sql, tokenSha256: string): Promise<AdminKeyRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM admin_keys WHERE token_sha256 = ?', [tokenSha256]));
  return r ? adminKeyFromRow(r) : undefined;
}

export async function listAdminKeys(sql: Sql): Promise<AdminKeyRecord[]> {
  return (await sql.all('SELECT * FROM admin_keys ORDER BY created_at, id')).map(adminKeyFromRow);
}

/**
 * One statement: the key is revoked unless it is an active admin key and no other active admin key
 * remains. Atomic on SQLite (writes are serialised); PostgreSQL first locks the key and the active
 * admin keys in the same transaction (PostgresStore.revokeAdminKey), as two revokes under READ
 * COMMITTED would each still see the other key active.
 */
export async function revokeAdminKey(sql: Sql, id: string, at: number): Promise<AdminKeyRevocation> {
  const r = await firstRow(
    sql.all(
      `UPDATE admin_keys SET revoked_at = COALESCE(revoked_at, ?)
       WHERE id = ? AND (scope <> 'admin' OR revoked_at IS NOT NULL OR EXISTS (
         SELECT 1 FROM admin_keys AS other WHERE other.scope = 'admin' AND other.revoked_at IS NULL AND other.id <> ?))
       RETURNING *`,
      [at, id, id],
    ),
  );
  if (r) return { outcome: 'revoked', key: adminKeyFromRow(r) };
  const exists = await firstRow(sql.all('SELECT id FROM admin_keys WHERE id = ?', [id]));
  return exists ? { outcome: 'last-admin-key' } : { outcome: 'not-found' };
}

/** Console or portal sessions issued until `at` are refused (log-out); a merchant's change is a merchant write. */
export async function endConsoleSessions(
  sql: Sql,
  who: { adminKeyId: string } | { merchantId: string },
  at: number,
): Promise<void> {
  if ('adminKeyId' in who) {
    await sql.run('UPDATE admin_keys SET sessions_not_before = ? WHERE id = ?', [at, who.adminKeyId]);
  } else {
    await sql.run('UPDATE merchants SET portal_not_before = ? WHERE id = ?', [at, who.merchantId]);
  }
}

/**
 * Records the first use of a portal sign-in link: true when this call recorded it, false when the
 * link was used before. One statement decides (the primary key), so of two uses at once exactly one
 * is first on either engine, and on any instance. Uses of links expired before `forgetBefore` go
 * first: their signature refuses those links anyway.
 */
export async function usePortalLink(sql: Sql, use: PortalLinkUse, forgetBefore: number): Promise<boolean> {
  await sql.run('DELETE FROM portal_link_uses WHERE expires_at < ?', [forgetBefore]);
  const recorded = await sql.run(
    `INSERT INTO portal_link_uses (nonce, merchant_id, used_at, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (nonce) DO NOTHING`,
    [use.nonce, use.merchantId, use.usedAt, use.expiresAt],
  );
  return recorded === 1;
}

export async function isPortalLinkUsed(sql: Sql, nonce: string): Promise<boolean> {
  return (await firstRow(sql.all('SELECT 1 AS used FROM portal_link_uses WHERE nonce = ?', [nonce]))) !== undefined;
}

export async function touchAdminKey(sql: Sql, id: string, at: number): Promise<void> {
  await sql.run('UPDATE admin_keys SET last_used_at = ? WHERE id = ?', [at, id]);
}

/** The SNAPGATE_ADMIN_TOKEN key: created on first start, its hash replaced when the token changes. */
export async function upsertBootstrapAdminKey(sql: Sql, name: string, tokenSha256: string, at: number): Promise<void> {
  await sql.run(
    `INSERT INTO admin_keys (id, name, scope, token_sha256, created_at) VALUES (?, ?, 'admin', ?, ?)
     ON CONFLICT (name) DO UPDATE SET token_sha256 = excluded.token_sha256
     WHERE admin_keys.token_sha256 <> excluded.token_sha256`,
    [`key_${name}`, name, tokenSha256, at],
  );
}

/** Appends a row to the audit log; its id. */
export async function appendAudit(sql: Sql, entry: AuditEntry): Promise<number> {
  const [text, values] = insertRow('audit_log', auditToRow(entry));
  const r = await firstRow(sql.all(`${text} RETURNING id`, values));
  return num((r as Row).id);
}

/** How an action whose audit row was written before it ran ended (once). */
export async function appendAuditOutcome(sql: Sql, auditId: number, outcome: AuditOutcome): Promise<void> {
  await sql.run(
    'INSERT INTO audit_outcomes (audit_id, at, http_status, target, action, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [
      auditId,
      outcome.at,
      outcome.httpStatus,
      outcome.target,
      outcome.action ?? null,
      outcome.before ?? null,
      outcome.after,
    ],
  );
}

/** A row with its outcome, when one was appended: the answer's status, target, resource before (when the row had none) and after. */
const AUDIT_WITH_OUTCOME = `SELECT a.id, a.at, a.key_id, a.key_name, a.address, a.method, a.path,
  COALESCE(o.action, a.action) AS action, a.request,
  COALESCE(a.before, o.before) AS before, COALESCE(a.target, o.target) AS target, COALESCE(o.http_status, a.http_status) AS http_status,
  COALESCE(o.after, a.after) AS after
  FROM audit_log a LEFT JOIN audit_outcomes o ON o.audit_id = a.id`;

/** Newest first. */
export async function listAudit(
  sql: Sql,
  page: PageRequest,
  filter: { target?: string } = {},
): Promise<Page<StoredAuditEntry>> {
  const after = page.cursor ? decodeCursor(page.cursor) : undefined;
  const before = after ? after[0] : Number.MAX_SAFE_INTEGER;
  const rows =
    filter.target === undefined
      ? await sql.all(`${AUDIT_WITH_OUTCOME} WHERE a.id < ? ORDER BY a.id DESC LIMIT ?`, [before, page.limit + 1])
      : await sql.all(
          `${AUDIT_WITH_OUTCOME} WHERE (a.target = ? OR o.target = ?) AND a.id < ? ORDER BY a.id DESC LIMIT ?`,
          [filter.target, filter.target, before, page.limit + 1],
        );
  return toPage(rows.map(auditFromRow), page.limit, (e) => [e.id, '']);
}

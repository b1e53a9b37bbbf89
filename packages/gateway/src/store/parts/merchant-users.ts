import type {
  MerchantRole,
  MerchantUser,
  MerchantUserChange,
  MerchantUserGuard,
  MerchantUserKey,
  MerchantUserStatus,
  SignInFailure,
} from '../../records/merchant-user-records.ts';
import { num, numOrNull, type Row, strOrNull } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';

// Merchant users (docs/merchant-users.md): one row each; the TOTP secret as the sealed store gives it.

const COLUMN: Record<keyof MerchantUserChange | 'id' | 'email' | 'merchantId', string> = {
  id: 'id',
  email: 'email',
  merchantId: 'merchant_id',
  role: 'role',
  status: 'status',
  passwordHash: 'password_hash',
  invitationHash: 'invitation_hash',
  invitationExpiresAt: 'invitation_expires_at',
  totpSecret: 'totp_secret',
  totpEnabledAt: 'totp_enabled_at',
  totpLastStep: 'totp_last_step',
  failedSignIns: 'failed_sign_ins',
  failuresSince: 'failures_since',
  lockedUntil: 'locked_until',
  sessionsNotBefore: 'sessions_not_before',
  lastSignInAt: 'last_sign_in_at',
};

function userFromRow(r: Row): MerchantUser {
  return {
    id: String(r.id),
    merchantId: String(r.merchant_id),
    email: String(r.email),
    role: String(r.role) as MerchantRole,
    status: String(r.status) as MerchantUserStatus,
    passwordHash: strOrNull(r.password_hash),
    invitationHash: strOrNull(r.invitation_hash),
    invitationExpiresAt: numOrNull(r.invitation_expires_at),
    totpSecret: strOrNull(r.totp_secret),
    totpEnabledAt: numOrNull(r.totp_enabled_at),
    totpLastStep: numOrNull(r.totp_last_step),
    failedSignIns: num(r.failed_sign_ins),
    failuresSince: numOrNull(r.failures_since),
    lockedUntil: numOrNull(r.locked_until),
    sessionsNotBefore: numOrNull(r.sessions_not_before),
    lastSignInAt: numOrNull(r.last_sign_in_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export async function insertMerchantUser(sql: Sql, u: MerchantUser): Promise<void> {
  const row: Row = { merchant_id: u.merchantId, created_at: u.createdAt, updated_at: u.updatedAt };
  for (const [field, column] of Object.entries(COLUMN)) {
    if (!(column in row)) row[column] = u[field as keyof MerchantUser];
  }
  await sql.run(...insertRow('merchant_users', row));
}

export async function findMerchantUser(sql: Sql, key: MerchantUserKey): Promise<MerchantUser | undefined> {
  const [[field, value]] = Object.entries(key) as [[string, string]];
  const r = await firstRow(sql.all(`SELECT * FROM merchant_users WHERE ${COLUMN[field as 'id']} = ?`, [value]));
  return r ? userFromRow(r) : undefined;
}

export async function listMerchantUsers(sql: Sql, merchantId: string): Promise<MerchantUser[]> {
  const rows = await sql.all('SELECT * FROM merchant_users WHERE merchant_id = ? ORDER BY created_at, id', [
    merchantId,
  ]);
  return rows.map(userFromRow);
}

/**
 * Changes user `id` while `guard` holds, in one statement: of two changes at once that guard on the
 * same thing, one wins. The user after, or undefined when the guard did not hold.
 */
export async function changeMerchantUser(
  sql: Sql,
  id: string,
  change: MerchantUserChange,
  at: number,
  guard: MerchantUserGuard = {},
): Promise<MerchantUser | undefined> {
  const sets = Object.keys(change).map((k) => `${COLUMN[k as keyof MerchantUserChange]} = ?`);
  const conditions = ['id = ?'];
  const values: unknown[] = [...Object.values(change), at, id];
  if (guard.status) {
    conditions.push(`status IN (${guard.status.map(() => '?').join(', ')})`);
    values.push(...guard.status);
  }
  if (guard.totpLastStep !== undefined) {
    if (guard.totpLastStep === null) conditions.push('totp_last_step IS NULL');
    else {
      conditions.push('totp_last_step = ?');
      values.push(guard.totpLastStep);
    }
  }
  if (guard.totpOff) conditions.push('totp_enabled_at IS NULL');
  if (guard.updatedAt !== undefined) {
    conditions.push('updated_at = ?');
    values.push(guard.updatedAt);
  }
  if (guard.invitation) {
    conditions.push('invitation_hash = ? AND invitation_expires_at > ?');
    values.push(guard.invitation.hash, guard.invitation.now);
  }
  const r = await firstRow(
    sql.all(
      `UPDATE merchant_users SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE ${conditions.join(' AND ')} RETURNING *`,
      values,
    ),
  );
  return r ? userFromRow(r) : undefined;
}

/**
 * Takes one sign-in attempt of an account that is not locked, in one statement, before its password
 * (or code) is tried: the first within the window starts the count again, the `limit`-th locks the
 * account for `lockMs`. Of attempts at once, each is counted, so no more than `limit` are ever tried
 * in a window. The user after, or undefined when it is locked (or gone).
 */
export async function claimSignInAttempt(sql: Sql, f: SignInFailure): Promise<MerchantUser | undefined> {
  const windowStart = f.at - f.windowMs;
  const isNew = 'failures_since IS NULL OR failures_since <= ?';
  const count = `CASE WHEN ${isNew} THEN 1 ELSE failed_sign_ins + 1 END`;
  const r = await firstRow(
    sql.all(
      `UPDATE merchant_users SET
         locked_until = CASE WHEN ${count} >= ? THEN ? ELSE locked_until END,
         failures_since = CASE WHEN ${isNew} THEN ? ELSE failures_since END,
         failed_sign_ins = ${count},
         updated_at = ?
       WHERE id = ? AND (locked_until IS NULL OR locked_until <= ?) RETURNING *`,
      [windowStart, f.limit, f.at + f.lockMs, windowStart, f.at, windowStart, f.at, f.id, f.at],
    ),
  );
  return r ? userFromRow(r) : undefined;
}

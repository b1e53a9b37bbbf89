import type {
  AccountBinding,
  BindingChange,
  BindingChangeOptions,
  BindingKey,
  BindingStatus,
} from '../../records/binding-records.ts';
import { num, type Row } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';
import { insertRow } from './access.ts';

// Account bindings (docs/ewallets.md#account-binding): one row each, its codes and tokens as hashes.

const COLUMN: Record<keyof BindingChange | 'id' | 'consentId' | 'merchantId', string> = {
  id: 'id',
  consentId: 'consent_id',
  merchantId: 'merchant_id',
  partnerReferenceNo: 'partner_reference_no',
  status: 'status',
  authCodeHash: 'auth_code_hash',
  authCodeExpiresAt: 'auth_code_expires_at',
  accessTokenHash: 'access_token_hash',
  accessTokenExpiresAt: 'access_token_expires_at',
  refreshTokenHash: 'refresh_token_hash',
  refreshTokenExpiresAt: 'refresh_token_expires_at',
  walletReferenceNo: 'wallet_reference_no',
  walletRedirectUrl: 'wallet_redirect_url',
  walletAccessToken: 'wallet_access_token',
  walletAccessTokenExpiresAt: 'wallet_access_token_expires_at',
  walletRefreshToken: 'wallet_refresh_token',
  walletRefreshTokenExpiresAt: 'wallet_refresh_token_expires_at',
};

const textOrNull = (v: unknown) => (v === null || v === undefined ? null : String(v));
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : num(v));

function bindingFromRow(r: Row): AccountBinding {
  return {
    id: String(r.id),
    merchantId: String(r.merchant_id),
    partnerReferenceNo: String(r.partner_reference_no),
    providerId: String(r.provider_id),
    payOption: String(r.pay_option),
    status: String(r.status) as BindingStatus,
    redirectUrl: String(r.redirect_url),
    phoneNo: textOrNull(r.phone_no),
    consentId: String(r.consent_id),
    authCodeHash: textOrNull(r.auth_code_hash),
    authCodeExpiresAt: numOrNull(r.auth_code_expires_at),
    accessTokenHash: textOrNull(r.access_token_hash),
    accessTokenExpiresAt: numOrNull(r.access_token_expires_at),
    refreshTokenHash: textOrNull(r.refresh_token_hash),
    refreshTokenExpiresAt: numOrNull(r.refresh_token_expires_at),
    walletReferenceNo: textOrNull(r.wallet_reference_no),
    walletRedirectUrl: textOrNull(r.wallet_redirect_url),
    walletAccessToken: textOrNull(r.wallet_access_token),
    walletAccessTokenExpiresAt: numOrNull(r.wallet_access_token_expires_at),
    walletRefreshToken: textOrNull(r.wallet_refresh_token),
    walletRefreshTokenExpiresAt: numOrNull(r.wallet_refresh_token_expires_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** `column = ? AND …` of a key, with its values. */
function where(key: BindingKey): [string, unknown[]] {
  const entries = Object.entries(key);
  return [entries.map(([k]) => `${COLUMN[k as keyof typeof COLUMN]} = ?`).join(' AND '), entries.map(([, v]) => v)];
}

export async function insertBinding(sql: Sql, b: AccountBinding): Promise<void> {
  await sql.run(
    ...insertRow('account_bindings', {
      id: b.id,
      merchant_id: b.merchantId,
      partner_reference_no: b.partnerReferenceNo,
      provider_id: b.providerId,
      pay_option: b.payOption,
      status: b.status,
      redirect_url: b.redirectUrl,
      phone_no: b.phoneNo,
      consent_id: b.consentId,
      auth_code_hash: b.authCodeHash,
      auth_code_expires_at: b.authCodeExpiresAt,
      access_token_hash: b.accessTokenHash,
      access_token_expires_at: b.accessTokenExpiresAt,
      refresh_token_hash: b.refreshTokenHash,
      refresh_token_expires_at: b.refreshTokenExpiresAt,
      wallet_reference_no: b.walletReferenceNo,
      wallet_redirect_url: b.walletRedirectUrl,
      wallet_access_token: b.walletAccessToken,
      wallet_access_token_expires_at: b.walletAccessTokenExpiresAt,
      wallet_refresh_token: b.walletRefreshToken,
      wallet_refresh_token_expires_at: b.walletRefreshTokenExpiresAt,
      created_at: b.createdAt,
      updated_at: b.updatedAt,
    }),
  );
}

export async function findBinding(sql: Sql, key: BindingKey): Promise<AccountBinding | undefined> {
  const [text, values] = where(key);
  const r = await firstRow(sql.all(`SELECT * FROM account_bindings WHERE ${text}`, values));
  return r ? bindingFromRow(r) : undefined;
}

export async function findUntradedBindings(sql: Sql, now: number, limit: number): Promise<AccountBinding[]> {
  const rows = await sql.all(
    `SELECT * FROM account_bindings
     WHERE status = 'authorized' AND auth_code_expires_at <= ? AND wallet_access_token IS NOT NULL
     ORDER BY auth_code_expires_at LIMIT ?`,
    [now, limit],
  );
  return rows.map(bindingFromRow);
}

/**
 * Changes the binding `key` names while it is in `from` (and, with `before`, while that expiry is
 * still ahead): one statement, so a one-time code or a refresh token is taken once under any
 * concurrency. The binding as it is after, or undefined when nothing matched.
 */
export async function changeBinding(
  sql: Sql,
  key: BindingKey,
  from: readonly BindingStatus[],
  change: BindingChange,
  at: number,
  before?: BindingChangeOptions['before'],
): Promise<AccountBinding | undefined> {
  const [text, values] = where(key);
  const sets = Object.entries(change).map(([k]) => `${COLUMN[k as keyof BindingChange]} = ?`);
  const still = before ? ` AND ${COLUMN[before.column]} > ?` : '';
  const r = await firstRow(
    sql.all(
      `UPDATE account_bindings SET ${[...sets, 'updated_at = ?'].join(', ')}
       WHERE ${text} AND status IN (${from.map(() => '?').join(', ')})${still} RETURNING *`,
      [...Object.values(change), at, ...values, ...from, ...(before ? [before.now] : [])],
    ),
  );
  return r ? bindingFromRow(r) : undefined;
}

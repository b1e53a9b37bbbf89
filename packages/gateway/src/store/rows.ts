import type { CallbackSignature, MerchantRecord, MerchantStatus, TokenSignature } from './store.ts';

// Row mappers shared by the SQLite and PostgreSQL stores (both use the same column names;
// PostgreSQL returns BIGINT as text, hence Number()).
export type Row = Record<string, unknown>;

export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function merchantFromRow(r: Row): MerchantRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    clientKey: String(r.client_key),
    clientSecret: String(r.client_secret),
    previousSecret: strOrNull(r.previous_secret),
    previousValidUntil: numOrNull(r.previous_valid_until),
    secretVersion: num(r.secret_version),
    partnerId: String(r.partner_id),
    publicKeyPem: strOrNull(r.public_key_pem),
    tokenSignature: r.token_signature as TokenSignature,
    callbackSignature: r.callback_signature as CallbackSignature,
    callbackBaseUrl: strOrNull(r.callback_base_url),
    qrisCallbackUrl: strOrNull(r.qris_callback_url),
    vaCallbackUrl: strOrNull(r.va_callback_url),
    merchantName: String(r.merchant_name),
    merchantCity: String(r.merchant_city),
    nmid: String(r.nmid),
    mcc: String(r.mcc),
    status: r.status as MerchantStatus,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** camelCase patch field → column name, for the update verbs. */
export const MERCHANT_COLUMNS: Record<string, string> = {
  name: 'name',
  partnerId: 'partner_id',
  publicKeyPem: 'public_key_pem',
  tokenSignature: 'token_signature',
  callbackSignature: 'callback_signature',
  callbackBaseUrl: 'callback_base_url',
  qrisCallbackUrl: 'qris_callback_url',
  vaCallbackUrl: 'va_callback_url',
  merchantName: 'merchant_name',
  merchantCity: 'merchant_city',
  nmid: 'nmid',
  mcc: 'mcc',
  status: 'status',
};

export function merchantToRow(m: MerchantRecord): Row {
  return {
    id: m.id,
    name: m.name,
    client_key: m.clientKey,
    client_secret: m.clientSecret,
    previous_secret: m.previousSecret,
    previous_valid_until: m.previousValidUntil,
    secret_version: m.secretVersion,
    partner_id: m.partnerId,
    public_key_pem: m.publicKeyPem,
    token_signature: m.tokenSignature,
    callback_signature: m.callbackSignature,
    callback_base_url: m.callbackBaseUrl,
    qris_callback_url: m.qrisCallbackUrl,
    va_callback_url: m.vaCallbackUrl,
    merchant_name: m.merchantName,
    merchant_city: m.merchantCity,
    nmid: m.nmid,
    mcc: m.mcc,
    status: m.status,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

import type { PayoutAccount, ProviderPayouts } from '../records/payout-records.ts';
import type { ProviderKind, ProviderOutbound, ProviderRecord } from '../records/provider-records.ts';
import type {
  CallbackAck,
  CallbackJson,
  CallbackSignature,
  CallbackVaBody,
  MerchantFees,
  MerchantLimits,
  MerchantRecord,
  MerchantStatus,
  QrisCriteria,
  SecretPlace,
  StoredInboundCall,
  TokenSignature,
} from '../records/records.ts';
import { num, numOrNull, type Row, strOrNull } from './rows.ts';

// Merchants' and providers' rows (both stores use the same columns), and their secret columns.

const jsonOf = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

export function merchantFromRow(r: Row): MerchantRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    clientKey: String(r.client_key),
    clientSecret: String(r.client_secret),
    previousSecret: strOrNull(r.previous_secret),
    previousValidUntil: numOrNull(r.previous_valid_until),
    secretVersion: num(r.secret_version),
    tokensNotBefore: numOrNull(r.tokens_not_before),
    retrySchedule: strOrNull(r.retry_schedule),
    portalNotBefore: numOrNull(r.portal_not_before),
    partnerId: String(r.partner_id),
    publicKeyPem: strOrNull(r.public_key_pem),
    tokenSignature: r.token_signature as TokenSignature,
    callbackSignature:
      r.callback_b2b === true || r.callback_b2b === 1 ? 'snap-b2b' : (r.callback_signature as CallbackSignature),
    callbackTokenUrl: strOrNull(r.callback_token_url),
    callbackJson:
      Number(r.callback_json_nulls ?? 0) === 1 ? 'php-laravel' : ((r.callback_json ?? 'standard') as CallbackJson),
    callbackVaBody: (r.callback_va_body ?? 'standard') as CallbackVaBody,
    callbackAck: (r.callback_ack ?? 'strict') as CallbackAck,
    callbackBaseUrl: strOrNull(r.callback_base_url),
    qrisCallbackUrl: strOrNull(r.qris_callback_url),
    vaCallbackUrl: strOrNull(r.va_callback_url),
    merchantName: String(r.merchant_name),
    merchantCity: String(r.merchant_city),
    nmid: String(r.nmid),
    nmidGenerated: Number(r.nmid_generated ?? 0) === 1,
    mcc: String(r.mcc),
    qrisProvider: strOrNull(r.qris_provider),
    qrisCriteria: (r.qris_criteria ?? 'UMI') as QrisCriteria,
    fees: r.fees === null || r.fees === undefined ? null : (jsonOf(r.fees) as MerchantFees),
    // Only a merchant that lets origins frame its checkout pages says so (null: none may).
    ...(r.checkout_frame_ancestors === null || r.checkout_frame_ancestors === undefined
      ? {}
      : { checkoutFrameAncestors: jsonOf(r.checkout_frame_ancestors) as string[] }),
    // Likewise only a merchant with a bank account, or paid out as soon as settled, says so.
    ...(r.payout_account === null || r.payout_account === undefined
      ? {}
      : { payoutAccount: jsonOf(r.payout_account) as PayoutAccount }),
    ...(r.payout_schedule === 'auto' ? { payoutSchedule: 'auto' as const } : {}),
    ...(r.limits === null || r.limits === undefined ? {} : { limits: jsonOf(r.limits) as MerchantLimits }),
    // Only a merchant that disburses says where its transfer callbacks go.
    ...(r.transfer_callback_url ? { transferCallbackUrl: String(r.transfer_callback_url) } : {}),
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
  callbackTokenUrl: 'callback_token_url',
  callbackVaBody: 'callback_va_body',
  callbackAck: 'callback_ack',
  callbackBaseUrl: 'callback_base_url',
  qrisCallbackUrl: 'qris_callback_url',
  vaCallbackUrl: 'va_callback_url',
  transferCallbackUrl: 'transfer_callback_url',
  merchantName: 'merchant_name',
  merchantCity: 'merchant_city',
  nmid: 'nmid',
  mcc: 'mcc',
  qrisProvider: 'qris_provider',
  retrySchedule: 'retry_schedule',
  qrisCriteria: 'qris_criteria',
  fees: 'fees',
  checkoutFrameAncestors: 'checkout_frame_ancestors',
  payoutAccount: 'payout_account',
  payoutSchedule: 'payout_schedule',
  limits: 'limits',
  status: 'status',
};

/** Settings kept as JSON text (null clears them). */
const JSON_SETTINGS = new Set(['fees', 'checkoutFrameAncestors', 'payoutAccount', 'limits']);

/**
 * `snap-b2b` lives in its own column: the SQLite table's CHECK on callback_signature cannot be
 * changed without rebuilding a table others reference, so both stores keep the same two columns.
 */
function callbackSignatureColumns(s: CallbackSignature): Row {
  return s === 'snap-b2b'
    ? { callback_signature: 'hmac-sha512', callback_b2b: 1 }
    : { callback_signature: s, callback_b2b: 0 };
}

/** `php-laravel` is PHP's bytes (callback_json `php`) with empty strings as null (its own column). */
function callbackJsonColumns(j: CallbackJson): Row {
  return j === 'php-laravel'
    ? { callback_json: 'php', callback_json_nulls: 1 }
    : { callback_json: j, callback_json_nulls: 0 };
}

/**
 * The columns an update of a merchant or provider sets, `updated_at` included. Disabling one also
 * retires every token issued until then (`tokens_not_before`): enabling it again must not revive
 * them.
 */
function withUpdateColumns(
  sets: Array<[string, unknown]>,
  patch: Record<string, unknown>,
  updatedAt: number,
): Array<[string, unknown]> {
  if (patch.status === 'disabled') sets.push(['tokens_not_before', updatedAt]);
  sets.push(['updated_at', updatedAt]);
  return sets;
}

/** The columns a merchant update sets, for both stores' update verb. */
export function merchantUpdateColumns(patch: Record<string, unknown>, updatedAt: number): Array<[string, unknown]> {
  return withUpdateColumns(merchantPatchColumns(patch), patch, updatedAt);
}

/** The columns a merchant patch sets. */
function merchantPatchColumns(patch: Record<string, unknown>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (field === 'callbackSignature') {
      out.push(...(Object.entries(callbackSignatureColumns(value as CallbackSignature)) as Array<[string, unknown]>));
      continue;
    }
    if (field === 'callbackJson') {
      out.push(...(Object.entries(callbackJsonColumns(value as CallbackJson)) as Array<[string, unknown]>));
      continue;
    }
    // An NMID given is the operator's, never one the gateway made up.
    if (field === 'nmid') out.push(['nmid_generated', 0]);
    const column = MERCHANT_COLUMNS[field];
    if (column) out.push([column, JSON_SETTINGS.has(field) && value !== null ? JSON.stringify(value) : value]);
  }
  return out;
}

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
    ...callbackSignatureColumns(m.callbackSignature),
    callback_token_url: m.callbackTokenUrl,
    ...callbackJsonColumns(m.callbackJson),
    callback_va_body: m.callbackVaBody,
    callback_ack: m.callbackAck,
    callback_base_url: m.callbackBaseUrl,
    qris_callback_url: m.qrisCallbackUrl,
    va_callback_url: m.vaCallbackUrl,
    transfer_callback_url: m.transferCallbackUrl ?? null,
    merchant_name: m.merchantName,
    merchant_city: m.merchantCity,
    nmid: m.nmid,
    nmid_generated: m.nmidGenerated ? 1 : 0,
    mcc: m.mcc,
    qris_provider: m.qrisProvider,
    qris_criteria: m.qrisCriteria,
    fees: m.fees ? JSON.stringify(m.fees) : null,
    retry_schedule: m.retrySchedule ?? null,
    checkout_frame_ancestors: m.checkoutFrameAncestors ? JSON.stringify(m.checkoutFrameAncestors) : null,
    payout_account: m.payoutAccount ? JSON.stringify(m.payoutAccount) : null,
    payout_schedule: m.payoutSchedule ?? 'manual',
    limits: m.limits ? JSON.stringify(m.limits) : null,
    status: m.status,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

export function providerFromRow(r: Row): ProviderRecord {
  return {
    id: String(r.id),
    name: String(r.name),
    kind: r.kind as ProviderKind,
    bankCode: String(r.bank_code),
    clientKey: String(r.client_key),
    clientSecret: String(r.client_secret),
    previousSecret: strOrNull(r.previous_secret),
    previousValidUntil: numOrNull(r.previous_valid_until),
    secretVersion: num(r.secret_version),
    tokensNotBefore: numOrNull(r.tokens_not_before),
    publicKeyPem: strOrNull(r.public_key_pem),
    outbound: r.outbound === null || r.outbound === undefined ? null : (jsonOf(r.outbound) as ProviderOutbound),
    isSandbox: r.is_sandbox === true || r.is_sandbox === 1,
    acquiresGatewayQris: Number(r.acquires_gateway_qris ?? 0) === 1,
    // Only a wallet says so.
    ...(r.pay_option === null || r.pay_option === undefined ? {} : { payOption: String(r.pay_option) }),
    // Only the payout bank says so.
    ...(r.payouts === null || r.payouts === undefined ? {} : { payouts: jsonOf(r.payouts) as ProviderPayouts }),
    status: r.status as MerchantStatus,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** camelCase patch field → column name; `outbound` and `payouts` are stored as JSON text. */
export const PROVIDER_COLUMNS: Record<string, string> = {
  name: 'name',
  bankCode: 'bank_code',
  publicKeyPem: 'public_key_pem',
  outbound: 'outbound',
  status: 'status',
  acquiresGatewayQris: 'acquires_gateway_qris',
  payouts: 'payouts',
};

/** The columns a provider update sets, ready to bind (both stores). */
export function providerUpdateColumns(patch: Record<string, unknown>, updatedAt: number): Array<[string, unknown]> {
  return withUpdateColumns(providerPatchColumns(patch), patch, updatedAt);
}

/** Column values of a provider patch. */
function providerPatchColumns(patch: Record<string, unknown>): Array<[string, unknown]> {
  const sets: Array<[string, unknown]> = [];
  for (const [field, value] of Object.entries(patch)) {
    const column = PROVIDER_COLUMNS[field];
    if (!column || value === undefined) continue;
    if (field === 'acquiresGatewayQris') sets.push([column, value ? 1 : 0]);
    else {
      const isJson = (field === 'outbound' || field === 'payouts') && value !== null;
      sets.push([column, isJson ? JSON.stringify(value) : value]);
    }
  }
  return sets;
}

export function providerToRow(p: ProviderRecord, sqlite: boolean): Row {
  return {
    id: p.id,
    name: p.name,
    kind: p.kind,
    bank_code: p.bankCode,
    client_key: p.clientKey,
    client_secret: p.clientSecret,
    previous_secret: p.previousSecret,
    previous_valid_until: p.previousValidUntil,
    secret_version: p.secretVersion,
    public_key_pem: p.publicKeyPem,
    outbound: p.outbound === null ? null : JSON.stringify(p.outbound),
    is_sandbox: sqlite ? (p.isSandbox ? 1 : 0) : p.isSandbox,
    acquires_gateway_qris: p.acquiresGatewayQris ? 1 : 0,
    payouts: p.payouts ? JSON.stringify(p.payouts) : null,
    pay_option: p.payOption ?? null,
    status: p.status,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export function inboundFromRow(r: Row): StoredInboundCall {
  return {
    id: num(r.id),
    providerId: String(r.provider_id),
    at: num(r.at),
    method: String(r.method),
    path: String(r.path),
    requestBody: String(r.request_body),
    httpStatus: num(r.http_status),
    responseCode: strOrNull(r.response_code),
    responseBody: String(r.response_body),
    durationMs: num(r.duration_ms),
  };
}

/** Rewrites a stored secret found at a place, or returns `undefined` to leave it (resealSecrets). */
export type Reseal = (stored: string, place: SecretPlace) => string | undefined;

/**
 * A provider's `outbound` JSON with its secret fields passed through `reseal`; `undefined` when
 * nothing changed (both stores' resealSecrets).
 */
export function resealOutbound(outbound: unknown, id: string, reseal: Reseal): string | undefined {
  if (outbound === null || outbound === undefined) return undefined;
  const o = jsonOf(outbound) as ProviderOutbound;
  const next: ProviderOutbound = { ...o };
  let changed = false;
  for (const field of OUTBOUND_SECRET_FIELDS) {
    const v = o[field];
    if (typeof v !== 'string') continue;
    const n = reseal(v, { table: 'providers', column: `outbound.${field}`, id });
    if (n === undefined) continue;
    next[field] = n;
    changed = true;
  }
  return changed ? JSON.stringify(next) : undefined;
}

/** The new values of a row's secret columns, or `undefined` when `reseal` changes none. */
export function resealRow(table: keyof typeof SECRET_COLUMNS, row: Row, reseal: Reseal): Row | undefined {
  const id = String(row.id);
  const out: Row = {};
  let changed = false;
  for (const c of SECRET_COLUMNS[table]) {
    const v = row[c];
    if (c === 'outbound') {
      const n = resealOutbound(v, id, reseal);
      out[c] = n ?? v;
      if (n !== undefined) changed = true;
      continue;
    }
    if (typeof v !== 'string') {
      out[c] = v;
      continue;
    }
    const n = reseal(v, { table, column: c, id });
    out[c] = n ?? v;
    if (n !== undefined) changed = true;
  }
  return changed ? out : undefined;
}

/** The fields of a provider's `outbound` JSON that hold secrets. */
export const OUTBOUND_SECRET_FIELDS = ['clientSecret', 'privateKeyPem'] as const;

/** The secret columns of each table that holds secrets (`outbound`: its OUTBOUND_SECRET_FIELDS). */
export const SECRET_COLUMNS = {
  merchants: ['client_secret', 'previous_secret'],
  providers: ['client_secret', 'previous_secret', 'outbound'],
  /** A customer's token at a connected wallet (docs/ewallets.md#binding-at-a-connected-wallet). */
  account_bindings: ['wallet_access_token', 'wallet_refresh_token'],
  /** A merchant user's TOTP secret (docs/merchant-users.md). */
  merchant_users: ['totp_secret'],
} as const;

/** The rows of a table that hold a secret in one of `columns`: the only ones a reseal reads (and locks). */
export const anySecret = (columns: readonly string[]) => columns.map((c) => `${c} IS NOT NULL`).join(' OR ');

/** The tables of SECRET_COLUMNS, typed. */
export const SECRET_TABLES = Object.keys(SECRET_COLUMNS) as Array<keyof typeof SECRET_COLUMNS>;

import type { TransactionStatus } from '@snapgate/snap';
import { decodeCursor } from './cursor.ts';
import type {
  AdminKeyRecord,
  AdminScope,
  AuditEntry,
  CallbackJson,
  CallbackSignature,
  IdempotencyRecord,
  MerchantRecord,
  MerchantStatus,
  MovedNotification,
  NewNotification,
  NotificationFilter,
  NotificationRecord,
  NotificationState,
  PageRequest,
  ProviderKind,
  ProviderOutbound,
  ProviderRecord,
  RefundRecord,
  StatusChange,
  StatusHistoryEntry,
  StoredAttempt,
  StoredAuditEntry,
  StoredInboundCall,
  TokenSignature,
  TransactionFilter,
  TransactionKind,
  TransactionRecord,
  TransactionUpdate,
  VaPaymentRecord,
} from './store.ts';

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
    tokensNotBefore: numOrNull(r.tokens_not_before),
    retrySchedule: strOrNull(r.retry_schedule),
    portalNotBefore: numOrNull(r.portal_not_before),
    partnerId: String(r.partner_id),
    publicKeyPem: strOrNull(r.public_key_pem),
    tokenSignature: r.token_signature as TokenSignature,
    callbackSignature:
      r.callback_b2b === true || r.callback_b2b === 1 ? 'snap-b2b' : (r.callback_signature as CallbackSignature),
    callbackTokenUrl: strOrNull(r.callback_token_url),
    callbackJson: (r.callback_json ?? 'standard') as CallbackJson,
    callbackBaseUrl: strOrNull(r.callback_base_url),
    qrisCallbackUrl: strOrNull(r.qris_callback_url),
    vaCallbackUrl: strOrNull(r.va_callback_url),
    merchantName: String(r.merchant_name),
    merchantCity: String(r.merchant_city),
    nmid: String(r.nmid),
    mcc: String(r.mcc),
    qrisProvider: strOrNull(r.qris_provider),
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
  callbackJson: 'callback_json',
  callbackTokenUrl: 'callback_token_url',
  callbackBaseUrl: 'callback_base_url',
  qrisCallbackUrl: 'qris_callback_url',
  vaCallbackUrl: 'va_callback_url',
  merchantName: 'merchant_name',
  merchantCity: 'merchant_city',
  nmid: 'nmid',
  mcc: 'mcc',
  qrisProvider: 'qris_provider',
  retrySchedule: 'retry_schedule',
  status: 'status',
};

/**
 * `snap-b2b` lives in its own column: the SQLite table's CHECK on callback_signature cannot be
 * changed without rebuilding a table others reference, so both stores keep the same two columns.
 */
function callbackSignatureColumns(s: CallbackSignature): Row {
  return s === 'snap-b2b'
    ? { callback_signature: 'hmac-sha512', callback_b2b: 1 }
    : { callback_signature: s, callback_b2b: 0 };
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
    const column = MERCHANT_COLUMNS[field];
    if (column) out.push([column, value]);
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
    callback_json: m.callbackJson,
    callback_base_url: m.callbackBaseUrl,
    qris_callback_url: m.qrisCallbackUrl,
    va_callback_url: m.vaCallbackUrl,
    merchant_name: m.merchantName,
    merchant_city: m.merchantCity,
    nmid: m.nmid,
    mcc: m.mcc,
    qris_provider: m.qrisProvider,
    retry_schedule: m.retrySchedule ?? null,
    status: m.status,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

const jsonOf = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : v);

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
    status: r.status as MerchantStatus,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** camelCase patch field → column name; `outbound` is stored as JSON text. */
export const PROVIDER_COLUMNS: Record<string, string> = {
  name: 'name',
  bankCode: 'bank_code',
  publicKeyPem: 'public_key_pem',
  outbound: 'outbound',
  status: 'status',
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
    sets.push([column, field === 'outbound' && value !== null ? JSON.stringify(value) : value]);
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

export function refundFromRow(r: Row): RefundRecord {
  return {
    refundNo: String(r.refund_no),
    referenceNo: String(r.reference_no),
    merchantId: String(r.merchant_id),
    partnerRefundNo: String(r.partner_refund_no),
    amount: String(r.amount),
    reason: strOrNull(r.reason),
    createdAt: num(r.created_at),
  };
}

export function vaPaymentFromRow(r: Row): VaPaymentRecord {
  return {
    providerId: String(r.provider_id),
    paymentRequestId: String(r.payment_request_id),
    referenceNo: String(r.reference_no),
    httpStatus: num(r.http_status),
    responseBody: String(r.response_body),
    createdAt: num(r.created_at),
  };
}

export function transactionFromRow(r: Row): TransactionRecord {
  return {
    referenceNo: String(r.reference_no),
    merchantId: String(r.merchant_id),
    kind: r.kind as TransactionKind,
    partnerReferenceNo: String(r.partner_reference_no),
    status: r.status as TransactionStatus,
    statusDesc: strOrNull(r.status_desc),
    seq: num(r.seq),
    amount: strOrNull(r.amount),
    currency: String(r.currency),
    paidAmount: strOrNull(r.paid_amount),
    refundedAmount: String(r.refunded_amount),
    feeAmount: String(r.fee_amount),
    virtualAccountNo: strOrNull(r.virtual_account_no),
    billNumber: num(r.bill_number),
    expiresAt: numOrNull(r.expires_at),
    paidAt: numOrNull(r.paid_at),
    details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function transactionToRow(t: TransactionRecord): Row {
  return {
    reference_no: t.referenceNo,
    merchant_id: t.merchantId,
    kind: t.kind,
    partner_reference_no: t.partnerReferenceNo,
    status: t.status,
    status_desc: t.statusDesc,
    seq: t.seq,
    amount: t.amount,
    currency: t.currency,
    paid_amount: t.paidAmount,
    refunded_amount: t.refundedAmount,
    fee_amount: t.feeAmount,
    virtual_account_no: t.virtualAccountNo,
    bill_number: t.billNumber,
    expires_at: t.expiresAt,
    paid_at: t.paidAt,
    details: JSON.stringify(t.details),
    created_at: t.createdAt,
    updated_at: t.updatedAt,
  };
}

/** camelCase transaction patch field → column name. */
export const TRANSACTION_COLUMNS: Record<string, string> = {
  partnerReferenceNo: 'partner_reference_no',
  paidAmount: 'paid_amount',
  paidAt: 'paid_at',
  refundedAmount: 'refunded_amount',
  feeAmount: 'fee_amount',
  details: 'details',
  amount: 'amount',
  expiresAt: 'expires_at',
};

export function patchColumns(patch: Record<string, unknown>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [field, value] of Object.entries(patch)) {
    const column = TRANSACTION_COLUMNS[field];
    if (!column || value === undefined) continue;
    out.push([column, field === 'details' ? JSON.stringify(value) : value]);
  }
  return out;
}

/** What a status change sets. Every write moves `seq` on, so a writer that read the old row loses. */
export function statusChangeColumns(c: StatusChange): Array<[string, unknown]> {
  return [
    ['status', c.status],
    ['status_desc', c.statusDesc],
    ['seq', c.expectedSeq + 1],
    ['updated_at', c.at],
    ...patchColumns(c.patch ?? {}),
  ];
}

/** What a change that is not a status change sets (refunds in part, VA updates). */
export function updateColumns(u: TransactionUpdate): Array<[string, unknown]> {
  return [['seq', u.expectedSeq + 1], ['updated_at', u.at], ...patchColumns(u.patch)];
}

export function historyFromRow(r: Row): StatusHistoryEntry {
  return {
    seq: num(r.seq),
    status: r.status as TransactionStatus,
    statusDesc: strOrNull(r.status_desc),
    reason: strOrNull(r.reason),
    changedAt: num(r.changed_at),
  };
}

/**
 * A notification as a status change writes it: pending, or claimed at birth when `claimed`
 * (NewNotification.claim, granted because the transaction has no other undelivered notification).
 */
export function newNotificationRecord(
  txn: TransactionRecord,
  n: NewNotification,
  at: number,
  claimed: boolean,
): NotificationRecord {
  return {
    id: n.id,
    referenceNo: txn.referenceNo,
    merchantId: txn.merchantId,
    kind: txn.kind,
    txnSeq: txn.seq,
    latestStatus: txn.status,
    body: n.body,
    state: claimed ? 'delivering' : 'pending',
    attemptCount: 0,
    nextAttemptAt: n.nextAttemptAt,
    claimedBy: claimed ? (n.claim?.workerId ?? null) : null,
    leaseUntil: claimed ? (n.claim?.leaseUntil ?? null) : null,
    createdAt: at,
    updatedAt: at,
    deliveredAt: null,
    lastError: null,
    requestId: n.requestId ?? null,
  };
}

export function notificationFromRow(r: Row): NotificationRecord {
  return { ...movedNotificationFromRow(r), body: String(r.body) };
}

/** Every column of `notifications` but the body (an attempt's result does not read it back). */
export const MOVED_NOTIFICATION_COLUMNS =
  'id, reference_no, merchant_id, kind, txn_seq, latest_status, state, attempt_count, next_attempt_at, claimed_by, lease_until, created_at, updated_at, delivered_at, last_error, request_id';

export function movedNotificationFromRow(r: Row): MovedNotification {
  return {
    id: String(r.id),
    referenceNo: String(r.reference_no),
    merchantId: String(r.merchant_id),
    kind: r.kind as TransactionKind,
    txnSeq: num(r.txn_seq),
    latestStatus: r.latest_status as TransactionStatus,
    state: r.state as NotificationState,
    attemptCount: num(r.attempt_count),
    nextAttemptAt: numOrNull(r.next_attempt_at),
    claimedBy: strOrNull(r.claimed_by),
    leaseUntil: numOrNull(r.lease_until),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    deliveredAt: numOrNull(r.delivered_at),
    lastError: strOrNull(r.last_error),
    requestId: strOrNull(r.request_id),
  };
}

export function attemptFromRow(r: Row): StoredAttempt {
  return {
    attemptNo: num(r.attempt_no),
    notificationId: String(r.notification_id),
    startedAt: num(r.started_at),
    url: strOrNull(r.url),
    requestHeaders: (typeof r.request_headers === 'string'
      ? JSON.parse(r.request_headers)
      : r.request_headers) as Record<string, string>,
    responseStatus: numOrNull(r.response_status),
    responseBody: strOrNull(r.response_body),
    durationMs: num(r.duration_ms),
    outcome: r.outcome as StoredAttempt['outcome'],
    error: strOrNull(r.error),
  };
}

export function idempotencyFromRow(r: Row): IdempotencyRecord {
  return {
    merchantId: String(r.merchant_id),
    day: String(r.day),
    externalId: String(r.external_id),
    requestHash: String(r.request_hash),
    httpStatus: num(r.http_status),
    responseBody: String(r.response_body),
  };
}

/** `(bankCode + 4-digit merchant code)` left-padded with spaces to 8 characters (docs/protocol.md#virtual-account). */
export function partnerServiceIdFor(bankCode: string, merchantCode: number): string {
  return `${bankCode}${String(merchantCode).padStart(4, '0')}`.padStart(8, ' ');
}

export const customerNoFor = (n: number) => String(n).padStart(12, '0');

/**
 * A provider's `outbound` JSON with its secret fields passed through `reseal`; `undefined` when
 * nothing changed (both stores' resealSecrets).
 */
export function resealOutbound(outbound: unknown, reseal: (stored: string) => string | undefined): string | undefined {
  if (outbound === null || outbound === undefined) return undefined;
  const o = jsonOf(outbound) as ProviderOutbound;
  const secret = reseal(o.clientSecret);
  const key = o.privateKeyPem === null ? undefined : reseal(o.privateKeyPem);
  if (secret === undefined && key === undefined) return undefined;
  return JSON.stringify({ ...o, clientSecret: secret ?? o.clientSecret, privateKeyPem: key ?? o.privateKeyPem });
}

/** The new values of a row's secret columns, or `undefined` when `reseal` changes none. */
export function resealRow(
  row: Row,
  columns: readonly string[],
  reseal: (stored: string) => string | undefined,
): Row | undefined {
  const out: Row = {};
  let changed = false;
  for (const c of columns) {
    const v = row[c];
    if (c === 'outbound') {
      const n = resealOutbound(v, reseal);
      out[c] = n ?? v;
      if (n !== undefined) changed = true;
      continue;
    }
    if (typeof v !== 'string') {
      out[c] = v;
      continue;
    }
    const n = reseal(v);
    out[c] = n ?? v;
    if (n !== undefined) changed = true;
  }
  return changed ? out : undefined;
}

/** The secret columns of each table that holds secrets. */
export const SECRET_COLUMNS = {
  merchants: ['client_secret', 'previous_secret'],
  providers: ['client_secret', 'previous_secret', 'outbound'],
} as const;

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
export interface ListSpec {
  table: string;
  /** The sort key: a time column and a unique tiebreaker. */
  key: [time: string, id: string];
  equals: Array<[column: string, value: unknown]>;
  /** `time >= since` and `time < until` (epoch ms). */
  since?: number | undefined;
  until?: number | undefined;
  /** Any of these columns equals the value. */
  search?: { columns: string[]; value: string } | undefined;
  oldestFirst?: boolean | undefined;
  /** The sort key of the last row of the previous page. */
  after?: [number, string] | undefined;
  limit: number;
}

/**
 * The SQL of an admin list, newest first unless asked otherwise, for both stores: `ph(n)` writes
 * the n-th placeholder (`?` for SQLite, `$n` for PostgreSQL).
 */
export function listSql(spec: ListSpec, ph: (n: number) => string): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const param = (v: unknown) => {
    values.push(v);
    return ph(values.length);
  };
  for (const [column, value] of spec.equals)
    if (value !== undefined && value !== '') where.push(`${column} = ${param(value)}`);
  const [time, id] = spec.key;
  if (spec.since !== undefined) where.push(`${time} >= ${param(spec.since)}`);
  if (spec.until !== undefined) where.push(`${time} < ${param(spec.until)}`);
  if (spec.search) {
    const v = spec.search.value;
    where.push(`(${spec.search.columns.map((c) => `${c} = ${param(v)}`).join(' OR ')})`);
  }
  const op = spec.oldestFirst ? '>' : '<';
  if (spec.after) {
    const [t, k] = spec.after;
    where.push(`(${time} ${op} ${param(t)} OR (${time} = ${param(t)} AND ${id} ${op} ${param(k)}))`);
  }
  const dir = spec.oldestFirst ? 'ASC' : 'DESC';
  const text = `SELECT * FROM ${spec.table} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${time} ${dir}, ${id} ${dir} LIMIT ${param(spec.limit)}`;
  return { text, values };
}

/** The admin list of transactions (both stores). */
export function transactionListSpec(filter: TransactionFilter, page: PageRequest): ListSpec {
  return {
    table: 'transactions',
    key: ['created_at', 'reference_no'],
    equals: [
      ['merchant_id', filter.merchantId],
      ['status', filter.status],
      ['kind', filter.kind],
    ],
    since: filter.since,
    until: filter.until,
    search: filter.reference
      ? { columns: ['reference_no', 'partner_reference_no', 'virtual_account_no'], value: filter.reference }
      : undefined,
    oldestFirst: filter.oldestFirst,
    after: page.cursor ? decodeCursor(page.cursor) : undefined,
    limit: page.limit + 1,
  };
}

/** The admin list of notifications (both stores). */
export function notificationListSpec(filter: NotificationFilter, page: PageRequest): ListSpec {
  return {
    table: 'notifications',
    key: ['created_at', 'id'],
    equals: [
      ['merchant_id', filter.merchantId],
      ['state', filter.state],
      ['reference_no', filter.referenceNo],
    ],
    since: filter.since,
    until: filter.until,
    oldestFirst: filter.oldestFirst,
    after: page.cursor ? decodeCursor(page.cursor) : undefined,
    limit: page.limit + 1,
  };
}

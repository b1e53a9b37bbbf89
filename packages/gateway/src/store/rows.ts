import type { TransactionStatus } from '@snapgate/snap';
import { parseTransactionKind } from '../methods/index.ts';
import type {
  IdempotencyRecord,
  MovedNotification,
  NewNotification,
  NotificationFilter,
  NotificationKind,
  NotificationRecord,
  NotificationState,
  PageRequest,
  RefundRecord,
  StatusChange,
  StatusHistoryEntry,
  StoredAttempt,
  TransactionDetails,
  TransactionFilter,
  TransactionRecord,
  TransactionUpdate,
  VaPaymentRecord,
} from '../records/records.ts';
import { decodeCursor } from './cursor.ts';

// Row mappers shared by the SQLite and PostgreSQL stores (both use the same column names;
// PostgreSQL returns BIGINT as text, hence Number()).
export type Row = Record<string, unknown>;

export const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
export const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
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
  // `kind` and `details` are written together (transactionToRow): the row's kind says what its details hold.
  return {
    referenceNo: String(r.reference_no),
    merchantId: String(r.merchant_id),
    kind: parseTransactionKind(r.kind),
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
    details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as TransactionDetails,
    // Only a transaction that has a checkout page says so: older ones read as they were written.
    ...(r.checkout_id === null || r.checkout_id === undefined ? {} : { checkoutId: String(r.checkout_id) }),
    ...(r.payment_link_id === null || r.payment_link_id === undefined
      ? {}
      : { paymentLinkId: String(r.payment_link_id) }),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  } as TransactionRecord;
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
    checkout_id: t.checkoutId ?? null,
    payment_link_id: t.paymentLinkId ?? null,
    payment_link_once: t.paymentLinkOnce ?? null,
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

/** What a change that is not a status change sets (a VA update, an upstream QRIS's answer). */
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

/** What a notification row takes of its transaction. */
export type NotifiedHead = Pick<TransactionRecord, 'referenceNo' | 'merchantId' | 'kind' | 'seq' | 'status'>;

/**
 * A notification as a status change writes it: pending, or claimed at birth when `claimed`
 * (NewNotification.claim, granted because the transaction has no other undelivered notification).
 */
export function newNotificationRecord(
  txn: NotifiedHead,
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
    callbackUrl: n.callbackUrl ?? null,
  };
}

export function notificationFromRow(r: Row): NotificationRecord {
  return { ...movedNotificationFromRow(r), body: String(r.body) };
}

/** Every column of `notifications` but the body (an attempt's result does not read it back). */
export const MOVED_NOTIFICATION_COLUMNS =
  'id, reference_no, merchant_id, kind, txn_seq, latest_status, state, attempt_count, next_attempt_at, claimed_by, lease_until, created_at, updated_at, delivered_at, last_error, request_id, callback_url';

export function movedNotificationFromRow(r: Row): MovedNotification {
  return {
    id: String(r.id),
    referenceNo: String(r.reference_no),
    merchantId: String(r.merchant_id),
    // Not checked here: a notification of a kind this version does not know must not stop the
    // claims of the others; delivery finds it no callback URL (delivery/callback-signing.ts).
    kind: r.kind as NotificationKind,
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
    callbackUrl: strOrNull(r.callback_url),
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

/** `count` consecutive customer numbers from `first`. */
export const customerNosFrom = (first: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => customerNoFor(first + i));

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

import type { NotificationRecord, StatusHistoryEntry, TransactionRecord } from '../records/records.ts';

/** Epoch ms as ISO 8601 (UTC) for the admin API; null stays null. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What the admin API shows of a transaction. */
export function transactionView(t: TransactionRecord) {
  return {
    referenceNo: t.referenceNo,
    merchantId: t.merchantId,
    kind: t.kind,
    partnerReferenceNo: t.partnerReferenceNo,
    status: t.status,
    statusDesc: t.statusDesc,
    amount: t.amount === null ? null : { value: t.amount, currency: t.currency },
    paidAmount: t.paidAmount === null ? null : { value: t.paidAmount, currency: t.currency },
    refundedAmount: { value: t.refundedAmount, currency: t.currency },
    feeAmount: { value: t.feeAmount, currency: t.currency },
    virtualAccountNo: t.virtualAccountNo,
    billNumber: t.billNumber,
    expiresAt: iso(t.expiresAt),
    paidAt: iso(t.paidAt),
    details: t.details,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

export function historyView(h: StatusHistoryEntry) {
  return { seq: h.seq, status: h.status, statusDesc: h.statusDesc, reason: h.reason, changedAt: iso(h.changedAt) };
}

/** A notification as the admin API lists it (docs/protocol.md#admin-api). */
export function notificationView(n: NotificationRecord) {
  return {
    id: n.id,
    referenceNo: n.referenceNo,
    merchantId: n.merchantId,
    kind: n.kind,
    state: n.state,
    latestTransactionStatus: n.latestStatus,
    attemptCount: n.attemptCount,
    nextAttemptAt: iso(n.nextAttemptAt),
    createdAt: iso(n.createdAt),
    updatedAt: iso(n.updatedAt),
    deliveredAt: iso(n.deliveredAt),
    lastError: n.lastError,
  };
}

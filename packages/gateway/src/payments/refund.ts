import { formatJakartaTimestamp, fromMinorUnits, type Money, snapError, toMinorUnits } from '@snapgate/snap';
import { type TransactionRecord, UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { type RecordFor, type SnapResponse, snapOk } from './idempotency.ts';
import { newRefundNo } from './ids.ts';
import type { MerchantRequest } from './snap-request.ts';
import { LostRace, type StatusChanger } from './status-change.ts';

export interface RefundRequest {
  /** The merchant's transaction as found (its own, not expired meanwhile). */
  txn: TransactionRecord;
  partnerRefundNo: string;
  refundAmount: Money;
  reason: string | null;
  /**
   * Moves the money at the provider, once per request, before the refund is applied here; whether
   * a provider took it (a provider's notify may then make the transaction 04 before this writes).
   */
  forward?: (txn: TransactionRecord) => Promise<boolean>;
}

/**
 * A refund of a paid transaction (docs/protocol.md#refund-78, docs/ewallets.md#refund-58), of any method that refunds: in parts,
 * never more than was paid, even under concurrent refunds. Every refund is a status change with its
 * history row and callback: the whole amount back makes it Refunded (00 → 04), a part leaves it
 * Paid (00 → 00 again); either way the callback names the refund.
 */
export async function refundTransaction(
  deps: { store: Store; changer: StatusChanger },
  ctx: MerchantRequest,
  recordFor: RecordFor,
  request: RefundRequest,
): Promise<SnapResponse> {
  const { store, changer } = deps;
  const svc = ctx.serviceCode;
  const { partnerRefundNo, refundAmount, reason } = request;
  const refundNo = newRefundNo(ctx.now);
  // Refused before any money moves anywhere: a retry must never refund twice at the provider.
  if (await store.findRefund(ctx.merchant.id, partnerRefundNo)) {
    throw snapError('CONFLICT', svc, { detail: { duplicate: 'partnerRefundNo' } });
  }
  // The remaining amount is decided on the row as read: a concurrent refund that commits first
  // makes this write lose (seq), and the decision is taken again on the fresh row.
  let txn = request.txn;
  let accepted = false;
  for (let attempt = 0; ; attempt++) {
    // Once the provider accepted a full refund, its own notify may have made it 04 already.
    const isRefundable = txn.status === '00' || (accepted && txn.status === '04');
    if (!isRefundable) throw snapError('NOT_ALLOWED', svc, { detail: { status: txn.status } });
    const remaining = toMinorUnits(txn.amount as string) - toMinorUnits(txn.refundedAmount);
    if (toMinorUnits(refundAmount.value) > remaining) {
      throw snapError('INVALID_AMOUNT', svc, { detail: { remaining: fromMinorUnits(remaining) } });
    }
    // The money moves at the provider: applied here only once it accepted (once per request).
    if (!accepted && request.forward) accepted = await request.forward(txn);
    const refundedAmount = fromMinorUnits(toMinorUnits(txn.refundedAmount) + toMinorUnits(refundAmount.value));
    const response = snapOk(svc, {
      originalPartnerReferenceNo: txn.partnerReferenceNo,
      originalReferenceNo: txn.referenceNo,
      refundNo,
      partnerRefundNo,
      refundAmount,
      refundTime: formatJakartaTimestamp(ctx.now),
    });
    const refund = {
      refundNo,
      referenceNo: txn.referenceNo,
      merchantId: txn.merchantId,
      partnerRefundNo,
      amount: refundAmount.value,
      reason,
      createdAt: ctx.now,
    };
    const isWhole = refundedAmount === txn.amount;
    let written: boolean;
    try {
      written = await changer
        .change(
          txn,
          {
            to: isWhole ? '04' : '00',
            reason: reason ?? (isWhole ? 'refunded' : `refunded in part (${refundNo})`),
            renotify: true,
            patch: () => ({ refundedAmount }),
            refund,
            idempotency: recordFor(response),
            decidedOnRead: true,
            requestId: ctx.requestId,
          },
          ctx.now,
        )
        .then(() => true)
        .catch((e) => {
          if (e instanceof LostRace) return false;
          throw e;
        });
    } catch (e) {
      if (e instanceof UniqueViolation && e.constraint.includes('partner_refund_no')) {
        throw snapError('CONFLICT', svc, { detail: { duplicate: 'partnerRefundNo' } });
      }
      throw e;
    }
    if (written) return response;
    if (attempt >= 10) throw snapError('CONFLICT', svc, { detail: 'transaction kept changing during refund' });
    txn = (await store.findTransaction(txn.referenceNo)) as TransactionRecord;
  }
}

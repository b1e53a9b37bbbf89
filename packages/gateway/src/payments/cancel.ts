import { formatJakartaTimestamp, snapError } from '@snapgate/snap';
import type { TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { type RecordFor, type SnapResponse, snapOk } from './idempotency.ts';
import type { MerchantRequest } from './snap-request.ts';
import { IllegalStatusChange, type StatusChanger } from './status-change.ts';

/**
 * A merchant cancels an unpaid transaction (docs/protocol.md#transaction-statuses: only an
 * Initiated one, 01 → 05), of any method that is cancelled. `forward` cancels it at its provider
 * first, when one issued it: whether one did (its own notify of 05 may then arrive first, and the
 * cancel still succeeded).
 */
export async function cancelTransaction(
  deps: { store: Store; changer: StatusChanger },
  ctx: MerchantRequest,
  recordFor: RecordFor,
  request: {
    txn: TransactionRecord;
    reason: string | undefined;
    forward?: (txn: TransactionRecord) => Promise<boolean>;
  },
): Promise<SnapResponse> {
  const svc = ctx.serviceCode;
  const { txn, reason } = request;
  if (txn.status !== '01') throw snapError('NOT_ALLOWED', svc, { detail: { status: txn.status } });
  const accepted = request.forward ? await request.forward(txn) : false;
  const response = snapOk(svc, {
    originalReferenceNo: txn.referenceNo,
    originalPartnerReferenceNo: txn.partnerReferenceNo,
    cancelTime: formatJakartaTimestamp(ctx.now),
    transactionDate: formatJakartaTimestamp(txn.createdAt),
  });
  try {
    await deps.changer.change(
      txn,
      {
        to: '05',
        reason: reason ?? 'canceled by merchant',
        idempotency: recordFor(response),
        requestId: ctx.requestId,
      },
      ctx.now,
    );
  } catch (e) {
    if (!(e instanceof IllegalStatusChange)) throw e;
    // Paid or failed meanwhile; or the provider cancelled it and its own notify of 05 got here first:
    // then the cancel succeeded.
    if (!accepted || e.from !== '05') throw snapError('NOT_ALLOWED', svc, { detail: { status: e.from } });
    await deps.store.insertIdempotency(recordFor(response), ctx.now).catch(() => undefined);
  }
  return response;
}

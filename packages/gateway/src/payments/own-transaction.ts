import { snapError } from '@snapgate/snap';
import type { TransactionKind, TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { expireIfDue } from './expiry.ts';
import { createFieldReader } from './fields.ts';
import type { TextField } from './snap-fields.ts';
import type { MerchantRequest } from './snap-request.ts';
import type { StatusChanger } from './status-change.ts';

/**
 * The merchant's transaction of one method named by `originalReferenceNo`, `originalPartnerReferenceNo`
 * or both (then both must match), expired first if it is due. Unknown, another method's or another
 * merchant's is one answer: 404 xx01 (docs/protocol.md#payment-calls).
 */
export async function findOwnTransaction(
  deps: { store: Store; changer: StatusChanger },
  ctx: MerchantRequest,
  kind: TransactionKind,
  refs: { originalReferenceNo: TextField; originalPartnerReferenceNo: TextField },
): Promise<TransactionRecord> {
  const svc = ctx.serviceCode;
  const f = createFieldReader(ctx.body, svc);
  const referenceNo = f.str('originalReferenceNo', refs.originalReferenceNo);
  const partnerReferenceNo = f.str('originalPartnerReferenceNo', refs.originalPartnerReferenceNo);
  if (referenceNo === undefined && partnerReferenceNo === undefined) {
    throw snapError('INVALID_MANDATORY_FIELD', svc, { field: 'originalReferenceNo' });
  }
  const txn = referenceNo
    ? await deps.store.findTransaction(referenceNo)
    : await deps.store.findTransactionByPartnerRef(ctx.merchant.id, kind, partnerReferenceNo as string);
  if (
    !txn ||
    txn.merchantId !== ctx.merchant.id ||
    txn.kind !== kind ||
    (partnerReferenceNo !== undefined && txn.partnerReferenceNo !== partnerReferenceNo)
  ) {
    throw snapError('TRANSACTION_NOT_FOUND', svc);
  }
  return expireIfDue(deps.changer, txn, ctx.now, ctx.requestId);
}

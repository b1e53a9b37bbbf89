import type { VaTransaction } from '../records/records.ts';

/**
 * A VA as SNAP names it, with its holder and the merchant's bill: the fields a VA answer
 * (docs/protocol.md#virtual-account) and a VA callback in SNAP's payment shape start with.
 */
export function vaIdentity(txn: VaTransaction) {
  const d = txn.details;
  return {
    partnerServiceId: d.partnerServiceId,
    customerNo: d.customerNo,
    virtualAccountNo: txn.virtualAccountNo,
    virtualAccountName: d.virtualAccountName,
    virtualAccountEmail: d.virtualAccountEmail,
    virtualAccountPhone: d.virtualAccountPhone,
    trxId: txn.partnerReferenceNo,
  };
}

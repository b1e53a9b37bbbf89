import { formatJakartaTimestamp, phpJsonEncode } from '@snapgate/snap';
import type { CallbackJson, Payer, TransactionRecord } from '../store/store.ts';

export type { Payer };

export const NO_PAYER: Payer = { payerName: '', payerIssuer: '', payerRefId: '' };

export function payerOf(txn: TransactionRecord): Payer {
  return { ...NO_PAYER, ...txn.details.payer };
}

/**
 * The notification body of docs/protocol.md#callbacks, serialised once and compactly, in the
 * document's field order. These bytes are stored, signed and sent on every attempt.
 */
export function notificationBody(txn: TransactionRecord, atMs: number, format: CallbackJson = 'standard'): string {
  const payer = payerOf(txn);
  const value = txn.kind === 'va' ? (txn.paidAmount ?? txn.amount ?? '0.00') : (txn.amount ?? '0.00');
  return (format === 'php' ? phpJsonEncode : JSON.stringify)({
    originalReferenceNo: txn.referenceNo,
    originalPartnerReferenceNo: txn.partnerReferenceNo,
    latestTransactionStatus: txn.status,
    amount: { value, currency: txn.currency },
    additionalInfo: {
      payerIssuer: payer.payerIssuer,
      payerName: payer.payerName,
      payerRefId: payer.payerRefId,
      billNumber: txn.billNumber,
      transactionDate: formatJakartaTimestamp(atMs),
      feeAmount: { value: txn.feeAmount, currency: txn.currency },
    },
  });
}

import { formatJakartaTimestamp, phpJsonEncode } from '@snapgate/snap';
import type { CallbackJson, TransactionRecord } from '../store/store.ts';

export interface Payer {
  payerName: string;
  payerIssuer: string;
  payerRefId: string;
}

export const NO_PAYER: Payer = { payerName: '', payerIssuer: '', payerRefId: '' };

export function payerOf(txn: TransactionRecord): Payer {
  const p = txn.details.payer as Partial<Payer> | undefined;
  return { ...NO_PAYER, ...p };
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

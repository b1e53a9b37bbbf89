import { formatJakartaTimestamp, phpJsonEncode } from '@snapgate/snap';
import type { CallbackJson, Payer, TransactionRecord } from '../store/store.ts';

export type { Payer };

export const NO_PAYER: Payer = { payerName: '', payerIssuer: '', payerRefId: '' };

export function payerOf(txn: TransactionRecord): Payer {
  return { ...NO_PAYER, ...txn.details.payer };
}

/** An empty string anywhere in a value as null (callbackJson `php-laravel`). */
function emptyAsNull(v: unknown): unknown {
  if (v === '') return null;
  if (Array.isArray(v)) return v.map(emptyAsNull);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, emptyAsNull(x)]));
  }
  return v;
}

/** A callback body in the merchant's serialisation (docs/callbacks.md#body-serialisation). */
export function serializeCallback(value: unknown, format: CallbackJson = 'standard'): string {
  if (format === 'php') return phpJsonEncode(value);
  if (format === 'php-laravel') return phpJsonEncode(emptyAsNull(value));
  return JSON.stringify(value);
}

/**
 * The notification body of docs/protocol.md#callbacks, serialised once and compactly, in the
 * document's field order. These bytes are stored, signed and sent on every attempt.
 */
export function notificationBody(txn: TransactionRecord, atMs: number, format: CallbackJson = 'standard'): string {
  const payer = payerOf(txn);
  const value = txn.kind === 'va' ? (txn.paidAmount ?? txn.amount ?? '0.00') : (txn.amount ?? '0.00');
  return serializeCallback(
    {
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
    },
    format,
  );
}

import { formatJakartaTimestamp, phpJsonEncode } from '@snapgate/snap';
import { methodOfTxn } from '../methods/index.ts';
import type {
  CallbackJson,
  MerchantRecord,
  Payer,
  RefundRecord,
  TransactionRecord,
  VaTransaction,
} from '../records/records.ts';
import { vaIdentity } from './va-identity.ts';

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

/** How a merchant's callbacks are written: its serialisation, and its VA callbacks' shape. */
export type CallbackStyle = Partial<Pick<MerchantRecord, 'callbackJson' | 'callbackVaBody'>>;

/**
 * What a refund's callback adds (docs/protocol.md#refund-callbacks): the refund that caused it, and
 * the total refunded so far, which a later refund's callback (that may replace this one while it
 * is undelivered) carries too.
 */
function refundInfo(txn: TransactionRecord, refund: RefundRecord) {
  return {
    refund: {
      refundNo: refund.refundNo,
      partnerRefundNo: refund.partnerRefundNo,
      refundAmount: { value: refund.amount, currency: txn.currency },
      refundTime: formatJakartaTimestamp(refund.createdAt),
    },
    refundedAmount: { value: txn.refundedAmount, currency: txn.currency },
  };
}

/**
 * The notification body of docs/protocol.md#callbacks, serialised once and compactly, in the
 * document's field order. These bytes are stored, signed and sent on every attempt. A VA
 * payment (status 00) to a merchant with `callbackVaBody: snap-payment` is in SNAP's VA payment
 * shape. `refund`: the refund that caused this change (a refund's callback).
 */
export function notificationBody(
  txn: TransactionRecord,
  atMs: number,
  style: CallbackStyle = {},
  refund?: RefundRecord,
): string {
  const payer = payerOf(txn);
  const value = methodOfTxn(txn).notifiedAmount(txn);
  const additionalInfo = {
    payerIssuer: payer.payerIssuer,
    payerName: payer.payerName,
    payerRefId: payer.payerRefId,
    billNumber: txn.billNumber,
    transactionDate: formatJakartaTimestamp(atMs),
    feeAmount: { value: txn.feeAmount, currency: txn.currency },
    ...(refund ? refundInfo(txn, refund) : {}),
    // A payment made through a payment link names it (docs/payment-links.md).
    ...(txn.paymentLinkId ? { paymentLinkId: txn.paymentLinkId } : {}),
  };
  // SNAP's debit notify (56), as a wallet tells its merchant: the references in its order, and
  // the wallet with the payer it reported (docs/ewallets.md#callbacks).
  if (txn.kind === 'ewallet') {
    return serializeCallback(
      {
        originalPartnerReferenceNo: txn.partnerReferenceNo,
        originalReferenceNo: txn.referenceNo,
        latestTransactionStatus: txn.status,
        transactionStatusDesc: txn.statusDesc ?? '',
        amount: { value, currency: txn.currency },
        additionalInfo: { payOption: txn.details.payOption, ...additionalInfo },
      },
      style.callbackJson,
    );
  }
  // A payment shape carries no status: only a payment goes in it; every other change (expired,
  // deleted, refunded) keeps the standard body, so no bank-style receiver mistakes it for one.
  if (txn.kind === 'va' && style.callbackVaBody === 'snap-payment' && txn.status === '00' && !refund) {
    return serializeCallback(vaPaymentShape(txn, value, additionalInfo), style.callbackJson);
  }
  return serializeCallback(
    {
      originalReferenceNo: txn.referenceNo,
      originalPartnerReferenceNo: txn.partnerReferenceNo,
      latestTransactionStatus: txn.status,
      amount: { value, currency: txn.currency },
      additionalInfo,
    },
    style.callbackJson,
  );
}

/**
 * SNAP's VA payment request (what a bank's payment flag carries), as bank-style receivers read a
 * VA payment (docs/callbacks.md#va-payment-shape); snapgate's status and references in `additionalInfo`.
 */
function vaPaymentShape(txn: VaTransaction, paid: string, extra: Record<string, unknown>): Record<string, unknown> {
  const d = txn.details;
  return {
    ...vaIdentity(txn),
    paymentRequestId: d.paymentRequestId ?? txn.referenceNo,
    paidAmount: { value: txn.paidAmount ?? '0.00', currency: txn.currency },
    totalAmount: { value: paid, currency: txn.currency },
    trxDateTime: txn.paidAt === null ? '' : formatJakartaTimestamp(txn.paidAt),
    referenceNo: txn.referenceNo,
    additionalInfo: {
      latestTransactionStatus: txn.status,
      transactionStatusDesc: txn.statusDesc ?? '',
      channel: d.bankCode,
      ...extra,
    },
  };
}

import { randomUUID } from 'node:crypto';
import type { TransactionStatus } from '@snapgate/snap';
import type { Payer } from '../payments/notification-body.ts';
import { newExternalId } from '../payments/upstream.ts';
import type { SnapAnswer, SnapClient, SnapTarget } from './snap-client.ts';

// What a bank, an acquirer and a wallet send a SNAP gateway when a payment happens. The built-in
// sandbox bank, acquirer and wallet use these against this gateway; `snapgate simulate --provider-key` uses them
// against any gateway, as any provider.

/** A bank splits the whole number as its VA range is laid out: 8-char partnerServiceId + customerNo. */
export function vaNumbers(virtualAccountNo: string) {
  const number = virtualAccountNo.trim().padStart(20, ' ');
  return { partnerServiceId: number.slice(0, 8), customerNo: number.slice(8), virtualAccountNo: number };
}

export interface VaPaymentOutcome {
  inquiry: SnapAnswer;
  /** Absent when the inquiry was refused (the bank does not pay an unknown or closed bill). */
  payment?: SnapAnswer;
  paymentRequestId: string;
}

/** A bank customer pays a VA: inquiry (24) for the bill, then the payment flag (25). */
export async function payVaAsBank(
  client: SnapClient,
  bank: SnapTarget,
  virtualAccountNo: string,
  input: { amount?: string | undefined; payer: Payer; requestId?: string | undefined },
): Promise<VaPaymentOutcome> {
  const options = { requestId: input.requestId };
  const numbers = vaNumbers(virtualAccountNo);
  const paymentRequestId = randomUUID();
  const inquiry = await client.call(
    bank,
    {
      path: 'transfer-va/inquiry',
      body: { ...numbers, inquiryRequestId: randomUUID(), channelCode: 6011 },
      externalId: newExternalId(),
    },
    options,
  );
  if (inquiry.httpStatus !== 200) return { inquiry, paymentRequestId };
  const bill = (inquiry.body.virtualAccountData as { totalAmount?: { value?: string } } | undefined)?.totalAmount;
  const payment = await client.call(
    bank,
    {
      path: 'transfer-va/payment',
      body: {
        ...numbers,
        paymentRequestId,
        channelCode: 6011,
        paidAmount: { value: input.amount ?? bill?.value ?? '0.00', currency: 'IDR' },
        referenceNo: input.payer.payerRefId,
        flagAdvise: 'N',
        additionalInfo: { payerName: input.payer.payerName },
      },
      externalId: newExternalId(),
    },
    options,
  );
  return { inquiry, payment, paymentRequestId };
}

/** The acquirer tells the gateway what the payer did with one of its QRIS (52). */
export function notifyQrisAsAcquirer(
  client: SnapClient,
  acquirer: SnapTarget,
  input: {
    referenceNo: string;
    amount: string;
    status: TransactionStatus;
    payer: Payer;
    requestId?: string | undefined;
  },
): Promise<SnapAnswer> {
  return client.call(
    acquirer,
    {
      path: 'qr/qr-mpm-notify',
      body: {
        originalReferenceNo: `ACQ${input.referenceNo}`,
        originalPartnerReferenceNo: input.referenceNo,
        latestTransactionStatus: input.status,
        amount: { value: input.amount, currency: 'IDR' },
        additionalInfo: input.payer,
      },
      externalId: newExternalId(),
    },
    { requestId: input.requestId },
  );
}

/** The wallet tells the gateway what its payer did with a payment it serves (56): `00` or `06`. */
export function notifyDebitAsWallet(
  client: SnapClient,
  wallet: SnapTarget,
  input: {
    referenceNo: string;
    amount: string;
    status: TransactionStatus;
    payer: Pick<Payer, 'payerName' | 'payerRefId'>;
    requestId?: string | undefined;
  },
): Promise<SnapAnswer> {
  return client.call(
    wallet,
    {
      path: 'debit/notify',
      body: {
        originalPartnerReferenceNo: input.referenceNo,
        originalReferenceNo: `SBW${input.referenceNo}`,
        latestTransactionStatus: input.status,
        amount: { value: input.amount, currency: 'IDR' },
        additionalInfo: { payerName: input.payer.payerName, payerRefId: input.payer.payerRefId },
      },
      externalId: newExternalId(),
    },
    { requestId: input.requestId },
  );
}

import type { Money, TransactionStatus } from '@snapgate/snap';

// Payment API request and response bodies (docs/protocol.md#payment-calls), as a merchant sends and reads them.

/**
 * Every SNAP answer carries these two.
 *
 * @example
 * const ok: SnapResponseBody = { responseCode: '2004700', responseMessage: 'Successful' };
 */
export interface SnapResponseBody {
  responseCode: string;
  responseMessage: string;
}

/**
 * `POST qr/qr-mpm-generate` (service 47).
 *
 * @example
 * const req: GenerateQrisRequest = { partnerReferenceNo: 'ORDER-1', amount: { value: '10000.00', currency: 'IDR' } };
 */
export interface GenerateQrisRequest {
  /** The merchant's reference, unique per merchant (≤ 64). */
  partnerReferenceNo: string;
  amount: Money;
  merchantId?: string;
  terminalId?: string;
  storeId?: string;
  /** ISO 8601; the gateway's default is now + 30 minutes. */
  validityPeriod?: string;
  additionalInfo?: {
    /**
     * Where the hosted checkout page sends the payer when the payment ends: an absolute http(s)
     * URL, https in production (else 400 `Invalid Field Format {additionalInfo.returnUrl}`).
     */
    returnUrl?: string;
    [key: string]: unknown;
  };
}

/**
 * The answer to {@link GenerateQrisRequest}: the QR to show the payer.
 *
 * @example
 * const { referenceNo, qrContent } = await snap.generateQris(req);
 */
export interface GenerateQrisResponse extends SnapResponseBody {
  referenceNo: string;
  partnerReferenceNo: string;
  /** The EMVCo MPM / QRIS string to render as a QR code. */
  qrContent: string;
  qrUrl: string;
  merchantName: string;
  additionalInfo: {
    validityPeriod: string;
    /** The hosted checkout page of this QRIS (`<gateway>/pay/<id>`): send the payer there. */
    checkoutUrl: string;
    [key: string]: unknown;
  };
}

/**
 * Names a QRIS by the gateway's reference or the merchant's (one is mandatory).
 *
 * @example
 * const byOrder: QrisReference = { originalPartnerReferenceNo: 'ORDER-1' };
 */
export interface QrisReference {
  originalReferenceNo?: string;
  originalPartnerReferenceNo?: string;
}

/**
 * `POST qr/qr-mpm-query` (51). `serviceCode` defaults to `"47"`.
 *
 * @example
 * const q: QueryQrisRequest = { originalReferenceNo: '241121000000000001' };
 */
export interface QueryQrisRequest extends QrisReference {
  serviceCode?: '47';
}

/**
 * Payer fields of a paid transaction (docs/protocol.md#callbacks).
 *
 * @example
 * const payer: PayerInfo = { payerName: 'SITI', payerIssuer: '93600014', payerRefId: '123456' };
 */
export interface PayerInfo {
  payerIssuer?: string;
  payerName?: string;
  payerRefId?: string;
  billNumber?: number;
  [key: string]: unknown;
}

/**
 * The answer to {@link QueryQrisRequest}.
 *
 * @example
 * const { latestTransactionStatus } = await snap.queryQris({ originalPartnerReferenceNo: 'ORDER-1' });
 */
export interface QueryQrisResponse extends SnapResponseBody {
  originalReferenceNo: string;
  originalPartnerReferenceNo: string;
  serviceCode: string;
  latestTransactionStatus: TransactionStatus;
  transactionStatusDesc: string;
  amount: Money;
  /** Present once paid. */
  paidTime?: string;
  feeAmount?: Money;
  additionalInfo?: PayerInfo;
}

/**
 * `POST qr/qr-mpm-cancel` (77): an unpaid QRIS becomes `05`.
 *
 * @example
 * const c: CancelQrisRequest = { originalPartnerReferenceNo: 'ORDER-1', reason: 'customer left' };
 */
export interface CancelQrisRequest extends QrisReference {
  reason?: string;
}

/**
 * The answer to {@link CancelQrisRequest}.
 *
 * @example
 * const { cancelTime } = await snap.cancelQris(c);
 */
export interface CancelQrisResponse extends SnapResponseBody {
  originalReferenceNo: string;
  originalPartnerReferenceNo: string;
  cancelTime: string;
  transactionDate?: string;
}

/**
 * `POST qr/qr-mpm-refund` (78).
 *
 * @example
 * const r: RefundQrisRequest = { originalPartnerReferenceNo: 'ORDER-1', partnerRefundNo: 'RF-1',
 *   refundAmount: { value: '5000.00', currency: 'IDR' } };
 */
export interface RefundQrisRequest {
  originalPartnerReferenceNo: string;
  originalReferenceNo?: string;
  /** The merchant's refund reference, unique. */
  partnerRefundNo: string;
  refundAmount: Money;
  reason?: string;
}

/**
 * The answer to {@link RefundQrisRequest}.
 *
 * @example
 * const { refundNo } = await snap.refundQris(r);
 */
export interface RefundQrisResponse extends SnapResponseBody {
  originalPartnerReferenceNo: string;
  originalReferenceNo: string;
  refundNo: string;
  partnerRefundNo: string;
  refundAmount: Money;
  refundTime: string;
}

/**
 * `POST transfer-va/create-va` (27).
 *
 * @example
 * const v: CreateVaRequest = { virtualAccountName: 'BUDI', trxId: 'ORDER-2',
 *   totalAmount: { value: '75000.00', currency: 'IDR' } };
 */
export interface CreateVaRequest {
  virtualAccountName: string;
  /** The merchant's reference, unique per merchant (≤ 64). */
  trxId: string;
  /** Mandatory for a closed (`C`) VA. */
  totalAmount?: Money;
  /** `C` closed, exact amount (default); `O` open, any positive amount. */
  virtualAccountTrxType?: 'C' | 'O';
  virtualAccountEmail?: string;
  virtualAccountPhone?: string;
  /** ISO 8601; empty or absent = the gateway's default (24 h). */
  expiredDate?: string;
  additionalInfo?: {
    bankCode?: string;
    /** Where the hosted checkout page sends the payer when the payment ends (http(s); https in production). */
    returnUrl?: string;
    [key: string]: unknown;
  };
}

/**
 * A VA as create, inquiry and update answer it.
 *
 * @example
 * const { virtualAccountNo } = (await snap.createVa(v)).virtualAccountData;
 */
export interface VirtualAccountData {
  /** 8 characters, left-padded with spaces. */
  partnerServiceId: string;
  customerNo: string;
  /** partnerServiceId + customerNo, spaces included. */
  virtualAccountNo: string;
  virtualAccountName: string;
  virtualAccountEmail: string;
  virtualAccountPhone: string;
  trxId: string;
  totalAmount: Money;
  virtualAccountTrxType: 'C' | 'O';
  expiredDate: string;
  additionalInfo: {
    bankCode: string;
    /** The VA's hosted checkout page (`<gateway>/pay/<id>`); absent on VAs made before the checkout. */
    checkoutUrl?: string;
    [key: string]: unknown;
  };
}

/**
 * The answer to {@link CreateVaRequest}.
 *
 * @example
 * const created: CreateVaResponse = await snap.createVa(v);
 */
export interface CreateVaResponse extends SnapResponseBody {
  virtualAccountData: VirtualAccountData;
}

/**
 * Names a VA: by number, optionally with its trxId.
 *
 * @example
 * const va: VaReference = { virtualAccountNo: '   12345000000000001', trxId: 'ORDER-2' };
 */
export interface VaReference {
  virtualAccountNo: string;
  trxId?: string;
}

/**
 * `POST transfer-va/inquiry-va` (30).
 *
 * @example
 * const i: InquiryVaRequest = { virtualAccountNo };
 */
export type InquiryVaRequest = VaReference;

/**
 * The answer to {@link InquiryVaRequest}.
 *
 * @example
 * const { latestTransactionStatus } = (await snap.inquiryVa(i)).virtualAccountData;
 */
export interface InquiryVaResponse extends SnapResponseBody {
  virtualAccountData: VirtualAccountData & { latestTransactionStatus: TransactionStatus };
}

/**
 * `POST transfer-va/status` (26).
 *
 * @example
 * const s: VaStatusRequest = { virtualAccountNo, trxId: 'ORDER-2' };
 */
export type VaStatusRequest = VaReference;

/**
 * The answer to {@link VaStatusRequest}.
 *
 * @example
 * const paid = (await snap.vaStatus(s)).virtualAccountData.paymentFlagStatus === '00';
 */
export interface VaStatusResponse extends SnapResponseBody {
  virtualAccountData: {
    partnerServiceId: string;
    customerNo: string;
    virtualAccountNo: string;
    trxId: string;
    /** `00` paid, `01` unpaid. */
    paymentFlagStatus: '00' | '01';
    paidAmount: Money;
    totalAmount: Money;
    /** When paid, else empty. */
    transactionDate: string;
    latestTransactionStatus: TransactionStatus;
    transactionStatusDesc: string;
  };
}

/**
 * `PUT transfer-va/update-va` (28): name, amount and expiry of an unpaid VA.
 *
 * @example
 * const u: UpdateVaRequest = { virtualAccountNo, totalAmount: { value: '80000.00', currency: 'IDR' } };
 */
export interface UpdateVaRequest extends VaReference {
  virtualAccountName?: string;
  totalAmount?: Money;
  expiredDate?: string;
}

/**
 * The answer to {@link UpdateVaRequest}.
 *
 * @example
 * const updated: UpdateVaResponse = await snap.updateVa(u);
 */
export interface UpdateVaResponse extends SnapResponseBody {
  virtualAccountData: VirtualAccountData;
}

/**
 * `DELETE transfer-va/delete-va` (31): an unpaid VA stops accepting payment.
 *
 * @example
 * const d: DeleteVaRequest = { virtualAccountNo, trxId: 'ORDER-2' };
 */
export type DeleteVaRequest = VaReference;

/**
 * The answer to {@link DeleteVaRequest}.
 *
 * @example
 * const deleted: DeleteVaResponse = await snap.deleteVa(d);
 */
export interface DeleteVaResponse extends SnapResponseBody {
  virtualAccountData: Pick<VirtualAccountData, 'partnerServiceId' | 'customerNo' | 'virtualAccountNo' | 'trxId'>;
}

/**
 * The payment notification body of docs/protocol.md#callbacks, as verified.
 *
 * @example
 * const n: PaymentNotification = verifyCallback(request, { clientSecret, partnerId });
 * if (n.latestTransactionStatus === '00') markPaid(n.originalPartnerReferenceNo);
 */
export interface PaymentNotification {
  /** The gateway's reference of the transaction. */
  originalReferenceNo: string;
  /** The merchant's reference: partnerReferenceNo (QRIS, e-wallet) or trxId (VA). */
  originalPartnerReferenceNo: string;
  latestTransactionStatus: TransactionStatus;
  /** An e-wallet payment's callback (SNAP's debit notify): the status in words. */
  transactionStatusDesc?: string;
  amount: Money;
  additionalInfo: {
    /** An e-wallet payment's callback: the wallet (`SANDBOXPAY`, `DANA`, …). */
    payOption?: string;
    payerIssuer?: string;
    payerName?: string;
    payerRefId?: string;
    billNumber?: number;
    /** ISO 8601 with a numeric offset. */
    transactionDate?: string;
    feeAmount?: Money;
    /** A refund's callback only: the refund that caused it (docs/protocol.md#refund-callbacks). */
    refund?: RefundNotice;
    /** A refund's callback only: the total refunded so far, this refund included. */
    refundedAmount?: Money;
    [key: string]: unknown;
  };
}

/**
 * The refund a refund's callback tells of (`additionalInfo.refund`): status `00` for a part, `04`
 * once the whole amount is back.
 *
 * @example
 * const r: RefundNotice = { refundNo: 'RF7159768889358441', partnerRefundNo: 'RF-0001', refundAmount: { value: '5000.00', currency: 'IDR' }, refundTime: '2026-11-23T11:00:00+07:00' };
 */
export interface RefundNotice {
  /** The gateway's refund number: `RF` and 16 digits. */
  refundNo: string;
  /** Yours, as sent with the refund (or the console's `CONSOLE-…` when the operator refunded). */
  partnerRefundNo: string;
  refundAmount: Money;
  /** ISO 8601, Jakarta time. */
  refundTime: string;
}

// Disbursements (docs/protocol.md#disbursements): SNAP Transfer Credit, money out of what the gateway owes the merchant.

/**
 * Where a transfer stands: `00` paid, `03` on its way, `06` failed (amount and fee returned).
 *
 * @example
 * const status: TransferStatus = (await snap.transferStatus({ originalPartnerReferenceNo: 'PAY-1' })).latestTransactionStatus;
 */
export type TransferStatus = Extract<TransactionStatus, '00' | '03' | '06'>;

/**
 * `POST account-inquiry-external` (service 16): who holds an account.
 *
 * @example
 * const q: AccountInquiryRequest = { beneficiaryBankCode: '014', beneficiaryAccountNo: '1234567890' };
 */
export interface AccountInquiryRequest {
  /** Bank Indonesia's code of the bank, 3 digits. */
  beneficiaryBankCode: string;
  /** Digits, at most 34. */
  beneficiaryAccountNo: string;
  /** Yours (≤ 64), echoed. */
  partnerReferenceNo?: string;
  /** Echoed. */
  additionalInfo?: Record<string, unknown>;
}

/**
 * The answer to {@link AccountInquiryRequest}. An account the bank does not know throws 404 `4041611`.
 *
 * @example
 * const { beneficiaryAccountName } = await snap.accountInquiry(q);
 */
export interface AccountInquiryResponse extends SnapResponseBody {
  partnerReferenceNo?: string;
  /** The holder's name, as the bank knows it. */
  beneficiaryAccountName: string;
  beneficiaryAccountNo: string;
  beneficiaryBankCode: string;
  currency: string;
  additionalInfo?: Record<string, unknown>;
}

/**
 * `POST transfer-interbank` (service 18): send money out of the merchant's pending balance.
 *
 * @example
 * const t: TransferRequest = { partnerReferenceNo: 'PAY-1', amount: { value: '20000.00', currency: 'IDR' },
 *   beneficiaryAccountName: 'CV Sumber Rejeki', beneficiaryAccountNo: '1234567890', beneficiaryBankCode: '014' };
 */
export interface TransferRequest {
  /** Yours, once ever (≤ 64): another transfer with it is refused 409 `4091801`. */
  partnerReferenceNo: string;
  amount: Money;
  /** At most 100. */
  beneficiaryAccountName: string;
  /** Digits, at most 34. */
  beneficiaryAccountNo: string;
  /** Bank Indonesia's code of the bank, 3 digits. */
  beneficiaryBankCode: string;
  /** Ignored by snapgate: the money leaves the operator's account. */
  sourceAccountNo?: string;
  /** A SNAP date-time; the gateway keeps its own. */
  transactionDate?: string;
  /** At most 50, passed to the bank. */
  remark?: string;
  customerReference?: string;
  beneficiaryEmail?: string;
  /** At most 4096 bytes of JSON; echoed in every answer and in the transfer callback. */
  additionalInfo?: Record<string, unknown>;
}

/**
 * The answer to {@link TransferRequest}: `responseCode` `2001800` (HTTP 200) paid, or `2021800`
 * (HTTP 202, Request In Progress) pending: held, its end comes by transfer callback and by
 * {@link TransferStatusRequest}. A pending answer is returned, never thrown.
 *
 * @example
 * const sent = await snap.transfer(t);
 * if (sent.responseCode === '2021800') console.log('on its way:', sent.referenceNo);
 */
export interface TransferResponse extends SnapResponseBody {
  /** The gateway's reference of the transfer. */
  referenceNo: string;
  partnerReferenceNo: string;
  amount: Money;
  beneficiaryAccountNo: string;
  beneficiaryBankCode: string;
  transactionDate?: string;
  additionalInfo?: Record<string, unknown>;
}

/**
 * `POST transfer/status` (service 36). `serviceCode` defaults to `"18"`.
 *
 * @example
 * const s: TransferStatusRequest = { originalPartnerReferenceNo: 'PAY-1' };
 */
export interface TransferStatusRequest {
  /** Your `partnerReferenceNo` of the transfer. */
  originalPartnerReferenceNo: string;
  /** The transfer's service: `18` (the default) or `17`. */
  serviceCode?: '18' | '17';
  /** The gateway's `referenceNo`: must match when given. */
  originalReferenceNo?: string;
  /** Echoed. */
  originalExternalId?: string;
  transactionDate?: string;
  additionalInfo?: Record<string, unknown>;
}

/**
 * The answer to {@link TransferStatusRequest}. An unknown transfer throws 404 `4043601`.
 *
 * @example
 * const { latestTransactionStatus } = await snap.transferStatus(s); // '00' paid, '03' on its way, '06' failed
 */
export interface TransferStatusResponse extends SnapResponseBody {
  originalReferenceNo: string;
  originalPartnerReferenceNo: string;
  originalExternalId?: string;
  serviceCode: string;
  amount: Money;
  beneficiaryAccountNo: string;
  beneficiaryBankCode: string;
  transactionDate?: string;
  /** The bank's reference, once it has one. */
  referenceNumber?: string;
  latestTransactionStatus: TransferStatus;
  transactionStatusDesc: string;
  additionalInfo?: Record<string, unknown>;
}

/**
 * The transfer callback body of docs/protocol.md#transfer-callbacks, as verified: how a transfer
 * answered 202 ended.
 *
 * @example
 * const n: TransferNotification = verifyTransferCallback(request, { clientSecret, partnerId });
 * if (n.latestTransactionStatus === '06') markTransferFailed(n.originalPartnerReferenceNo);
 */
export interface TransferNotification {
  /** Your `partnerReferenceNo` of the transfer. */
  originalPartnerReferenceNo: string;
  /** The gateway's `referenceNo` of the transfer. */
  originalReferenceNo: string;
  /** `18`. */
  serviceCode: string;
  /** `00` paid, `06` failed (amount and fee back in your pending balance). */
  latestTransactionStatus: TransferStatus;
  transactionStatusDesc: string;
  amount: Money;
  beneficiaryAccountNo: string;
  beneficiaryBankCode: string;
  /** The transfer's own `additionalInfo`, `{}` when it had none. */
  additionalInfo: Record<string, unknown>;
}

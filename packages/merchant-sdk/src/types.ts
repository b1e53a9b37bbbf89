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
  /** The merchant's reference: partnerReferenceNo (QRIS) or trxId (VA). */
  originalPartnerReferenceNo: string;
  latestTransactionStatus: TransactionStatus;
  amount: Money;
  additionalInfo: {
    payerIssuer?: string;
    payerName?: string;
    payerRefId?: string;
    billNumber?: number;
    /** ISO 8601 with a numeric offset. */
    transactionDate?: string;
    feeAmount?: Money;
    [key: string]: unknown;
  };
}

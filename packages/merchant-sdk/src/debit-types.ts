// E-wallet payments over SNAP Direct Debit (docs/ewallets.md), as the SDK's client calls them.
import type { Money, TransactionStatus } from '@snapgate/snap';
import type { RefundQrisResponse, SnapResponseBody } from './types.ts';

/**
 * Where the payer goes back to (`PAY_RETURN`), or where this payment's callbacks go (`PAY_NOTIFY`).
 *
 * @example
 * const back: DebitUrlParam = { url: 'https://shop.example/orders/1', type: 'PAY_RETURN', isDeeplink: 'N' };
 */
export interface DebitUrlParam {
  url: string;
  type: 'PAY_RETURN' | 'PAY_NOTIFY';
  isDeeplink: 'Y' | 'N';
}

/**
 * The wallet a payment is made in, and its amount (equal to the payment's).
 *
 * @example
 * const option: DebitPayOption = { payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: { value: '25000.00', currency: 'IDR' } };
 */
export interface DebitPayOption {
  payMethod: 'EMONEY';
  /** `DANA`, `OVO`, `SHOPEEPAY`, `GOPAY`, `LINKAJA`, … as the operator connected them; `SANDBOXPAY` in sandbox. */
  payOption: string;
  transAmount: Money;
}

/**
 * `POST debit/payment-host-to-host` (54): a payment the payer authorises at the wallet.
 *
 * @example
 * const p: PayDebitRequest = {
 *   partnerReferenceNo: 'ORDER-1',
 *   amount: { value: '25000.00', currency: 'IDR' },
 *   payOptionDetails: [{ payMethod: 'EMONEY', payOption: 'SANDBOXPAY', transAmount: { value: '25000.00', currency: 'IDR' } }],
 * };
 */
export interface PayDebitRequest {
  partnerReferenceNo: string;
  amount: Money;
  /** Until when the payer may approve (ISO 8601 with an offset); default 30 minutes. */
  validUpTo?: string;
  urlParams?: DebitUrlParam[];
  /** Exactly one entry. */
  payOptionDetails: [DebitPayOption];
  additionalInfo?: Record<string, unknown>;
}

/**
 * The answer to {@link PayDebitRequest}: send the payer to `webRedirectUrl` (or the checkout page).
 *
 * @example
 * const { webRedirectUrl } = await snap.payDebit(p);
 */
export interface PayDebitResponse extends SnapResponseBody {
  referenceNo: string;
  partnerReferenceNo: string;
  /** Absent for a payment from a bound account (`customerToken`), which needs no page. */
  webRedirectUrl?: string;
  /**
   * A connected wallet's app link (a deep link such as `dana://…`), when the wallet gives one: it
   * opens the app directly, so use it only where you know the app is installed.
   */
  appRedirectUrl?: string;
  additionalInfo: { checkoutUrl: string; bindingReferenceNo?: string; [key: string]: unknown };
}

/**
 * Names an e-wallet payment by the gateway's reference or the merchant's (one is mandatory).
 *
 * @example
 * const byOrder: DebitReference = { originalPartnerReferenceNo: 'ORDER-1' };
 */
export interface DebitReference {
  originalReferenceNo?: string;
  originalPartnerReferenceNo?: string;
}

/**
 * `POST debit/status` (55). `serviceCode` defaults to `"54"`.
 *
 * @example
 * const s: DebitStatusRequest = { originalPartnerReferenceNo: 'ORDER-1' };
 */
export interface DebitStatusRequest extends DebitReference {
  serviceCode?: '54';
}

/**
 * The answer to {@link DebitStatusRequest}.
 *
 * @example
 * const { latestTransactionStatus } = await snap.debitStatus({ originalPartnerReferenceNo: 'ORDER-1' });
 */
export interface DebitStatusResponse extends SnapResponseBody {
  originalReferenceNo: string;
  originalPartnerReferenceNo: string;
  serviceCode: '54';
  latestTransactionStatus: TransactionStatus;
  transactionStatusDesc: string;
  amount: Money;
  /** Present once paid. */
  paidTime?: string;
  feeAmount: Money;
  additionalInfo: { payOption: string; payerName?: string; walletReferenceNo?: string; [key: string]: unknown };
}

/**
 * `POST debit/cancel` (57): an unpaid payment becomes `05`.
 *
 * @example
 * const c: CancelDebitRequest = { originalPartnerReferenceNo: 'ORDER-1', reason: 'customer left' };
 */
export interface CancelDebitRequest {
  originalPartnerReferenceNo: string;
  originalReferenceNo?: string;
  reason?: string;
}

/**
 * The answer to {@link CancelDebitRequest}.
 *
 * @example
 * const { cancelTime } = await snap.cancelDebit(c);
 */
export interface CancelDebitResponse extends SnapResponseBody {
  originalReferenceNo: string;
  originalPartnerReferenceNo: string;
  cancelTime: string;
  transactionDate: string;
}

/**
 * `POST debit/refund` (58): part or all of a paid payment.
 *
 * @example
 * const r: RefundDebitRequest = { originalPartnerReferenceNo: 'ORDER-1', partnerRefundNo: 'RF-1',
 *   refundAmount: { value: '5000.00', currency: 'IDR' } };
 */
export interface RefundDebitRequest {
  originalPartnerReferenceNo: string;
  originalReferenceNo?: string;
  /** The merchant's refund reference, unique. */
  partnerRefundNo: string;
  refundAmount: Money;
  reason?: string;
}

/**
 * The answer to {@link RefundDebitRequest}: a QRIS refund's fields (one refund for every method).
 *
 * @example
 * const { refundNo } = await snap.refundDebit(r);
 */
export type RefundDebitResponse = RefundQrisResponse;

/**
 * `POST registration-account-binding` (07): asks a customer to bind their wallet account
 * (docs/ewallets.md#account-binding). Send the customer to the answer's `redirectUrl`.
 *
 * @example
 * const b: BindAccountRequest = { partnerReferenceNo: 'CUSTOMER-77', redirectUrl: 'https://shop.example/linked',
 *   additionalInfo: { payOption: 'SANDBOXPAY' } };
 */
export interface BindAccountRequest {
  /** The merchant's reference of the binding, unique. */
  partnerReferenceNo: string;
  /** Where the customer comes back to, with `authCode`, `state` and `resultCode` in its query. */
  redirectUrl: string;
  /** The customer's phone number, digits (`62…`). */
  phoneNo?: string;
  additionalInfo: { payOption: string; [key: string]: unknown };
}

/**
 * The answer to {@link BindAccountRequest}.
 *
 * @example
 * const { redirectUrl } = await snap.bindAccount(b);
 */
export interface BindAccountResponse extends SnapResponseBody {
  /** The gateway's reference of the binding. */
  referenceNo: string;
  partnerReferenceNo: string;
  /** The wallet's consent page: send the customer there. */
  redirectUrl: string;
  additionalInfo: { payOption: string };
}

/**
 * `POST registration-account-unbinding` (09), with the customer token in {@link CallOptions}.
 *
 * @example
 * await snap.unbindAccount({ partnerReferenceNo: 'CUSTOMER-77' }, { customerToken });
 */
export interface UnbindAccountRequest {
  /** When given, it must be the customer token's binding. */
  partnerReferenceNo?: string;
}

/**
 * The answer to {@link UnbindAccountRequest}.
 *
 * @example
 * const { unlinkResult } = await snap.unbindAccount({}, { customerToken });
 */
export interface UnbindAccountResponse extends SnapResponseBody {
  referenceNo: string;
  partnerReferenceNo: string;
  unlinkResult: 'success';
  additionalInfo: { payOption: string };
}

/**
 * `POST access-token/b2b2c` (74): a bound customer's token, by the one-time `authCode` the customer
 * came back with, or by the last `refreshToken`.
 *
 * @example
 * const t = await tokens.customerToken({ grantType: 'authorization_code', authCode });
 */
export type CustomerTokenRequest =
  | { grantType: 'authorization_code'; authCode: string }
  | { grantType: 'refresh_token'; refreshToken: string };

/**
 * The answer to {@link CustomerTokenRequest}: keep both tokens as secrets.
 *
 * @example
 * await snap.payDebit(order, { customerToken: t.accessToken });
 */
export interface CustomerTokenResponse extends SnapResponseBody {
  /** `Authorization-Customer: Bearer <it>`: an hour. */
  accessToken: string;
  tokenType: 'Bearer';
  accessTokenExpiryTime: string;
  /** Takes the next access token, once: 30 days. */
  refreshToken: string;
  refreshTokenExpiryTime: string;
  additionalInfo: { referenceNo: string; partnerReferenceNo: string; payOption: string };
}

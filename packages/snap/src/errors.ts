// docs/protocol.md#conventions: responseCode = HTTP status (3) + service code (2) + case code (2).
// One table; every SNAP error is built from it.
export const SNAP_CASES = {
  BAD_REQUEST: { httpStatus: 400, caseCode: '00', message: 'Bad Request' },
  INVALID_FIELD_FORMAT: { httpStatus: 400, caseCode: '01', message: 'Invalid Field Format' },
  INVALID_MANDATORY_FIELD: { httpStatus: 400, caseCode: '02', message: 'Invalid Mandatory Field' },
  UNAUTHORIZED: { httpStatus: 401, caseCode: '00', message: 'Unauthorized.' },
  INVALID_TOKEN: { httpStatus: 401, caseCode: '01', message: 'Invalid Token (B2B)' },
  INVALID_CUSTOMER_TOKEN: { httpStatus: 401, caseCode: '02', message: 'Invalid Customer Token' },
  TRANSACTION_NOT_FOUND: { httpStatus: 404, caseCode: '01', message: 'Transaction Not Found' },
  INVALID_ACCOUNT: { httpStatus: 404, caseCode: '11', message: 'Invalid Card/Account/Customer' },
  INVALID_BILL: { httpStatus: 404, caseCode: '12', message: 'Invalid Bill/Virtual Account' },
  INVALID_AMOUNT: { httpStatus: 404, caseCode: '13', message: 'Invalid Amount' },
  PAID_BILL: { httpStatus: 404, caseCode: '14', message: 'Paid Bill' },
  INVALID_BILL_EXPIRED: { httpStatus: 404, caseCode: '19', message: 'Invalid Bill/Virtual Account' },
  NOT_ALLOWED: { httpStatus: 405, caseCode: '01', message: 'Requested Operation Is Not Allowed' },
  FEATURE_NOT_ALLOWED: { httpStatus: 403, caseCode: '01', message: 'Feature Not Allowed' },
  EXCEEDS_AMOUNT_LIMIT: { httpStatus: 403, caseCode: '02', message: 'Exceeds Transaction Amount Limit' },
  INSUFFICIENT_FUNDS: { httpStatus: 403, caseCode: '14', message: 'Insufficient Funds' },
  CONFLICT: { httpStatus: 409, caseCode: '00', message: 'Conflict' },
  DUPLICATE_PARTNER_REFERENCE_NO: { httpStatus: 409, caseCode: '01', message: 'Duplicate partnerReferenceNo' },
  TOO_MANY_REQUESTS: { httpStatus: 429, caseCode: '00', message: 'Too Many Requests' },
  GENERAL_ERROR: { httpStatus: 500, caseCode: '00', message: 'General Error' },
  EXTERNAL_SERVER_ERROR: { httpStatus: 500, caseCode: '02', message: 'External Server Error' },
  TIMEOUT: { httpStatus: 504, caseCode: '00', message: 'Timeout' },
} as const;

export type SnapCase = keyof typeof SNAP_CASES;

/** Two-digit SNAP service codes (docs/protocol.md#conventions). */
export const SERVICE = {
  token: '71',
  qrisGenerate: '47',
  qrisQuery: '51',
  qrisCancel: '77',
  qrisRefund: '78',
  vaInquiryStatus: '26',
  vaCreate: '27',
  vaUpdate: '28',
  vaInquiry: '30',
  vaDelete: '31',
  /** A bank asks about a VA before its customer pays (provider → snapgate). */
  vaBankInquiry: '24',
  /** A bank's payment flag (provider → snapgate). */
  vaPayment: '25',
  /** An acquirer's QRIS payment notification (provider → snapgate). */
  qrisNotify: '52',
  callback: '26',
  /** Account inquiry at another bank (Transfer Credit): a merchant asks who holds an account. */
  accountInquiryExternal: '16',
  /** Transfer to another bank (Transfer Credit): a merchant's disbursement. */
  transferInterbank: '18',
  /** Where a transfer stands (Transfer Credit). */
  transferStatus: '36',
  /** An e-wallet payment, authorised by the payer at the wallet (Direct Debit). */
  debitPay: '54',
  /** Where an e-wallet payment stands (Direct Debit). */
  debitStatus: '55',
  /** A wallet tells what its payer did (provider → snapgate); also the merchant's callback. */
  debitNotify: '56',
  /** Cancels an unpaid e-wallet payment (Direct Debit). */
  debitCancel: '57',
  /** Refunds an e-wallet payment, in parts (Direct Debit). */
  debitRefund: '58',
  /** Binds a customer's wallet account to the merchant, for payments without a redirect (Registration). */
  accountBinding: '07',
  /** Ends a binding (Registration). */
  accountUnbinding: '09',
  /** A customer's token for a bound account, from its authCode or refresh token (B2B2C). */
  tokenB2b2c: '74',
} as const;

export type ServiceCode = string;

/** The body every SNAP response carries. */
export interface SnapBody {
  responseCode: string;
  responseMessage: string;
}

export interface SnapErrorOptions {
  /** Field or header named in the message: `Invalid Mandatory Field {X-TIMESTAMP}`. */
  field?: string;
  /** Reason shown in brackets: `Unauthorized. [Invalid Signature]`. */
  reason?: string;
  /** Private detail for logs; never sent. */
  detail?: unknown;
  cause?: unknown;
}

/**
 * A SNAP protocol error: a public `responseCode`/`responseMessage`, the HTTP status
 * they imply, and a private `detail` that is logged, never sent.
 *
 * @example
 * throw snapError('UNAUTHORIZED', '71', { reason: 'Invalid Signature' });
 */
export class SnapError extends Error {
  readonly responseCode: string;
  readonly responseMessage: string;
  readonly httpStatus: number;
  readonly caseName: SnapCase;
  readonly detail: unknown;

  constructor(caseName: SnapCase, serviceCode: ServiceCode, options: SnapErrorOptions = {}) {
    const c = SNAP_CASES[caseName];
    let message: string = c.message;
    if (options.field !== undefined) message = `${message} {${options.field}}`;
    if (options.reason !== undefined) message = `${message} [${options.reason}]`;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SnapError';
    this.caseName = caseName;
    this.httpStatus = c.httpStatus;
    this.responseCode = `${c.httpStatus}${serviceCode}${c.caseCode}`;
    this.responseMessage = message;
    this.detail = options.detail;
  }

  /** The public body: `{ responseCode, responseMessage }`. */
  toBody(): SnapBody {
    return { responseCode: this.responseCode, responseMessage: this.responseMessage };
  }
}

/**
 * Builds a SnapError from the case table.
 *
 * @example
 * snapError('INVALID_MANDATORY_FIELD', '71', { field: 'X-TIMESTAMP' }).responseMessage;
 * // 'Invalid Mandatory Field {X-TIMESTAMP}'
 */
export function snapError(caseName: SnapCase, serviceCode: ServiceCode, options?: SnapErrorOptions): SnapError {
  return new SnapError(caseName, serviceCode, options);
}

/**
 * The success responseCode of a service: `200` + service code + `00`.
 *
 * @example
 * successCode('71'); // '2007100'
 */
export function successCode(serviceCode: ServiceCode): string {
  return `200${serviceCode}00`;
}

/** True for a value shaped like a SnapError (also across package copies). */
export function isSnapError(value: unknown): value is SnapError {
  return (
    value instanceof SnapError ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as SnapError).responseCode === 'string' &&
      typeof (value as SnapError).responseMessage === 'string' &&
      typeof (value as SnapError).httpStatus === 'number')
  );
}

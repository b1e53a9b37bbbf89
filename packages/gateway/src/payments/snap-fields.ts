import type { StrRule } from './fields.ts';

// The request fields of each SNAP operation, written once: the rule the service's field reader
// (fields.ts) applies and what the OpenAPI document says of the field
// (http/openapi/snap-schemas.ts renders a request body's properties from these). The services keep
// their own reading order and the rules between fields (either reference, a VA's amount by its
// type): those are code, not one field's rule. A dotted name is a member of an object field.

interface FieldDoc {
  description?: string;
  /** The component the document refers to for it (its enum lives there). */
  ref?: string;
}

/** A string, read with `f.str(name, rule)`. */
export interface TextField extends StrRule, FieldDoc {
  kind: 'text';
  /** Documented as non-empty though optional: an empty string counts as absent, so one must not meet the either-reference rule. */
  isNonEmpty?: boolean;
}
/** A SNAP amount, read with `f.money(name, rule)`; documented as `PositiveAmountInput` when positive, else `AmountInput`. */
export interface MoneyField {
  kind: 'money';
  required?: boolean;
  positive?: boolean;
  description?: string;
}
/** A date-time with a zone, read with `f.dateTime(name, rule)`; documented as `SnapDateTimeInput`. */
export interface DateTimeField {
  kind: 'dateTime';
  required?: boolean;
  description?: string;
}
/** `additionalInfo` kept as given (`f.passthrough`), or only read member by member (`members`). */
export interface ObjectField {
  kind: 'passthrough' | 'members';
  description: string;
}
/** A list of objects, read with `f.list(name, rule)`; its entries' members are the `name[].member` fields. */
export interface ListField {
  kind: 'list';
  required?: boolean;
  max: number;
  description: string;
}
export type SnapField = TextField | MoneyField | DateTimeField | ObjectField | ListField;
export type SnapFields = Record<string, SnapField>;

const text = (rule: StrRule, doc: FieldDoc & { isNonEmpty?: boolean } = {}): TextField => ({
  kind: 'text',
  ...rule,
  ...doc,
});
const money = (rule: { required?: boolean; positive?: boolean }, description?: string): MoneyField => ({
  kind: 'money',
  ...rule,
  ...(description === undefined ? {} : { description }),
});
const dateTime = (description?: string): DateTimeField => ({
  kind: 'dateTime',
  ...(description === undefined ? {} : { description }),
});
const passthrough = (description: string): ObjectField => ({ kind: 'passthrough', description });
const members = (description: string): ObjectField => ({ kind: 'members', description });
const list = (rule: { required?: boolean; max: number }, description: string): ListField => ({
  kind: 'list',
  ...rule,
  description,
});

const KEPT_AS_GIVEN = 'Kept as given; at most 4096 bytes of JSON.';
const PRINTABLE = /^[\x20-\x7e]*$/;
// An empty string counts as absent: a present one has 1 to 32 digits.
const DIGITS_32 = /^\d{0,32}$/;

/**
 * `additionalInfo.returnUrl` of QRIS generate and VA create (the service checks the rest and keeps
 * it normalised: checkout-link.ts). The scheme in any case (RFC 3986 §3.1), spelt out so the
 * OpenAPI pattern says the same without a flag.
 */
export const RETURN_URL_MAX = 2048;
export const RETURN_URL = text(
  { max: RETURN_URL_MAX, pattern: /^[Hh][Tt][Tt][Pp][Ss]?:\/\/\S+$/ },
  {
    description:
      'Where the hosted checkout page sends the payer when the payment ends (docs/checkout.md): an absolute http(s) URL, https in production. Kept normalised (WHATWG URL: `HTTPS://Shop.Example:443/a/../done` is `https://shop.example/done`), and that form is what the page links to and sends the payer to.',
  },
);

export const ACCESS_TOKEN = {
  grantType: text({ required: true, oneOf: ['client_credentials'] }),
} satisfies SnapFields;

export const QR_GENERATE = {
  partnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'The merchant’s order reference; unique per merchant among its QRIS.' },
  ),
  amount: money(
    { required: true, positive: true },
    'Must fit the QR: at most 13 characters once written without a zero fraction.',
  ),
  merchantId: text({ max: 64 }, { description: 'Kept with the transaction.' }),
  terminalId: text({ max: 16, pattern: PRINTABLE }, { description: 'Printable ASCII; written into the QR.' }),
  storeId: text({ max: 25, pattern: PRINTABLE }, { description: 'Printable ASCII; written into the QR.' }),
  validityPeriod: dateTime('When the QR expires: in the future; 30 minutes from now when absent.'),
  additionalInfo: passthrough(KEPT_AS_GIVEN),
  'additionalInfo.returnUrl': RETURN_URL,
} satisfies SnapFields;

/** How query, cancel and refund name a QRIS (either or both; the rule between them is code). */
export const QR_REFERENCES = {
  originalReferenceNo: text(
    { max: 64 },
    { description: 'The `referenceNo` snapgate answered at generate.', isNonEmpty: true },
  ),
  originalPartnerReferenceNo: text(
    { max: 64 },
    { description: 'The merchant’s own `partnerReferenceNo`.', isNonEmpty: true },
  ),
} satisfies SnapFields;

export const QR_QUERY = {
  ...QR_REFERENCES,
  serviceCode: text({ required: true, oneOf: ['47'] }, { description: 'The service that created it: 47 (generate).' }),
} satisfies SnapFields;

const REASON = text({ max: 256 });

export const QR_CANCEL = { ...QR_REFERENCES, reason: REASON } satisfies SnapFields;

export const QR_REFUND = {
  originalReferenceNo: QR_REFERENCES.originalReferenceNo,
  originalPartnerReferenceNo: { ...QR_REFERENCES.originalPartnerReferenceNo, required: true },
  partnerRefundNo: text(
    { required: true, max: 64 },
    { description: 'The merchant’s refund reference; a second refund with it is refused (409).' },
  ),
  refundAmount: money({ required: true, positive: true }, 'At most what remains unrefunded.'),
  reason: REASON,
} satisfies SnapFields;

export const VA_CREATE = {
  virtualAccountName: text({ required: true, max: 255 }),
  trxId: text(
    { required: true, max: 64 },
    { description: 'The merchant’s bill reference; unique per merchant among its VAs.' },
  ),
  virtualAccountTrxType: text({ oneOf: ['C', 'O'] }, { ref: 'VirtualAccountTrxType', description: 'Default `C`.' }),
  // Whether it is required and positive is decided by virtualAccountTrxType, in the service.
  totalAmount: money({}, 'Required, and more than 0.00, for a closed amount (`C`) VA.'),
  virtualAccountEmail: text({ max: 255, pattern: /^[^\s@]+@[^\s@]+$/ }),
  virtualAccountPhone: text({ max: 30, pattern: /^\+?[0-9]{4,29}$/ }),
  expiredDate: dateTime('In the future; 24 hours from now when absent.'),
  additionalInfo: passthrough(KEPT_AS_GIVEN),
  'additionalInfo.bankCode': text(
    { pattern: /^\d{3}$/ },
    { description: 'The bank whose customers pay it; default 999, the sandbox bank.' },
  ),
  'additionalInfo.returnUrl': RETURN_URL,
} satisfies SnapFields;

/** How inquiry, status, update and delete name a merchant's VA. */
export const VA_LOOKUP = {
  virtualAccountNo: text({ required: true, max: 40 }, { description: 'As answered at create, spaces included.' }),
  trxId: text({ max: 64 }, { description: 'When given, must be the VA’s.' }),
} satisfies SnapFields;

export const VA_DELETE = {
  ...VA_LOOKUP,
  additionalInfo: passthrough(`Echoed in the answer. ${KEPT_AS_GIVEN}`),
} satisfies SnapFields;

export const VA_UPDATE = {
  ...VA_LOOKUP,
  virtualAccountName: text({ max: 255 }),
  // Positive for a closed amount VA only: decided in the service.
  totalAmount: money({}, 'More than 0.00 for a closed amount (`C`) VA.'),
  expiredDate: dateTime('In the future.'),
} satisfies SnapFields;

/** The three numbers a bank names a VA by (inquiry and payment). */
export const BANK_VA_NUMBERS = {
  partnerServiceId: text({ required: true, max: 8 }),
  customerNo: text({ required: true, max: 20 }),
  virtualAccountNo: text({ required: true, max: 28 }, { description: 'Padded or trimmed: either is found.' }),
} satisfies SnapFields;

export const BANK_VA_INQUIRY = {
  ...BANK_VA_NUMBERS,
  inquiryRequestId: text({ required: true, max: 128 }),
} satisfies SnapFields;

const PAYER_NAME = text({ max: 100 });

export const BANK_VA_PAYMENT = {
  ...BANK_VA_NUMBERS,
  paymentRequestId: text(
    { required: true, max: 128 },
    {
      description: 'The bank’s payment id: a repeat (flagAdvise Y after a timeout) answers the first answer again.',
    },
  ),
  paidAmount: money({ required: true }, 'Exactly `totalAmount` for a closed amount VA.'),
  trxDateTime: dateTime(),
  referenceNo: text({ max: 128 }, { description: 'The bank’s reference: its digits become the payer’s `payerRefId`.' }),
  flagAdvise: text({ oneOf: ['Y', 'N'] }),
  additionalInfo: members('Read member by member; other members are ignored.'),
  'additionalInfo.payerName': PAYER_NAME,
} satisfies SnapFields;

export const QR_NOTIFY = {
  originalPartnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'snapgate’s `referenceNo` of the QRIS.' },
  ),
  originalReferenceNo: text({ max: 64 }, { description: 'The acquirer’s own reference.' }),
  // Which statuses are known is the component's enum, checked in the service.
  latestTransactionStatus: text({ required: true, max: 2 }, { ref: 'TransactionStatus' }),
  transactionStatusDesc: text({ max: 256 }),
  amount: money({ required: true }, 'Must equal the QRIS amount.'),
  // Read member by member: a non-object is as good as absent.
  additionalInfo: members('Who paid. Other members (`billNumber`, `transactionDate`, `feeAmount`, …) are ignored.'),
  'additionalInfo.payerIssuer': text(
    { max: 32, pattern: DIGITS_32 },
    { description: 'Issuer of the payer’s account: digits only.' },
  ),
  'additionalInfo.payerName': PAYER_NAME,
  'additionalInfo.payerRefId': text(
    { max: 32, pattern: DIGITS_32 },
    { description: 'The payer’s reference: digits only.' },
  ),
} satisfies SnapFields;

// SNAP Direct Debit as merchants call it (docs/ewallets.md).
const HTTP_URL = /^[Hh][Tt][Tt][Pp][Ss]?:\/\/\S+$/;
export const DEBIT_PAY = {
  partnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'The merchant’s order reference; unique per merchant among its e-wallet payments.' },
  ),
  amount: money({ required: true, positive: true }, 'What the payer pays.'),
  validUpTo: dateTime('Until when the payer may authorise it: in the future; 30 minutes from now when absent.'),
  urlParams: list(
    { max: 2 },
    'At most one `PAY_RETURN` (where the payer goes back to) and one `PAY_NOTIFY` (where this payment’s callbacks go instead of `<callbackBaseUrl>/v1.0/debit/notify`).',
  ),
  'urlParams[].url': text(
    { required: true, max: RETURN_URL_MAX, pattern: HTTP_URL },
    { description: 'An absolute http(s) URL; https in production.' },
  ),
  'urlParams[].type': text({ required: true, oneOf: ['PAY_RETURN', 'PAY_NOTIFY'] }),
  'urlParams[].isDeeplink': text(
    { required: true, oneOf: ['Y', 'N'] },
    { description: 'Whether the url is an app’s deep link.' },
  ),
  payOptionDetails: list({ required: true, max: 1 }, 'Exactly one: the wallet, and the amount (equal to `amount`).'),
  'payOptionDetails[].payMethod': text({ required: true, oneOf: ['EMONEY'] }),
  'payOptionDetails[].payOption': text(
    { required: true, max: 32, pattern: /^[A-Z0-9_]+$/ },
    {
      description:
        'The wallet: `DANA`, `OVO`, `SHOPEEPAY`, `GOPAY`, `LINKAJA`, … as the operator connected them; `SANDBOXPAY` in sandbox.',
    },
  ),
  'payOptionDetails[].transAmount': money({ required: true, positive: true }, 'Equal to `amount`.'),
  additionalInfo: passthrough(KEPT_AS_GIVEN),
} satisfies SnapFields;

/** How status, cancel and refund name an e-wallet payment (either or both). */
export const DEBIT_REFERENCES = {
  originalReferenceNo: text(
    { max: 64 },
    { description: 'The `referenceNo` snapgate answered at payment-host-to-host.', isNonEmpty: true },
  ),
  originalPartnerReferenceNo: QR_REFERENCES.originalPartnerReferenceNo,
} satisfies SnapFields;

export const DEBIT_STATUS = {
  ...DEBIT_REFERENCES,
  serviceCode: text(
    { required: true, oneOf: ['54'] },
    { description: 'The service that created it: 54 (payment-host-to-host).' },
  ),
} satisfies SnapFields;

export const DEBIT_CANCEL = {
  ...DEBIT_REFERENCES,
  originalPartnerReferenceNo: { ...DEBIT_REFERENCES.originalPartnerReferenceNo, required: true },
  reason: REASON,
} satisfies SnapFields;

export const DEBIT_REFUND = {
  ...DEBIT_REFERENCES,
  originalPartnerReferenceNo: { ...DEBIT_REFERENCES.originalPartnerReferenceNo, required: true },
  partnerRefundNo: QR_REFUND.partnerRefundNo,
  refundAmount: QR_REFUND.refundAmount,
  reason: REASON,
} satisfies SnapFields;

// Account binding (docs/ewallets.md#account-binding): 07, 09 and the customer's token (74).
export const ACCOUNT_BINDING = {
  partnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'The merchant’s reference of the binding; unique per merchant.' },
  ),
  phoneNo: text({ max: 16, pattern: /^\d{6,16}$/ }, { description: 'The customer’s phone number, digits: 62…' }),
  redirectUrl: text(
    { required: true, max: RETURN_URL_MAX, pattern: HTTP_URL },
    {
      description:
        'Where the customer goes back to from the wallet, with `authCode`, `state` (the partnerReferenceNo) and `resultCode` in its query. An absolute http(s) URL; https in production.',
    },
  ),
  merchantId: text({ max: 64 }, { description: 'Ignored: the merchant is the access token’s.' }),
  additionalInfo: members('The wallet to bind. Other members are ignored.'),
  'additionalInfo.payOption': { ...DEBIT_PAY['payOptionDetails[].payOption'], required: true },
} satisfies SnapFields;

export const ACCOUNT_UNBINDING = {
  partnerReferenceNo: text(
    { max: 64 },
    { description: 'The binding’s partnerReferenceNo: when given, it must be the customer token’s binding.' },
  ),
  merchantId: text({ max: 64 }, { description: 'Ignored: the merchant is the access token’s.' }),
  additionalInfo: passthrough(KEPT_AS_GIVEN),
} satisfies SnapFields;

export const CUSTOMER_TOKEN = {
  grantType: text(
    { required: true, oneOf: ['authorization_code', 'refresh_token', 'AUTHORIZATION_CODE', 'REFRESH_TOKEN'] },
    { description: 'By the `authCode` the customer came back with, or by the last `refreshToken`.' },
  ),
  authCode: text({ max: 256 }, { description: 'For `authorization_code`: mandatory; good once, for 10 minutes.' }),
  refreshToken: text({ max: 256 }, { description: 'For `refresh_token`: mandatory.' }),
  additionalInfo: passthrough(KEPT_AS_GIVEN),
} satisfies SnapFields;

/** What a wallet tells snapgate (provider → snapgate, service 56). */
export const DEBIT_NOTIFY = {
  originalPartnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'snapgate’s `referenceNo` of the payment.' },
  ),
  originalReferenceNo: text({ max: 64 }, { description: 'The wallet’s own reference.' }),
  latestTransactionStatus: text({ required: true, max: 2 }, { ref: 'TransactionStatus' }),
  transactionStatusDesc: text({ max: 256 }),
  amount: money({ required: true }, 'Must equal the payment’s amount.'),
  additionalInfo: members('Who paid. Other members are ignored.'),
  'additionalInfo.payerName': PAYER_NAME,
  'additionalInfo.payerRefId': QR_NOTIFY['additionalInfo.payerRefId'],
} satisfies SnapFields;

// Transfer Credit as merchants call it (docs/payouts.md#disbursements).
const BENEFICIARY_ACCOUNT_NO = text(
  { required: true, max: 34, pattern: /^\d+$/ },
  { description: 'The beneficiary’s account number: digits, at most 34.' },
);
const BENEFICIARY_BANK_CODE = text(
  { required: true, pattern: /^\d{3}$/ },
  { description: 'The beneficiary’s bank (Bank Indonesia’s code, 3 digits).' },
);

export const ACCOUNT_INQUIRY = {
  beneficiaryBankCode: BENEFICIARY_BANK_CODE,
  beneficiaryAccountNo: BENEFICIARY_ACCOUNT_NO,
  partnerReferenceNo: text({ max: 64 }, { description: 'Echoed in the answer.' }),
  additionalInfo: passthrough(`Echoed in the answer. ${KEPT_AS_GIVEN}`),
} satisfies SnapFields;

export const TRANSFER_INTERBANK = {
  partnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'The merchant’s reference of the transfer; unique per merchant (a repeat is 409 4091801).' },
  ),
  amount: money(
    { required: true, positive: true },
    'Paid with the disbursement fee out of the merchant’s pending balance, within its daily limit.',
  ),
  beneficiaryAccountName: text(
    { required: true, max: 100 },
    { description: 'The holder’s name, as the merchant knows it.' },
  ),
  beneficiaryAccountNo: BENEFICIARY_ACCOUNT_NO,
  beneficiaryBankCode: BENEFICIARY_BANK_CODE,
  sourceAccountNo: text(
    { max: 34 },
    { description: 'Ignored: the money leaves the operator’s account at the payout bank.' },
  ),
  transactionDate: dateTime('When the merchant asked; the gateway keeps its own.'),
  remark: text({ max: 50 }, { description: 'Passed to the bank with the transfer.' }),
  customerReference: text({ max: 64 }),
  beneficiaryEmail: text({ max: 50 }),
  additionalInfo: passthrough(`Echoed in the answers and the callback. ${KEPT_AS_GIVEN}`),
} satisfies SnapFields;

export const TRANSFER_STATUS = {
  originalPartnerReferenceNo: text(
    { required: true, max: 64 },
    { description: 'The merchant’s `partnerReferenceNo` of the transfer.' },
  ),
  originalReferenceNo: text(
    { max: 64 },
    { description: 'The `referenceNo` snapgate answered; when given, must match.' },
  ),
  originalExternalId: text({ max: 36 }, { description: 'Echoed in the answer.' }),
  serviceCode: text({ required: true, oneOf: ['17', '18'] }, { description: 'The transfer’s service: 18 (or 17).' }),
  transactionDate: dateTime(),
  additionalInfo: passthrough(KEPT_AS_GIVEN),
} satisfies SnapFields;

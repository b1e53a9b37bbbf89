import { TRANSACTION_STATUS } from '@snapgate/snap';
import { closed, type JsonSchema, ref } from './kit.ts';

// Request and response bodies of the SNAP API. The SNAP routes read their fields by hand
// (payments/fields.ts and the services): these schemas say what those readers accept and what the
// services answer. test/http/openapi.test.ts proves them against the running gateway: every body
// it sends and gets is checked against them, and bodies they refuse must be refused there too.

const MONEY = '^(0|[1-9]\\d{0,15})\\.\\d{2}$';
const POSITIVE_MONEY = '^([1-9]\\d{0,15}\\.\\d{2}|0\\.(0[1-9]|[1-9]\\d))$';
const PRINTABLE = '^[\\x20-\\x7e]*$';

const str = (maxLength: number, description?: string, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  maxLength,
  ...(description === undefined ? {} : { description }),
  ...extra,
});
const constant = (value: string): JsonSchema => ({ type: 'string', const: value });
/** A field that must be there and not empty (an empty string counts as absent). */
const mandatory = (maxLength: number, description?: string, extra: JsonSchema = {}) =>
  str(maxLength, description, { minLength: 1, ...extra });

const statusList = Object.entries(TRANSACTION_STATUS)
  .map(([code, name]) => `${code} ${name}`)
  .join(', ');

const ORIGINAL_REFERENCE = mandatory(64, 'The `referenceNo` snapgate answered at generate.');
const ORIGINAL_PARTNER_REFERENCE = mandatory(64, 'The merchant’s own `partnerReferenceNo`.');
const EITHER_REFERENCE: JsonSchema = {
  anyOf: [{ required: ['originalReferenceNo'] }, { required: ['originalPartnerReferenceNo'] }],
};

const VA_NUMBERS = {
  partnerServiceId: {
    type: 'string',
    pattern: '^[ 0-9]{8}$',
    description: 'Bank code and merchant prefix, left-padded with spaces to 8 characters.',
  },
  customerNo: { type: 'string', pattern: '^\\d{1,20}$' },
  virtualAccountNo: {
    type: 'string',
    pattern: '^[ 0-9]{8}\\d{1,20}$',
    description: '`partnerServiceId` followed by `customerNo` (so it may start with spaces).',
  },
} satisfies Record<string, JsonSchema>;

const VA_DATA = {
  ...VA_NUMBERS,
  virtualAccountName: { type: 'string' },
  virtualAccountEmail: { type: 'string', description: 'Empty when none was given.' },
  virtualAccountPhone: { type: 'string', description: 'Empty when none was given.' },
  trxId: { type: 'string' },
  totalAmount: { ...ref('Amount'), description: '0.00 for an open amount (`O`) VA created without one.' },
  virtualAccountTrxType: ref('VirtualAccountTrxType'),
  expiredDate: { anyOf: [ref('SnapTimestamp'), { const: '' }] },
  additionalInfo: {
    type: 'object',
    required: ['bankCode'],
    properties: { bankCode: { type: 'string', pattern: '^\\d{3}$' } },
    description: 'The `additionalInfo` the VA was created with, and the bank code it belongs to.',
  },
} satisfies Record<string, JsonSchema>;

// Read member by member: a non-object is as good as absent.
const PAYER_INFO: JsonSchema = {
  properties: {
    payerIssuer: str(32, 'Issuer of the payer’s account: digits only.', { pattern: '^\\d{0,32}$' }),
    payerName: str(100),
    payerRefId: str(32, 'The payer’s reference: digits only.', { pattern: '^\\d{0,32}$' }),
  },
  description: 'Who paid. Other members (`billNumber`, `transactionDate`, `feeAmount`, …) are ignored.',
};

const REASON = { english: 'Success', indonesia: 'Sukses' };

export const SNAP_SCHEMAS: Record<string, JsonSchema> = {
  SnapError: {
    ...closed({
      responseCode: {
        type: 'string',
        pattern: '^\\d{7}$',
        description: 'HTTP status (3 digits), service code (2), case code (2).',
      },
      responseMessage: {
        type: 'string',
        description:
          'The case’s message; a field or header is named in braces (`Invalid Mandatory Field {X-TIMESTAMP}`), a reason in brackets (`Unauthorized. [Invalid Signature]`).',
      },
    }),
    description: 'Every SNAP error: nothing else is ever sent (no stack, no detail).',
  },
  Amount: {
    ...closed({
      value: { type: 'string', pattern: MONEY, description: 'Decimal string with exactly two fraction digits.' },
      currency: constant('IDR'),
    }),
    example: { value: '25000.00', currency: 'IDR' },
  },
  AmountInput: {
    type: 'object',
    required: ['value', 'currency'],
    properties: {
      value: { type: 'string', pattern: MONEY, description: 'Two fraction digits, at most 16 integer digits.' },
      currency: { type: 'string', enum: ['IDR'] },
    },
    example: { value: '25000.00', currency: 'IDR' },
  },
  PositiveAmountInput: {
    type: 'object',
    required: ['value', 'currency'],
    properties: {
      value: { type: 'string', pattern: POSITIVE_MONEY, description: 'More than 0.00, two fraction digits.' },
      currency: { type: 'string', enum: ['IDR'] },
    },
    example: { value: '25000.00', currency: 'IDR' },
  },
  SnapDateTimeInput: {
    type: 'string',
    maxLength: 40,
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:?\\d{2})$',
    description: 'ISO 8601 date-time with seconds and a zone (`Z`, `+07:00`, `+0700`).',
    example: '2026-01-15T10:30:00+07:00',
  },
  SnapTimestamp: {
    type: 'string',
    pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\+07:00$',
    description: 'Asia/Jakarta time, as snapgate writes every date-time.',
    example: '2026-01-15T10:30:00+07:00',
  },
  ReferenceNo: {
    type: 'string',
    pattern: '^\\d{18}$',
    description: 'snapgate’s transaction reference: Jakarta date `yyMMdd` and 12 random digits.',
    example: '260115123456789012',
  },
  TransactionStatus: {
    type: 'string',
    enum: Object.keys(TRANSACTION_STATUS),
    description: statusList,
  },
  VirtualAccountTrxType: {
    type: 'string',
    enum: ['C', 'O'],
    description: '`C` closed amount (pay exactly `totalAmount`), `O` open amount (pay any amount).',
  },

  AccessTokenRequest: {
    type: 'object',
    required: ['grantType'],
    properties: { grantType: { type: 'string', enum: ['client_credentials'] } },
    description: 'Other members are ignored.',
  },
  AccessTokenResponse: closed({
    responseCode: constant('2007100'),
    responseMessage: constant('Successful'),
    accessToken: { type: 'string', description: 'Send as `Authorization: Bearer <accessToken>`.' },
    tokenType: constant('Bearer'),
    expiresIn: { type: 'integer', minimum: 1, description: 'Seconds (`SNAPGATE_TOKEN_TTL`).' },
  }),

  QrMpmGenerateRequest: {
    type: 'object',
    required: ['partnerReferenceNo', 'amount'],
    properties: {
      partnerReferenceNo: mandatory(64, 'The merchant’s order reference; unique per merchant among its QRIS.'),
      amount: {
        ...ref('PositiveAmountInput'),
        description: 'Must fit the QR: at most 13 characters once written without a zero fraction.',
      },
      merchantId: str(64, 'Kept with the transaction.'),
      terminalId: str(16, 'Printable ASCII; written into the QR.', { pattern: PRINTABLE }),
      storeId: str(25, 'Printable ASCII; written into the QR.', { pattern: PRINTABLE }),
      validityPeriod: {
        ...ref('SnapDateTimeInput'),
        description: 'When the QR expires: in the future; 30 minutes from now when absent.',
      },
      additionalInfo: { type: 'object', description: 'Kept as given; at most 4096 bytes of JSON.' },
    },
  },
  QrMpmGenerateResponse: closed({
    responseCode: constant('2004700'),
    responseMessage: constant('Successful'),
    referenceNo: ref('ReferenceNo'),
    partnerReferenceNo: { type: 'string' },
    qrContent: { type: 'string', description: 'The EMVCo QRIS payload to show as a QR code.' },
    qrUrl: { type: 'string', format: 'uri', description: 'The same QR as a PNG image (`GET /qr/{file}`).' },
    merchantName: { type: 'string' },
    additionalInfo: closed({ validityPeriod: ref('SnapTimestamp') }),
  }),
  QrMpmQueryRequest: {
    type: 'object',
    required: ['serviceCode'],
    properties: {
      originalReferenceNo: ORIGINAL_REFERENCE,
      originalPartnerReferenceNo: ORIGINAL_PARTNER_REFERENCE,
      serviceCode: { type: 'string', enum: ['47'], description: 'The service that created it: 47 (generate).' },
    },
    ...EITHER_REFERENCE,
    description:
      'Names the QRIS by `originalReferenceNo`, or by `originalPartnerReferenceNo`, or both (then both must match).',
  },
  QrMpmQueryResponse: {
    type: 'object',
    required: [
      'responseCode',
      'responseMessage',
      'originalReferenceNo',
      'originalPartnerReferenceNo',
      'serviceCode',
      'latestTransactionStatus',
      'transactionStatusDesc',
      'amount',
      'feeAmount',
      'additionalInfo',
    ],
    properties: {
      responseCode: constant('2005100'),
      responseMessage: constant('Successful'),
      originalReferenceNo: ref('ReferenceNo'),
      originalPartnerReferenceNo: { type: 'string' },
      serviceCode: constant('47'),
      latestTransactionStatus: ref('TransactionStatus'),
      transactionStatusDesc: { type: 'string' },
      amount: ref('Amount'),
      paidTime: { ...ref('SnapTimestamp'), description: 'Only once paid.' },
      feeAmount: ref('Amount'),
      additionalInfo: {
        type: 'object',
        properties: {
          payerName: { type: 'string' },
          payerIssuer: { type: 'string' },
          payerRefId: { type: 'string' },
          billNumber: { type: 'integer' },
        },
        additionalProperties: false,
        anyOf: [{ maxProperties: 0 }, { required: ['payerName', 'payerIssuer', 'payerRefId', 'billNumber'] }],
        description: 'Empty until paid; then who paid, and the bill number.',
      },
    },
    additionalProperties: false,
  },
  QrMpmCancelRequest: {
    type: 'object',
    properties: {
      originalReferenceNo: ORIGINAL_REFERENCE,
      originalPartnerReferenceNo: ORIGINAL_PARTNER_REFERENCE,
      reason: str(256),
    },
    ...EITHER_REFERENCE,
    description: 'Only an Initiated (01) QRIS can be canceled.',
  },
  QrMpmCancelResponse: closed({
    responseCode: constant('2007700'),
    responseMessage: constant('Successful'),
    originalReferenceNo: ref('ReferenceNo'),
    originalPartnerReferenceNo: { type: 'string' },
    cancelTime: ref('SnapTimestamp'),
    transactionDate: ref('SnapTimestamp'),
  }),
  QrMpmRefundRequest: {
    type: 'object',
    required: ['originalPartnerReferenceNo', 'partnerRefundNo', 'refundAmount'],
    properties: {
      originalReferenceNo: ORIGINAL_REFERENCE,
      originalPartnerReferenceNo: ORIGINAL_PARTNER_REFERENCE,
      partnerRefundNo: mandatory(64, 'The merchant’s refund reference; a second refund with it is refused (409).'),
      refundAmount: { ...ref('PositiveAmountInput'), description: 'At most what remains unrefunded.' },
      reason: str(256),
    },
    description: 'Only a paid (00) QRIS can be refunded, in parts; the whole amount back makes it Refunded (04).',
  },
  QrMpmRefundResponse: closed({
    responseCode: constant('2007800'),
    responseMessage: constant('Successful'),
    originalPartnerReferenceNo: { type: 'string' },
    originalReferenceNo: ref('ReferenceNo'),
    refundNo: { type: 'string', pattern: '^RF\\d{16}$' },
    partnerRefundNo: { type: 'string' },
    refundAmount: ref('Amount'),
    refundTime: ref('SnapTimestamp'),
  }),

  CreateVaRequest: {
    type: 'object',
    required: ['virtualAccountName', 'trxId'],
    properties: {
      virtualAccountName: mandatory(255),
      trxId: mandatory(64, 'The merchant’s bill reference; unique per merchant among its VAs.'),
      virtualAccountTrxType: { ...ref('VirtualAccountTrxType'), description: 'Default `C`.' },
      totalAmount: {
        ...ref('AmountInput'),
        description: 'Required, and more than 0.00, for a closed amount (`C`) VA.',
      },
      virtualAccountEmail: str(255, undefined, { pattern: '^[^\\s@]+@[^\\s@]+$' }),
      virtualAccountPhone: str(30, undefined, { pattern: '^\\+?[0-9]{4,29}$' }),
      expiredDate: { ...ref('SnapDateTimeInput'), description: 'In the future; 24 hours from now when absent.' },
      additionalInfo: {
        type: 'object',
        properties: {
          bankCode: {
            type: 'string',
            pattern: '^\\d{3}$',
            description: 'The bank whose customers pay it; default 999, the sandbox bank.',
          },
        },
        description: 'Kept as given; at most 4096 bytes of JSON.',
      },
    },
    if: { required: ['virtualAccountTrxType'], properties: { virtualAccountTrxType: { const: 'O' } } },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
    then: {},
    else: { required: ['totalAmount'], properties: { totalAmount: ref('PositiveAmountInput') } },
    description:
      'snapgate allocates `partnerServiceId`, `customerNo` and `virtualAccountNo` itself: those fields, if sent, are ignored.',
  },
  VirtualAccountData: closed(VA_DATA),
  VirtualAccountInquiryData: closed({ ...VA_DATA, latestTransactionStatus: ref('TransactionStatus') }),
  CreateVaResponse: closed({
    responseCode: constant('2002700'),
    responseMessage: constant('Success'),
    virtualAccountData: ref('VirtualAccountData'),
  }),
  VaLookupRequest: {
    type: 'object',
    required: ['virtualAccountNo'],
    properties: {
      virtualAccountNo: mandatory(40, 'As answered at create, spaces included.'),
      trxId: str(64, 'When given, must be the VA’s.'),
    },
  },
  InquiryVaResponse: closed({
    responseCode: constant('2003000'),
    responseMessage: constant('Successful'),
    virtualAccountData: ref('VirtualAccountInquiryData'),
  }),
  VaStatusResponse: closed({
    responseCode: constant('2002600'),
    responseMessage: constant('Successful'),
    virtualAccountData: closed({
      ...VA_NUMBERS,
      trxId: { type: 'string' },
      paymentFlagStatus: { type: 'string', enum: ['00', '01'], description: '00 paid, 01 not paid.' },
      paidAmount: ref('Amount'),
      totalAmount: ref('Amount'),
      transactionDate: { anyOf: [ref('SnapTimestamp'), { const: '' }], description: 'When paid; empty before.' },
      latestTransactionStatus: ref('TransactionStatus'),
      transactionStatusDesc: { type: 'string' },
    }),
  }),
  UpdateVaRequest: {
    type: 'object',
    required: ['virtualAccountNo'],
    properties: {
      virtualAccountNo: mandatory(40, 'As answered at create, spaces included.'),
      trxId: str(64, 'When given, must be the VA’s.'),
      virtualAccountName: str(255),
      totalAmount: { ...ref('AmountInput'), description: 'More than 0.00 for a closed amount (`C`) VA.' },
      expiredDate: { ...ref('SnapDateTimeInput'), description: 'In the future.' },
    },
    description: 'Only an Initiated (01) VA can be updated.',
  },
  UpdateVaResponse: closed({
    responseCode: constant('2002800'),
    responseMessage: constant('Successful'),
    virtualAccountData: ref('VirtualAccountData'),
  }),
  DeleteVaResponse: closed({
    responseCode: constant('2003100'),
    responseMessage: constant('Successful'),
    virtualAccountData: closed({ ...VA_NUMBERS, trxId: { type: 'string' } }),
  }),

  BankVaInquiryRequest: {
    type: 'object',
    required: ['partnerServiceId', 'customerNo', 'virtualAccountNo', 'inquiryRequestId'],
    properties: {
      partnerServiceId: mandatory(8),
      customerNo: mandatory(20),
      virtualAccountNo: mandatory(28, 'Padded or trimmed: either is found.'),
      inquiryRequestId: mandatory(128),
    },
    description:
      'All three numbers must name the same VA, of a bank code this provider owns. Other fields are ignored.',
  },
  BankVaInquiryResponse: closed({
    responseCode: constant('2002400'),
    responseMessage: constant('Successful'),
    virtualAccountData: closed({
      inquiryStatus: constant('00'),
      inquiryReason: closed({ english: constant(REASON.english), indonesia: constant(REASON.indonesia) }),
      ...VA_NUMBERS,
      virtualAccountName: { type: 'string' },
      inquiryRequestId: { type: 'string' },
      totalAmount: { ...ref('Amount'), description: '0.00 for an open amount VA: the customer chooses.' },
      virtualAccountTrxType: ref('VirtualAccountTrxType'),
      billDetails: { type: 'array', maxItems: 0 },
      freeTexts: { type: 'array', maxItems: 0 },
    }),
  }),
  BankVaPaymentRequest: {
    type: 'object',
    required: ['partnerServiceId', 'customerNo', 'virtualAccountNo', 'paymentRequestId', 'paidAmount'],
    properties: {
      partnerServiceId: mandatory(8),
      customerNo: mandatory(20),
      virtualAccountNo: mandatory(28),
      paymentRequestId: mandatory(
        128,
        'The bank’s payment id: a repeat (flagAdvise Y after a timeout) answers the first answer again.',
      ),
      paidAmount: { ...ref('AmountInput'), description: 'Exactly `totalAmount` for a closed amount VA.' },
      trxDateTime: ref('SnapDateTimeInput'),
      referenceNo: str(128, 'The bank’s reference: its digits become the payer’s `payerRefId`.'),
      flagAdvise: { type: 'string', enum: ['Y', 'N'] },
      additionalInfo: {
        properties: { payerName: str(100) },
        description: 'Read member by member; other members are ignored.',
      },
    },
  },
  BankVaPaymentResponse: closed({
    responseCode: constant('2002500'),
    responseMessage: constant('Successful'),
    virtualAccountData: closed({
      paymentFlagStatus: constant('00'),
      paymentFlagReason: closed({ english: constant(REASON.english), indonesia: constant(REASON.indonesia) }),
      paymentRequestId: { type: 'string' },
      paidAmount: ref('Amount'),
      ...VA_NUMBERS,
      virtualAccountName: { type: 'string' },
      trxDateTime: { type: 'string', description: 'As sent, or the time snapgate took the payment.' },
    }),
  }),
  QrisPaymentNotification: {
    type: 'object',
    required: ['originalPartnerReferenceNo', 'latestTransactionStatus', 'amount'],
    properties: {
      originalPartnerReferenceNo: mandatory(64, 'snapgate’s `referenceNo` of the QRIS.'),
      originalReferenceNo: str(64, 'The acquirer’s own reference.'),
      latestTransactionStatus: { ...ref('TransactionStatus'), maxLength: 2 },
      transactionStatusDesc: str(256),
      amount: { ...ref('AmountInput'), description: 'Must equal the QRIS amount.' },
      additionalInfo: PAYER_INFO,
    },
    description:
      'The QRIS must be one this acquirer may notify: one it issued, or one of a merchant whose acquirer it is (or that names none).',
  },
  QrMpmNotifyResponse: closed({ responseCode: constant('2005200'), responseMessage: constant('Successful') }),
  UpstreamNotificationAck: closed({ responseCode: constant('2002600'), responseMessage: constant('Successful') }),

  PaymentNotification: {
    ...closed({
      originalReferenceNo: { ...ref('ReferenceNo'), description: 'snapgate’s reference of the transaction.' },
      originalPartnerReferenceNo: {
        type: 'string',
        description: 'The merchant’s `partnerReferenceNo` (QRIS) or `trxId` (VA).',
      },
      latestTransactionStatus: ref('TransactionStatus'),
      amount: { ...ref('Amount'), description: 'QRIS: its amount. VA: the amount paid, or its total before.' },
      additionalInfo: closed({
        payerIssuer: { type: 'string', pattern: '^\\d*$' },
        payerName: { type: 'string' },
        payerRefId: { type: 'string', pattern: '^\\d*$' },
        billNumber: { type: 'integer', description: 'A JSON integer, 12 digits.' },
        transactionDate: { ...ref('SnapTimestamp'), description: 'When this status was reached.' },
        feeAmount: ref('Amount'),
      }),
    }),
    description: 'Serialised once; the same bytes are signed and sent on every attempt and replay.',
  },
  CallbackAcknowledgement: {
    type: 'object',
    required: ['responseCode'],
    properties: { responseCode: constant('2002600'), responseMessage: { type: 'string' } },
    description: 'Only HTTP 200 with this `responseCode` acknowledges; anything else is retried.',
  },
};

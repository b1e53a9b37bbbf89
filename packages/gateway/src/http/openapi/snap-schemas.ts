import { TRANSACTION_STATUS } from '@snapgate/snap';
import {
  ACCESS_TOKEN,
  ACCOUNT_INQUIRY,
  BANK_VA_INQUIRY,
  BANK_VA_PAYMENT,
  QR_CANCEL,
  QR_GENERATE,
  QR_NOTIFY,
  QR_QUERY,
  QR_REFUND,
  type SnapField,
  type SnapFields,
  TRANSFER_INTERBANK,
  TRANSFER_STATUS,
  VA_CREATE,
  VA_DELETE,
  VA_LOOKUP,
  VA_UPDATE,
} from '../../payments/snap-fields.ts';
import { closed, type JsonSchema, ref } from './kit.ts';

// Request and response bodies of the SNAP API. A request body's fields are rendered from the rules
// the services read them with (payments/snap-fields.ts); what is written here by hand is only what
// is not one field's rule (the either-reference anyOf, the VA's if/then/else, what a whole body
// means) and the answers. test/http/openapi.test.ts proves them against the running gateway: every
// body it sends and gets is checked against them, and bodies they refuse must be refused there too.

/** One field as the document states it. */
function fieldSchema(field: SnapField): JsonSchema {
  const description = field.description === undefined ? {} : { description: field.description };
  switch (field.kind) {
    case 'money':
      return { ...ref(field.positive ? 'PositiveAmountInput' : 'AmountInput'), ...description };
    case 'dateTime':
      return { ...ref('SnapDateTimeInput'), ...description };
    case 'passthrough':
      return { type: 'object', ...description };
    case 'members':
      return { ...description };
    case 'list':
      return {
        type: 'array',
        ...(field.required ? { minItems: 1 } : {}),
        maxItems: field.max,
        items: { type: 'object', properties: {} },
        ...description,
      };
    case 'text': {
      const maxLength = field.max === undefined ? {} : { maxLength: field.max };
      if (field.ref !== undefined) return { ...ref(field.ref), ...maxLength, ...description };
      return {
        type: 'string',
        ...(field.oneOf === undefined ? {} : { enum: [...field.oneOf] }),
        ...maxLength,
        ...description,
        // An empty string counts as absent: a field that must be there must not be empty.
        ...((field.required || field.isNonEmpty) && field.oneOf === undefined ? { minLength: 1 } : {}),
        ...(field.pattern === undefined ? {} : { pattern: field.pattern.source }),
      };
    }
  }
}

/**
 * The `properties` of the fields, a dotted name (`additionalInfo.bankCode`) inside its object's, and
 * a list's member (`urlParams[].url`) inside its items'.
 */
function propertiesOf(fields: SnapFields): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const [name, field] of Object.entries(fields)) {
    const dot = name.indexOf('.');
    if (dot === -1) {
      properties[name] = fieldSchema(field);
      continue;
    }
    const isEntry = name.slice(0, dot).endsWith('[]');
    const list = properties[name.slice(0, isEntry ? dot - 2 : dot)];
    const parent = isEntry ? (list?.items as JsonSchema | undefined) : list;
    if (!parent) throw new TypeError(`${name}: its object is not declared before it`);
    const member = name.slice(dot + 1);
    parent.properties = { ...(parent.properties as Record<string, JsonSchema>), [member]: fieldSchema(field) };
    if (isEntry && 'required' in field && field.required === true) {
      parent.required = [...((parent.required as string[] | undefined) ?? []), member];
    }
  }
  return properties;
}

/** A request body: its fields' properties, and its mandatory fields as `required`. */
export function requestBody(fields: SnapFields, extra: JsonSchema = {}): JsonSchema {
  const required = Object.entries(fields)
    .filter(([name, field]) => !name.includes('.') && 'required' in field && field.required === true)
    .map(([name]) => name);
  return {
    type: 'object',
    ...(required.length === 0 ? {} : { required }),
    properties: propertiesOf(fields),
    ...extra,
  };
}

const MONEY = '^(0|[1-9]\\d{0,15})\\.\\d{2}$';
const POSITIVE_MONEY = '^([1-9]\\d{0,15}\\.\\d{2}|0\\.(0[1-9]|[1-9]\\d))$';

export const constant = (value: string): JsonSchema => ({ type: 'string', const: value });

const statusList = Object.entries(TRANSACTION_STATUS)
  .map(([code, name]) => `${code} ${name}`)
  .join(', ');

export const EITHER_REFERENCE: JsonSchema = {
  anyOf: [{ required: ['originalReferenceNo'] }, { required: ['originalPartnerReferenceNo'] }],
};

/** The hosted checkout page of a transaction (docs/checkout.md). */
export const CHECKOUT_URL: JsonSchema = {
  type: 'string',
  format: 'uri',
  pattern: '/pay/[A-Za-z0-9_-]{22}$',
  description:
    'The transaction’s hosted checkout page: send the payer there. `<public url>/pay/<id>`, the id random (16 bytes, base64url) and derived from no reference.',
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
    properties: { bankCode: { type: 'string', pattern: '^\\d{3}$' }, checkoutUrl: CHECKOUT_URL },
    description:
      'The `additionalInfo` the VA was created with, the bank code it belongs to, and its hosted checkout page (`checkoutUrl`; none on VAs from before the checkout).',
  },
} satisfies Record<string, JsonSchema>;

const REASON = { english: 'Success', indonesia: 'Sukses' };

/** A disbursement's reference: `PO` and 32 hexadecimal digits (docs/payouts.md#disbursements). */
const TRANSFER_REFERENCE: JsonSchema = {
  type: 'string',
  pattern: '^PO[0-9A-F]{32}$',
  description: 'snapgate’s reference of the transfer, also what it is sent to the bank under.',
};

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
    description:
      'snapgate’s transaction reference, in the order made: Jakarta date `yyMMdd`, the millisecond of the Jakarta day (8 digits) and 4 digits of a counter.',
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

  AccessTokenRequest: requestBody(ACCESS_TOKEN, { description: 'Other members are ignored.' }),
  AccessTokenResponse: closed({
    responseCode: constant('2007100'),
    responseMessage: constant('Successful'),
    accessToken: { type: 'string', description: 'Send as `Authorization: Bearer <accessToken>`.' },
    tokenType: constant('Bearer'),
    expiresIn: { type: 'integer', minimum: 1, description: 'Seconds (`SNAPGATE_TOKEN_TTL`).' },
  }),

  QrMpmGenerateRequest: requestBody(QR_GENERATE),
  QrMpmGenerateResponse: closed({
    responseCode: constant('2004700'),
    responseMessage: constant('Successful'),
    referenceNo: ref('ReferenceNo'),
    partnerReferenceNo: { type: 'string' },
    qrContent: { type: 'string', description: 'The EMVCo QRIS payload to show as a QR code.' },
    qrUrl: {
      type: 'string',
      format: 'uri',
      description:
        'The same QR as a PNG image (`GET /pay/{id}/qr.png`, `id` being the checkout id; `.svg` also works).',
    },
    merchantName: { type: 'string' },
    // checkoutUrl: on every QRIS since the hosted checkout (an answer replayed from before has none).
    additionalInfo: closed(
      { validityPeriod: ref('SnapTimestamp'), checkoutUrl: CHECKOUT_URL },
      { required: ['validityPeriod'] },
    ),
  }),
  QrMpmQueryRequest: requestBody(QR_QUERY, {
    ...EITHER_REFERENCE,
    description:
      'Names the QRIS by `originalReferenceNo`, or by `originalPartnerReferenceNo`, or both (then both must match).',
  }),
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
  QrMpmCancelRequest: requestBody(QR_CANCEL, {
    ...EITHER_REFERENCE,
    description: 'Only an Initiated (01) QRIS can be canceled.',
  }),
  QrMpmCancelResponse: closed({
    responseCode: constant('2007700'),
    responseMessage: constant('Successful'),
    originalReferenceNo: ref('ReferenceNo'),
    originalPartnerReferenceNo: { type: 'string' },
    cancelTime: ref('SnapTimestamp'),
    transactionDate: ref('SnapTimestamp'),
  }),
  QrMpmRefundRequest: requestBody(QR_REFUND, {
    description: 'Only a paid (00) QRIS can be refunded, in parts; the whole amount back makes it Refunded (04).',
  }),
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

  CreateVaRequest: requestBody(VA_CREATE, {
    if: { required: ['virtualAccountTrxType'], properties: { virtualAccountTrxType: { const: 'O' } } },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
    then: {},
    else: { required: ['totalAmount'], properties: { totalAmount: ref('PositiveAmountInput') } },
    description:
      'snapgate allocates `partnerServiceId`, `customerNo` and `virtualAccountNo` itself: those fields, if sent, are ignored.',
  }),
  VirtualAccountData: closed(VA_DATA),
  VirtualAccountInquiryData: closed({ ...VA_DATA, latestTransactionStatus: ref('TransactionStatus') }),
  CreateVaResponse: closed({
    responseCode: constant('2002700'),
    responseMessage: constant('Success'),
    virtualAccountData: ref('VirtualAccountData'),
  }),
  VaLookupRequest: requestBody(VA_LOOKUP),
  VaDeleteRequest: requestBody(VA_DELETE),
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
      paymentFlagReason: closed(
        {
          english: { type: 'string', enum: ['Success', 'Not Paid'] },
          indonesia: { type: 'string', enum: ['Sukses', 'Belum Dibayar'] },
        },
        { description: 'The flag in words: Success / Sukses when paid, else Not Paid / Belum Dibayar.' },
      ),
      paidAmount: ref('Amount'),
      totalAmount: ref('Amount'),
      transactionDate: { anyOf: [ref('SnapTimestamp'), { const: '' }], description: 'When paid; empty before.' },
      latestTransactionStatus: ref('TransactionStatus'),
      transactionStatusDesc: { type: 'string' },
    }),
  }),
  UpdateVaRequest: requestBody(VA_UPDATE, { description: 'Only an Initiated (01) VA can be updated.' }),
  UpdateVaResponse: closed({
    responseCode: constant('2002800'),
    responseMessage: constant('Successful'),
    virtualAccountData: ref('VirtualAccountData'),
  }),
  DeleteVaResponse: closed({
    responseCode: constant('2003100'),
    responseMessage: constant('Successful'),
    virtualAccountData: closed({
      ...VA_NUMBERS,
      trxId: { type: 'string' },
      additionalInfo: {
        type: 'object',
        description: 'The request’s `additionalInfo`, as sent (an empty object without one).',
      },
    }),
  }),

  BankVaInquiryRequest: requestBody(BANK_VA_INQUIRY, {
    description:
      'All three numbers must name the same VA, of a bank code this provider owns. Other fields are ignored.',
  }),
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
  BankVaPaymentRequest: requestBody(BANK_VA_PAYMENT),
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
  QrisPaymentNotification: requestBody(QR_NOTIFY, {
    description:
      'The QRIS must be one this acquirer may notify: one it issued, or one of a merchant whose acquirer it is (or that names none).',
  }),
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
      additionalInfo: closed(
        {
          payerIssuer: { type: 'string', pattern: '^\\d*$' },
          payerName: { type: 'string' },
          payerRefId: { type: 'string', pattern: '^\\d*$' },
          billNumber: { type: 'integer', description: 'A JSON integer, 12 digits.' },
          transactionDate: { ...ref('SnapTimestamp'), description: 'When this status was reached.' },
          feeAmount: ref('Amount'),
          refund: {
            ...closed({
              refundNo: { type: 'string', pattern: '^RF\\d{16}$' },
              partnerRefundNo: { type: 'string' },
              refundAmount: ref('Amount'),
              refundTime: ref('SnapTimestamp'),
            }),
            description:
              'A refund’s callback only: the refund that caused it (status `00` for a part, `04` for the last).',
          },
          refundedAmount: {
            ...ref('Amount'),
            description: 'A refund’s callback only: the total refunded so far, this refund included.',
          },
        },
        { required: ['payerIssuer', 'payerName', 'payerRefId', 'billNumber', 'transactionDate', 'feeAmount'] },
      ),
    }),
    description: 'Serialised once; the same bytes are signed and sent on every attempt and replay.',
  },
  CallbackAcknowledgement: {
    type: 'object',
    required: ['responseCode'],
    properties: { responseCode: constant('2002600'), responseMessage: { type: 'string' } },
    description: 'Only HTTP 200 with this `responseCode` acknowledges; anything else is retried.',
  },

  AccountInquiryExternalRequest: requestBody(ACCOUNT_INQUIRY),
  AccountInquiryExternalResponse: closed(
    {
      responseCode: constant('2001600'),
      responseMessage: constant('Successful'),
      partnerReferenceNo: { type: 'string', description: 'As sent, when sent.' },
      beneficiaryAccountName: { type: 'string', description: 'The holder’s name, as the bank answered it.' },
      beneficiaryAccountNo: { type: 'string' },
      beneficiaryBankCode: { type: 'string' },
      currency: constant('IDR'),
      additionalInfo: { type: 'object', description: 'As sent, when sent.' },
    },
    {
      required: [
        'responseCode',
        'responseMessage',
        'beneficiaryAccountName',
        'beneficiaryAccountNo',
        'beneficiaryBankCode',
        'currency',
      ],
    },
  ),
  TransferInterbankRequest: requestBody(TRANSFER_INTERBANK),
  TransferInterbankResponse: closed(
    {
      responseCode: { type: 'string', enum: ['2001800', '2021800'] },
      responseMessage: { type: 'string', enum: ['Successful', 'Request In Progress'] },
      referenceNo: TRANSFER_REFERENCE,
      partnerReferenceNo: { type: 'string' },
      amount: ref('Amount'),
      beneficiaryAccountNo: { type: 'string' },
      beneficiaryBankCode: { type: 'string' },
      transactionDate: { ...ref('SnapTimestamp'), description: 'When the gateway sent it to the bank.' },
      additionalInfo: { type: 'object', description: 'As sent, when sent.' },
    },
    {
      required: [
        'responseCode',
        'responseMessage',
        'referenceNo',
        'partnerReferenceNo',
        'amount',
        'beneficiaryAccountNo',
        'beneficiaryBankCode',
      ],
    },
  ),
  TransferStatusRequest: requestBody(TRANSFER_STATUS),
  TransferStatusResponse: closed(
    {
      responseCode: constant('2003600'),
      responseMessage: constant('Successful'),
      originalReferenceNo: TRANSFER_REFERENCE,
      originalPartnerReferenceNo: { type: 'string' },
      originalExternalId: { type: 'string', description: 'As sent, when sent.' },
      serviceCode: { type: 'string', enum: ['17', '18'] },
      amount: ref('Amount'),
      beneficiaryAccountNo: { type: 'string' },
      beneficiaryBankCode: { type: 'string' },
      transactionDate: ref('SnapTimestamp'),
      referenceNumber: { type: 'string', description: 'The bank’s reference of the transfer, once it gave one.' },
      latestTransactionStatus: {
        type: 'string',
        enum: ['00', '03', '06'],
        description: '00 Success (paid), 03 Pending (on its way), 06 Failed (amount and fee returned).',
      },
      transactionStatusDesc: { type: 'string' },
      additionalInfo: { type: 'object', description: 'The transfer’s, as sent with it.' },
    },
    {
      required: [
        'responseCode',
        'responseMessage',
        'originalReferenceNo',
        'originalPartnerReferenceNo',
        'serviceCode',
        'amount',
        'beneficiaryAccountNo',
        'beneficiaryBankCode',
        'latestTransactionStatus',
        'transactionStatusDesc',
      ],
    },
  ),
};

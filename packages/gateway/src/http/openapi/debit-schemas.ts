import {
  ACCOUNT_BINDING,
  ACCOUNT_UNBINDING,
  CUSTOMER_TOKEN,
  DEBIT_CANCEL,
  DEBIT_NOTIFY,
  DEBIT_PAY,
  DEBIT_REFUND,
  DEBIT_STATUS,
} from '../../payments/snap-fields.ts';
import { closed, type JsonSchema, ref } from './kit.ts';
import { CHECKOUT_URL, constant, EITHER_REFERENCE, requestBody, SNAP_SCHEMAS } from './snap-schemas.ts';

// SNAP Direct Debit's bodies (docs/ewallets.md): what merchants send and get, and what a wallet
// tells snapgate. Request bodies are rendered from the fields' rules, as the other services' are.

/** `schema` with `names` no longer required. */
const optional = (names: readonly string[], schema: JsonSchema): JsonSchema => ({
  ...schema,
  required: ((schema.required ?? []) as string[]).filter((n) => !names.includes(n)),
});

const REFERENCES = {
  originalReferenceNo: ref('ReferenceNo'),
  originalPartnerReferenceNo: { type: 'string' },
};

/** What every callback's additionalInfo holds (snapgate's notification's), an e-wallet's wallet besides. */
const PAID_INFO = ((SNAP_SCHEMAS.PaymentNotification as JsonSchema).properties as Record<string, JsonSchema>)
  .additionalInfo as JsonSchema;

export const DEBIT_SCHEMAS: Record<string, JsonSchema> = {
  DebitPayRequest: requestBody(DEBIT_PAY, {
    description:
      'One `payOptionDetails` entry, its `transAmount` equal to `amount`. At most one `urlParams` entry of each type.',
  }),
  DebitPayResponse: optional(
    ['webRedirectUrl', 'appRedirectUrl'],
    closed({
      responseCode: constant('2005400'),
      responseMessage: constant('Successful'),
      referenceNo: ref('ReferenceNo'),
      partnerReferenceNo: { type: 'string' },
      webRedirectUrl: {
        type: 'string',
        format: 'uri',
        description:
          'Where the payer authorises the payment: the wallet’s page (in sandbox, the sandbox wallet’s). Absent for a payment from a bound account, which needs none.',
      },
      appRedirectUrl: {
        type: 'string',
        description: 'The wallet app’s own link (a deep link), when a connected wallet gives one; never in sandbox.',
      },
      additionalInfo: optional(
        ['bindingReferenceNo'],
        closed({
          checkoutUrl: CHECKOUT_URL,
          bindingReferenceNo: { type: 'string', description: 'The account binding it is paid from, if any.' },
        }),
      ),
    }),
  ),
  DebitStatusRequest: requestBody(DEBIT_STATUS, {
    ...EITHER_REFERENCE,
    description: 'Names the payment by either reference, or both (then both must match).',
  }),
  DebitStatusResponse: {
    ...closed(
      {
        responseCode: constant('2005500'),
        responseMessage: constant('Successful'),
        ...REFERENCES,
        serviceCode: constant('54'),
        latestTransactionStatus: ref('TransactionStatus'),
        transactionStatusDesc: { type: 'string' },
        amount: ref('Amount'),
        paidTime: { ...ref('SnapTimestamp'), description: 'Only once paid.' },
        feeAmount: ref('Amount'),
        additionalInfo: closed(
          {
            payOption: { type: 'string' },
            payerName: { type: 'string', description: 'Once paid: who paid, as the wallet said.' },
            walletReferenceNo: { type: 'string', description: 'Once paid: the wallet’s own reference.' },
          },
          { required: ['payOption'] },
        ),
      },
      {
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
      },
    ),
  },
  DebitCancelRequest: requestBody(DEBIT_CANCEL, { description: 'Only an Initiated (01) payment can be canceled.' }),
  DebitCancelResponse: closed({
    responseCode: constant('2005700'),
    responseMessage: constant('Successful'),
    ...REFERENCES,
    cancelTime: ref('SnapTimestamp'),
    transactionDate: ref('SnapTimestamp'),
  }),
  DebitRefundRequest: requestBody(DEBIT_REFUND, {
    description: 'Only a paid (00) payment can be refunded, in parts; the whole amount back makes it Refunded (04).',
  }),
  DebitRefundResponse: closed({
    responseCode: constant('2005800'),
    responseMessage: constant('Successful'),
    originalPartnerReferenceNo: { type: 'string' },
    originalReferenceNo: ref('ReferenceNo'),
    refundNo: { type: 'string', pattern: '^RF\\d{16}$' },
    partnerRefundNo: { type: 'string' },
    refundAmount: ref('Amount'),
    refundTime: ref('SnapTimestamp'),
  }),
  DebitNotifyRequest: requestBody(DEBIT_NOTIFY, {
    description:
      'The payment must be one this wallet serves. `00` paid, `06` declined or failed; refunds and cancellations are the merchant’s to make, never a notify’s.',
  }),
  DebitNotification: {
    ...closed({
      originalPartnerReferenceNo: { type: 'string', description: 'The merchant’s `partnerReferenceNo`.' },
      originalReferenceNo: { ...ref('ReferenceNo'), description: 'snapgate’s reference of the payment.' },
      latestTransactionStatus: ref('TransactionStatus'),
      transactionStatusDesc: { type: 'string' },
      amount: ref('Amount'),
      additionalInfo: {
        ...PAID_INFO,
        properties: { payOption: { type: 'string' }, ...(PAID_INFO.properties as Record<string, JsonSchema>) },
        required: ['payOption', ...(PAID_INFO.required as string[])],
      },
    }),
    description:
      'SNAP’s debit notify (56). Serialised once; the same bytes are signed and sent on every attempt and replay.',
  },
  DebitNotifyResponse: closed({ responseCode: constant('2005600'), responseMessage: constant('Successful') }),
  AccountBindingRequest: requestBody(ACCOUNT_BINDING, {
    description: 'A binding of the customer’s account at one wallet; in this version the sandbox wallet’s.',
  }),
  AccountBindingResponse: closed({
    responseCode: constant('2000700'),
    responseMessage: constant('Successful'),
    referenceNo: { type: 'string', description: 'snapgate’s reference of the binding.' },
    partnerReferenceNo: { type: 'string' },
    redirectUrl: {
      type: 'string',
      format: 'uri',
      description: 'Where the customer approves the binding: the wallet’s page (in sandbox, the sandbox wallet’s).',
    },
    additionalInfo: closed({ payOption: { type: 'string' } }),
  }),
  AccountUnbindingRequest: requestBody(ACCOUNT_UNBINDING, {
    description: 'The binding is the one of the customer token (`Authorization-Customer`).',
  }),
  AccountUnbindingResponse: closed({
    responseCode: constant('2000900'),
    responseMessage: constant('Successful'),
    referenceNo: { type: 'string' },
    partnerReferenceNo: { type: 'string' },
    unlinkResult: constant('success'),
    additionalInfo: closed({ payOption: { type: 'string' } }),
  }),
  CustomerTokenRequest: requestBody(CUSTOMER_TOKEN, { description: 'Other members are ignored.' }),
  CustomerTokenResponse: closed({
    responseCode: constant('2007400'),
    responseMessage: constant('Successful'),
    accessToken: { type: 'string', description: 'The customer token: `Authorization-Customer: Bearer <it>`.' },
    tokenType: constant('Bearer'),
    accessTokenExpiryTime: ref('SnapTimestamp'),
    refreshToken: { type: 'string', description: 'Takes the next access token (once).' },
    refreshTokenExpiryTime: ref('SnapTimestamp'),
    additionalInfo: closed({
      referenceNo: { type: 'string' },
      partnerReferenceNo: { type: 'string' },
      payOption: { type: 'string' },
    }),
  }),
};

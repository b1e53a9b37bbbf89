import { B2B_TOKEN_PATH, SERVICE, SNAP_CASES, type SnapCase, snapError, successCode } from '@snapgate/snap';
import { QRIS_CALLBACK_PATH, VA_CALLBACK_PATH } from '../../delivery/callback-signing.ts';
import {
  closed,
  type Example,
  json,
  OAS_DIALECT,
  type OpenApiDocument,
  type Operation,
  type Parameter,
  type PathItem,
  paramRef,
  type Response,
  ref,
  type SecurityRequirement,
} from './kit.ts';
import { SNAP_SCHEMAS } from './snap-schemas.ts';

const BASE = '/api/snap/v1.0';
const NOW = '2026-01-15T10:30:00+07:00';
const LATER = '2026-01-15T11:00:00+07:00';

const TAG = {
  token: 'Access token',
  qris: 'QRIS',
  va: 'Virtual Account',
  bank: 'Provider: bank',
  acquirer: 'Provider: acquirer',
  public: 'Public resources',
  callbacks: 'Callbacks to the merchant',
} as const;

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  504: 'Gateway Timeout',
};

/** What every signed call can be refused with, before its own checks. */
const SIGNED: SnapCase[] = [
  'BAD_REQUEST',
  'INVALID_FIELD_FORMAT',
  'INVALID_MANDATORY_FIELD',
  'UNAUTHORIZED',
  'INVALID_TOKEN',
  'CONFLICT',
  'GENERAL_ERROR',
];
const MERCHANT: SnapCase[] = [...SIGNED, 'TOO_MANY_REQUESTS'];
const UPSTREAM: SnapCase[] = ['EXTERNAL_SERVER_ERROR', 'TIMEOUT'];

/** The message a case is answered with, as an example (a field or a reason where the case has one). */
function exampleError(c: SnapCase, serviceCode: string) {
  const options =
    c === 'INVALID_FIELD_FORMAT' || c === 'INVALID_MANDATORY_FIELD'
      ? { field: 'X-TIMESTAMP' }
      : c === 'UNAUTHORIZED'
        ? { reason: 'Invalid Signature' }
        : c === 'INVALID_BILL'
          ? { reason: 'Not Found' }
          : c === 'INVALID_BILL_EXPIRED'
            ? { reason: 'Expired' }
            : {};
  return snapError(c, serviceCode, options).toBody();
}

/** One response per HTTP status the cases map to, each listing its response codes (from the one case table). */
function errorResponses(serviceCode: string, cases: readonly SnapCase[]): Record<string, Response> {
  const byStatus = new Map<number, SnapCase[]>();
  for (const c of cases) {
    const status = SNAP_CASES[c].httpStatus;
    byStatus.set(status, [...(byStatus.get(status) ?? []), c]);
  }
  const out: Record<string, Response> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const codes = list.map((c) => `${status}${serviceCode}${SNAP_CASES[c].caseCode}`);
    const examples: Record<string, Example> = {};
    for (const c of list) {
      const body = exampleError(c, serviceCode);
      examples[body.responseCode] = { summary: SNAP_CASES[c].message, value: body };
    }
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? status}: ${list
        .map((c, i) => `\`${codes[i]}\` ${SNAP_CASES[c].message}`)
        .join(', ')}.`,
      content: json({ ...ref('SnapError'), properties: { responseCode: { enum: codes } } }, examples),
    };
  }
  return out;
}

const SIGNED_HEADERS = [paramRef('XTimestamp'), paramRef('XPartnerId'), paramRef('XExternalId'), paramRef('ChannelId')];

interface SnapOperation {
  method: 'post' | 'put' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  serviceCode: string;
  security: SecurityRequirement[];
  parameters: Operation['parameters'];
  request: string;
  requestExample: unknown;
  response: string;
  responseExample: Record<string, unknown>;
  cases: readonly SnapCase[];
}

function operation(op: SnapOperation): Operation {
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: `${op.description}\n\nService code ${op.serviceCode}: success is \`${successCode(op.serviceCode)}\`.`,
    security: op.security,
    ...(op.parameters && op.parameters.length > 0 ? { parameters: op.parameters } : {}),
    requestBody: {
      required: true,
      description: 'JSON (`Content-Type: application/json`); the signature covers these bytes exactly as sent.',
      content: json(ref(op.request), { example: { value: op.requestExample } }),
    },
    responses: {
      '200': {
        description: 'Done. A repeat with the same X-EXTERNAL-ID and body answers this again, unchanged.',
        content: json(ref(op.response), {
          example: {
            value: { responseCode: successCode(op.serviceCode), responseMessage: 'Successful', ...op.responseExample },
          },
        }),
      },
      ...errorResponses(op.serviceCode, op.cases),
    },
  };
}

const merchantSecurity: SecurityRequirement[] = [{ b2bToken: [], serviceSignature: [] }];
const providerSecurity: SecurityRequirement[] = [{ providerToken: [], serviceSignature: [] }];

const VA_NUMBERS = {
  partnerServiceId: ' 9990001',
  customerNo: '000000000001',
  virtualAccountNo: ' 9990001000000000001',
};
const VA_DATA = {
  ...VA_NUMBERS,
  virtualAccountName: 'Budi Santoso',
  virtualAccountEmail: '',
  virtualAccountPhone: '',
  trxId: 'INV-2026-0001',
  totalAmount: { value: '150000.00', currency: 'IDR' },
  virtualAccountTrxType: 'C',
  expiredDate: '2026-01-16T10:30:00+07:00',
  additionalInfo: { bankCode: '999' },
};
const PAID_QRIS = { originalReferenceNo: '260115123456789012', originalPartnerReferenceNo: 'ORDER-1001' };

const OPERATIONS: SnapOperation[] = [
  {
    method: 'post',
    path: `${BASE}/qr/qr-mpm-generate`,
    operationId: 'qrMpmGenerate',
    tag: TAG.qris,
    summary: 'Generate a dynamic QRIS',
    description:
      'Creates an Initiated (01) QRIS for an amount and answers its QR payload. A merchant whose acquirer issues its QRIS gets the acquirer’s payload.',
    serviceCode: SERVICE.qrisGenerate,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'QrMpmGenerateRequest',
    requestExample: {
      partnerReferenceNo: 'ORDER-1001',
      amount: { value: '25000.00', currency: 'IDR' },
      validityPeriod: LATER,
    },
    response: 'QrMpmGenerateResponse',
    responseExample: {
      referenceNo: '260115123456789012',
      partnerReferenceNo: 'ORDER-1001',
      qrContent: '00020101021226…6304ABCD',
      qrUrl: 'https://pay.example/qr/260115123456789012.png',
      merchantName: 'Warung Kopi',
      additionalInfo: { validityPeriod: LATER },
    },
    cases: [...MERCHANT, 'DUPLICATE_PARTNER_REFERENCE_NO', ...UPSTREAM],
  },
  {
    method: 'post',
    path: `${BASE}/qr/qr-mpm-query`,
    operationId: 'qrMpmQuery',
    tag: TAG.qris,
    summary: 'Query a QRIS',
    description: 'The QRIS’s current status; an unpaid QRIS past its validity is Failed (06) `Expired`.',
    serviceCode: SERVICE.qrisQuery,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'QrMpmQueryRequest',
    requestExample: { originalReferenceNo: '260115123456789012', serviceCode: '47' },
    response: 'QrMpmQueryResponse',
    responseExample: {
      ...PAID_QRIS,
      serviceCode: '47',
      latestTransactionStatus: '00',
      transactionStatusDesc: 'Success',
      amount: { value: '25000.00', currency: 'IDR' },
      paidTime: NOW,
      feeAmount: { value: '0.00', currency: 'IDR' },
      additionalInfo: {
        payerName: 'ANI',
        payerIssuer: '93600009',
        payerRefId: '123456789012',
        billNumber: 100000000001,
      },
    },
    cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND'],
  },
  {
    method: 'post',
    path: `${BASE}/qr/qr-mpm-cancel`,
    operationId: 'qrMpmCancel',
    tag: TAG.qris,
    summary: 'Cancel a QRIS',
    description: 'Initiated (01) → Canceled (05); the merchant is notified.',
    serviceCode: SERVICE.qrisCancel,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'QrMpmCancelRequest',
    requestExample: { originalPartnerReferenceNo: 'ORDER-1001', reason: 'customer left' },
    response: 'QrMpmCancelResponse',
    responseExample: { ...PAID_QRIS, cancelTime: NOW, transactionDate: NOW },
    cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', ...UPSTREAM],
  },
  {
    method: 'post',
    path: `${BASE}/qr/qr-mpm-refund`,
    operationId: 'qrMpmRefund',
    tag: TAG.qris,
    summary: 'Refund a paid QRIS',
    description: 'Refunds part or all of a paid (00) QRIS; the whole amount back makes it Refunded (04).',
    serviceCode: SERVICE.qrisRefund,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'QrMpmRefundRequest',
    requestExample: {
      originalPartnerReferenceNo: 'ORDER-1001',
      partnerRefundNo: 'REFUND-1',
      refundAmount: { value: '5000.00', currency: 'IDR' },
      reason: 'one item out of stock',
    },
    response: 'QrMpmRefundResponse',
    responseExample: {
      ...PAID_QRIS,
      refundNo: 'RF1234567801234567',
      partnerRefundNo: 'REFUND-1',
      refundAmount: { value: '5000.00', currency: 'IDR' },
      refundTime: NOW,
    },
    cases: [...MERCHANT, 'TRANSACTION_NOT_FOUND', 'NOT_ALLOWED', 'INVALID_AMOUNT', ...UPSTREAM],
  },
  {
    method: 'post',
    path: `${BASE}/transfer-va/create-va`,
    operationId: 'createVa',
    tag: TAG.va,
    summary: 'Create a Virtual Account',
    description: 'Allocates a VA number at the bank of `additionalInfo.bankCode` and opens an Initiated (01) bill.',
    serviceCode: SERVICE.vaCreate,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'CreateVaRequest',
    requestExample: {
      virtualAccountName: 'Budi Santoso',
      trxId: 'INV-2026-0001',
      totalAmount: { value: '150000.00', currency: 'IDR' },
      expiredDate: '2026-01-16T10:30:00+07:00',
    },
    response: 'CreateVaResponse',
    responseExample: { responseMessage: 'Success', virtualAccountData: VA_DATA },
    cases: [...MERCHANT, 'DUPLICATE_PARTNER_REFERENCE_NO'],
  },
  {
    method: 'post',
    path: `${BASE}/transfer-va/inquiry-va`,
    operationId: 'inquiryVa',
    tag: TAG.va,
    summary: 'Look up a Virtual Account',
    description: 'The VA as created (or last updated), and its status.',
    serviceCode: SERVICE.vaInquiry,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'VaLookupRequest',
    requestExample: { virtualAccountNo: VA_NUMBERS.virtualAccountNo, trxId: 'INV-2026-0001' },
    response: 'InquiryVaResponse',
    responseExample: { virtualAccountData: { ...VA_DATA, latestTransactionStatus: '01' } },
    cases: [...MERCHANT, 'INVALID_BILL'],
  },
  {
    method: 'post',
    path: `${BASE}/transfer-va/status`,
    operationId: 'vaStatus',
    tag: TAG.va,
    summary: 'Payment status of a Virtual Account',
    description: 'Whether the VA is paid, and how much.',
    serviceCode: SERVICE.vaInquiryStatus,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'VaLookupRequest',
    requestExample: { virtualAccountNo: VA_NUMBERS.virtualAccountNo },
    response: 'VaStatusResponse',
    responseExample: {
      virtualAccountData: {
        ...VA_NUMBERS,
        trxId: 'INV-2026-0001',
        paymentFlagStatus: '00',
        paidAmount: { value: '150000.00', currency: 'IDR' },
        totalAmount: { value: '150000.00', currency: 'IDR' },
        transactionDate: NOW,
        latestTransactionStatus: '00',
        transactionStatusDesc: 'Success',
      },
    },
    cases: [...MERCHANT, 'INVALID_BILL'],
  },
  {
    method: 'put',
    path: `${BASE}/transfer-va/update-va`,
    operationId: 'updateVa',
    tag: TAG.va,
    summary: 'Update a Virtual Account',
    description: 'Changes the name, amount or expiry of an Initiated (01) VA.',
    serviceCode: SERVICE.vaUpdate,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'UpdateVaRequest',
    requestExample: {
      virtualAccountNo: VA_NUMBERS.virtualAccountNo,
      totalAmount: { value: '175000.00', currency: 'IDR' },
    },
    response: 'UpdateVaResponse',
    responseExample: { virtualAccountData: { ...VA_DATA, totalAmount: { value: '175000.00', currency: 'IDR' } } },
    cases: [...MERCHANT, 'INVALID_BILL', 'NOT_ALLOWED'],
  },
  {
    method: 'delete',
    path: `${BASE}/transfer-va/delete-va`,
    operationId: 'deleteVa',
    tag: TAG.va,
    summary: 'Delete a Virtual Account',
    description: 'Initiated (01) → Canceled (05) `Deleted`; the merchant is notified. The request has a JSON body.',
    serviceCode: SERVICE.vaDelete,
    security: merchantSecurity,
    parameters: SIGNED_HEADERS,
    request: 'VaLookupRequest',
    requestExample: { virtualAccountNo: VA_NUMBERS.virtualAccountNo, trxId: 'INV-2026-0001' },
    response: 'DeleteVaResponse',
    responseExample: { virtualAccountData: { ...VA_NUMBERS, trxId: 'INV-2026-0001' } },
    cases: [...MERCHANT, 'INVALID_BILL', 'NOT_ALLOWED'],
  },
  {
    method: 'post',
    path: `${BASE}/transfer-va/inquiry`,
    operationId: 'bankVaInquiry',
    tag: TAG.bank,
    summary: 'A bank asks for a VA’s bill',
    description: 'Called by a bank provider before its customer pays a VA of a bank code it owns.',
    serviceCode: SERVICE.vaBankInquiry,
    security: providerSecurity,
    parameters: SIGNED_HEADERS,
    request: 'BankVaInquiryRequest',
    requestExample: { ...VA_NUMBERS, inquiryRequestId: 'INQ-0001' },
    response: 'BankVaInquiryResponse',
    responseExample: {
      virtualAccountData: {
        inquiryStatus: '00',
        inquiryReason: { english: 'Success', indonesia: 'Sukses' },
        ...VA_NUMBERS,
        virtualAccountName: 'Budi Santoso',
        inquiryRequestId: 'INQ-0001',
        totalAmount: { value: '150000.00', currency: 'IDR' },
        virtualAccountTrxType: 'C',
        billDetails: [],
        freeTexts: [],
      },
    },
    cases: [...SIGNED, 'INVALID_BILL', 'PAID_BILL', 'INVALID_BILL_EXPIRED'],
  },
  {
    method: 'post',
    path: `${BASE}/transfer-va/payment`,
    operationId: 'bankVaPayment',
    tag: TAG.bank,
    summary: 'A bank’s payment flag',
    description:
      'The bank’s customer paid the VA: Initiated (01) → Success (00), and the merchant is notified. Idempotent on `paymentRequestId`: a repeat (same VA, same `paidAmount`) answers the first answer again; a used `paymentRequestId` for another VA or amount is 409 Conflict and changes nothing.',
    serviceCode: SERVICE.vaPayment,
    security: providerSecurity,
    parameters: SIGNED_HEADERS,
    request: 'BankVaPaymentRequest',
    requestExample: {
      ...VA_NUMBERS,
      paymentRequestId: 'PAY-0001',
      paidAmount: { value: '150000.00', currency: 'IDR' },
      referenceNo: 'BNK-000123',
      flagAdvise: 'N',
    },
    response: 'BankVaPaymentResponse',
    responseExample: {
      virtualAccountData: {
        paymentFlagStatus: '00',
        paymentFlagReason: { english: 'Success', indonesia: 'Sukses' },
        paymentRequestId: 'PAY-0001',
        paidAmount: { value: '150000.00', currency: 'IDR' },
        ...VA_NUMBERS,
        virtualAccountName: 'Budi Santoso',
        trxDateTime: NOW,
      },
    },
    cases: [...SIGNED, 'INVALID_BILL', 'PAID_BILL', 'INVALID_BILL_EXPIRED', 'INVALID_AMOUNT'],
  },
  {
    method: 'post',
    path: `${BASE}/qr/qr-mpm-notify`,
    operationId: 'qrMpmNotify',
    tag: TAG.acquirer,
    summary: 'An acquirer’s QRIS payment notification',
    description:
      'An acquirer provider reports what the payer did with a QRIS; the merchant is notified of every change.',
    serviceCode: SERVICE.qrisNotify,
    security: providerSecurity,
    parameters: SIGNED_HEADERS,
    request: 'QrisPaymentNotification',
    requestExample: {
      originalReferenceNo: 'ACQ-99001',
      originalPartnerReferenceNo: '260115123456789012',
      latestTransactionStatus: '00',
      amount: { value: '25000.00', currency: 'IDR' },
      additionalInfo: { payerIssuer: '93600009', payerName: 'ANI', payerRefId: '123456789012' },
    },
    response: 'QrMpmNotifyResponse',
    responseExample: {},
    cases: [...SIGNED, 'TRANSACTION_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/upstream/{providerId}/webhook/payment-qr-notification',
    operationId: 'upstreamQrNotification',
    tag: TAG.acquirer,
    summary: 'Another snapgate’s QRIS callback',
    description:
      'An acquirer that is itself a snapgate calls back here in its callback form: set the merchant’s `callbackBaseUrl` there to `<this gateway>/upstream/<providerId>`. Signed HMAC-SHA512 with the outbound client secret this gateway holds at that acquirer (and `X-PARTNER-ID` its outbound partner ID), or SHA256withRSA by the provider’s public key. No token. A bad signature is refused with 401 and changes nothing.',
    serviceCode: SERVICE.callback,
    security: [{ callbackSignature: [] }],
    parameters: [
      {
        name: 'providerId',
        in: 'path',
        required: true,
        description: 'The acquirer provider’s id here.',
        schema: { type: 'string' },
      },
      paramRef('XTimestamp'),
      paramRef('XExternalId'),
      paramRef('XPartnerIdCallback'),
    ],
    request: 'QrisPaymentNotification',
    requestExample: {
      originalReferenceNo: '260115987654321098',
      originalPartnerReferenceNo: '260115123456789012',
      latestTransactionStatus: '00',
      amount: { value: '25000.00', currency: 'IDR' },
      additionalInfo: {
        payerIssuer: '93600009',
        payerName: 'ANI',
        payerRefId: '123456789012',
        billNumber: 100000000001,
        transactionDate: NOW,
        feeAmount: { value: '0.00', currency: 'IDR' },
      },
    },
    response: 'UpstreamNotificationAck',
    responseExample: {},
    cases: SIGNED.filter((c) => c !== 'INVALID_TOKEN').concat('TRANSACTION_NOT_FOUND'),
  },
];

const TOKEN_OPERATION: Operation = {
  operationId: 'accessTokenB2b',
  tags: [TAG.token],
  summary: 'Take a B2B access token',
  description: `A merchant (or a provider) takes a bearer token for its signed calls. The token dies with its expiry, with its client’s secret once a rotation’s overlap ends, and when the client is disabled.\n\nService code ${SERVICE.token}: success is \`${successCode(SERVICE.token)}\`.`,
  security: [{ tokenSignature: [] }],
  parameters: [paramRef('XClientKey'), paramRef('XTimestamp')],
  requestBody: {
    required: true,
    description: 'JSON (`Content-Type: application/json`).',
    content: json(ref('AccessTokenRequest'), { example: { value: { grantType: 'client_credentials' } } }),
  },
  responses: {
    '200': {
      description: 'The token.',
      headers: {
        'X-TIMESTAMP': { description: 'When it was issued.', required: true, schema: ref('SnapTimestamp') },
        'X-CLIENT-KEY': { description: 'The client key it was issued to.', required: true, schema: { type: 'string' } },
      },
      content: json(ref('AccessTokenResponse'), {
        example: {
          value: {
            responseCode: '2007100',
            responseMessage: 'Successful',
            accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjayJ9.c2lnbmF0dXJl',
            tokenType: 'Bearer',
            expiresIn: 900,
          },
        },
      }),
    },
    ...errorResponses(SERVICE.token, [
      'BAD_REQUEST',
      'INVALID_FIELD_FORMAT',
      'INVALID_MANDATORY_FIELD',
      'UNAUTHORIZED',
      'TOO_MANY_REQUESTS',
      'GENERAL_ERROR',
    ]),
  },
};

const PROBLEM_404 = {
  description: 'No QRIS with that reference, or not an image name.',
  content: json(
    {
      type: 'object',
      required: ['type', 'title', 'status'],
      properties: { type: { const: 'about:blank' }, title: { const: 'Not Found' }, status: { const: 404 } },
      additionalProperties: false,
    },
    { example: { value: { type: 'about:blank', title: 'Not Found', status: 404 } } },
    'application/problem+json',
  ),
};

const CACHING = {
  'Cache-Control': { schema: { type: 'string', const: 'public, max-age=86400, immutable' } },
  ETag: { description: 'Send back as `If-None-Match`.', schema: { type: 'string' } },
};

const QR_IMAGE: Operation = {
  operationId: 'qrImage',
  tags: [TAG.public],
  summary: 'A QRIS as an image',
  description:
    'The `qrUrl` of a generated QRIS: its QR code as PNG or SVG. Public: it shows only what a payer scans. Each client address is held to `SNAPGATE_QR_RATE_LIMIT` requests a minute.',
  security: [],
  parameters: [
    {
      name: 'file',
      in: 'path',
      required: true,
      description: 'The QRIS `referenceNo` and the image format.',
      schema: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}\\.(png|svg)$' },
      example: '260115123456789012.png',
    },
    {
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The `ETag` of an earlier answer: 304 when this gateway still holds the image.',
      schema: { type: 'string' },
    },
  ],
  responses: {
    '200': {
      description: 'The image; cacheable for a day (it never changes).',
      headers: CACHING,
      content: {
        'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
        'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } },
      },
    },
    '304': { description: 'Not modified: the `If-None-Match` image is still this one.', headers: CACHING },
    '404': PROBLEM_404,
    '429': {
      description: 'Too many images for this client address this minute.',
      headers: {
        'Retry-After': {
          description: 'Seconds until the next minute.',
          required: true,
          schema: { type: 'string', pattern: '^\\d+$' },
        },
      },
      content: json(
        closed({ type: { const: 'about:blank' }, title: { const: 'Too Many Requests' }, status: { const: 429 } }),
        { example: { value: { type: 'about:blank', title: 'Too Many Requests', status: 429 } } },
        'application/problem+json',
      ),
    },
  },
};

const CALLBACK_PUBLIC_KEY: Operation = {
  operationId: 'callbackPublicKey',
  tags: [TAG.public],
  summary: 'The key that verifies `rsa-sha256` callbacks',
  description:
    'The gateway’s RSA public key (SPKI, PEM). A merchant whose `callbackSignature` is `rsa-sha256` verifies every callback with it.',
  security: [],
  responses: {
    '200': {
      description: 'The PEM.',
      content: {
        'application/x-pem-file': {
          schema: { type: 'string', pattern: '^-----BEGIN PUBLIC KEY-----\\n' },
          examples: {
            pem: {
              value:
                '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA…\n-----END PUBLIC KEY-----\n',
            },
          },
        },
      },
    },
  },
};

function webhook(kind: 'qris' | 'va'): PathItem {
  const path = kind === 'qris' ? QRIS_CALLBACK_PATH : VA_CALLBACK_PATH;
  const setting = kind === 'qris' ? 'qrisCallbackUrl' : 'vaCallbackUrl';
  const what = kind === 'qris' ? 'QRIS' : 'Virtual Account';
  return {
    post: {
      operationId: kind === 'qris' ? 'paymentQrNotification' : 'paymentVaNotification',
      tags: [TAG.callbacks],
      summary: `A ${what} changed status`,
      description: `snapgate POSTs this to the merchant’s \`${setting}\`, by default \`<callbackBaseUrl>${path}\`, on every status change, until acknowledged (retried on \`SNAPGATE_RETRY_SCHEDULE\`). \`X-EXTERNAL-ID\` is the notification’s id, the same on every attempt and replay: drop duplicates by it, and never let an older status overwrite a newer one.\n\nThe signature depends on the merchant’s \`callbackSignature\`: \`hmac-sha512\` (default) over \`POST:<path>:<X-PARTNER-ID>:<lowerhex sha256(body)>:<X-TIMESTAMP>\` with the client secret; \`rsa-sha256\` over \`POST:<path>:<lowerhex sha256(body)>:<X-TIMESTAMP>\` by the gateway’s key (\`GET /.well-known/snapgate/callback-public-key.pem\`); \`snap-b2b\` adds \`Authorization: Bearer <token from the merchant’s token endpoint>\` and \`CHANNEL-ID\`, over \`POST:<path>:<token>:<lowerhex sha256(body)>:<X-TIMESTAMP>\` with the client secret.`,
      security: [{ callbackSignature: [] }],
      parameters: [
        paramRef('XTimestamp'),
        paramRef('XExternalIdCallback'),
        paramRef('XPartnerIdMerchant'),
        paramRef('ChannelIdCallback'),
      ],
      requestBody: {
        required: true,
        description: 'JSON: compact, or as PHP’s `json_encode` writes it (`callbackJson: php`).',
        content: json(ref('PaymentNotification'), {
          example: {
            value: {
              originalReferenceNo: '260115123456789012',
              originalPartnerReferenceNo: kind === 'qris' ? 'ORDER-1001' : 'INV-2026-0001',
              latestTransactionStatus: '00',
              amount: { value: kind === 'qris' ? '25000.00' : '150000.00', currency: 'IDR' },
              additionalInfo: {
                payerIssuer: kind === 'qris' ? '93600009' : '999',
                payerName: kind === 'qris' ? 'ANI' : 'Budi Santoso',
                payerRefId: '123456789012',
                billNumber: 100000000001,
                transactionDate: NOW,
                feeAmount: { value: '0.00', currency: 'IDR' },
              },
            },
          },
        }),
      },
      responses: {
        '200': {
          description: 'Acknowledged: HTTP 200 and `responseCode` `2002600`. Answer only once the change is stored.',
          content: json(ref('CallbackAcknowledgement'), {
            example: { value: { responseCode: '2002600', responseMessage: 'Success' } },
          }),
        },
      },
    },
  };
}

const header = (name: string, description: string, schema: Parameter['schema'], required = true): Parameter => ({
  name,
  in: 'header',
  required,
  description,
  schema,
});

/** The SNAP API document: merchants', providers', the public resources, and the callbacks merchants receive. */
export function buildSnapDocument(options: { publicUrl: string }): OpenApiDocument {
  const paths: Record<string, PathItem> = {
    [B2B_TOKEN_PATH]: { post: TOKEN_OPERATION },
  };
  for (const op of OPERATIONS) paths[op.path] = { ...paths[op.path], [op.method]: operation(op) };
  paths['/qr/{file}'] = { get: QR_IMAGE };
  paths['/.well-known/snapgate/callback-public-key.pem'] = { get: CALLBACK_PUBLIC_KEY };

  return {
    openapi: '3.1.1',
    info: {
      title: 'snapgate SNAP API',
      version: 'v1.0',
      summary: 'Indonesia’s SNAP open payment API: QRIS and Virtual Accounts, as snapgate serves it.',
      description: [
        'Merchants take a B2B token, then make signed calls. Banks and acquirers (providers) call in with their own tokens. snapgate calls every merchant back when a transaction changes status (see the webhooks).',
        'Every signed call carries `Authorization: Bearer <token>`, `Content-Type: application/json`, `X-TIMESTAMP`, `X-SIGNATURE`, `X-PARTNER-ID`, `X-EXTERNAL-ID` and `CHANNEL-ID`, checked in that order of kind: token (401 xx01), mandatory headers present (400 xx02), well formed (400 xx01), timestamp within the clock skew window, partner and signature (401 xx00), rate limit (429 xx00), then the body (400 xx00 when it is not a JSON object).',
        '`X-EXTERNAL-ID` is the idempotency key, per client and Jakarta day: a repeat with the same body answers the first success again; a different body under it is refused 409 xx00. Refusals are not kept, so a corrected request may reuse it.',
        'Body fields: a missing mandatory field is 400 xx02 `{field}`, a field of the wrong type, length or format 400 xx01 `{field}`. An empty string counts as absent. Unknown fields are ignored. Text holding a control character (other than tab, line feed, carriage return) or an unpaired surrogate, in any field, is 400 xx01 `{field}`. `responseCode` is the HTTP status, the service code and the case code.',
        'A request over 64 KiB, or malformed HTTP, is 400 xx00. An unknown path is 404 `4040000`.',
      ].join('\n\n'),
    },
    jsonSchemaDialect: OAS_DIALECT,
    servers: [{ url: options.publicUrl, description: 'This gateway (`SNAPGATE_PUBLIC_URL`).' }],
    tags: [
      { name: TAG.token, description: 'The bearer token every signed call needs.' },
      { name: TAG.qris, description: 'Dynamic QRIS (merchant-presented): generate, query, cancel, refund.' },
      { name: TAG.va, description: 'Virtual Accounts: create, look up, update, delete.' },
      { name: TAG.bank, description: 'Banks call these for the VAs of the bank codes they own.' },
      { name: TAG.acquirer, description: 'Acquirers report QRIS payments here.' },
      { name: TAG.public, description: 'No authentication.' },
      { name: TAG.callbacks, description: 'What snapgate sends to merchants (OpenAPI webhooks).' },
    ],
    security: merchantSecurity,
    paths,
    webhooks: {
      'payment-qr-notification': webhook('qris'),
      'payment-va-notification': webhook('va'),
    },
    components: {
      schemas: SNAP_SCHEMAS,
      parameters: {
        XTimestamp: header(
          'X-TIMESTAMP',
          'When the request was signed; within the clock skew window (default ±5 minutes).',
          ref('SnapDateTimeInput'),
        ),
        XPartnerId: header('X-PARTNER-ID', 'A merchant’s `partnerId`; a provider’s client key.', {
          type: 'string',
          minLength: 1,
        }),
        XExternalId: header('X-EXTERNAL-ID', 'Idempotency key: 1 to 36 digits, unique per client and Jakarta day.', {
          type: 'string',
          pattern: '^\\d{1,36}$',
        }),
        ChannelId: header('CHANNEL-ID', 'The channel, 1 to 5 characters (e.g. `95221`).', {
          type: 'string',
          minLength: 1,
          maxLength: 5,
        }),
        XClientKey: header('X-CLIENT-KEY', 'The client key of the merchant or provider.', {
          type: 'string',
          minLength: 1,
        }),
        XPartnerIdCallback: header(
          'X-PARTNER-ID',
          'The outbound partner ID this gateway holds at the acquirer (HMAC-SHA512 form).',
          { type: 'string' },
          false,
        ),
        XExternalIdCallback: header('X-EXTERNAL-ID', 'The notification’s id: the same on every attempt and replay.', {
          type: 'string',
          pattern: '^\\d{1,36}$',
        }),
        XPartnerIdMerchant: header('X-PARTNER-ID', 'The merchant’s `partnerId`.', { type: 'string', minLength: 1 }),
        ChannelIdCallback: header('CHANNEL-ID', '`snap-b2b` callbacks only: `95221`.', { type: 'string' }, false),
      },
      securitySchemes: {
        b2bToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `A merchant’s token from \`POST ${B2B_TOKEN_PATH}\`. A provider’s token is refused here (401 xx01).`,
        },
        providerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `A provider’s token from \`POST ${B2B_TOKEN_PATH}\` (with the provider’s client key). A merchant’s token is refused here (401 xx01).`,
        },
        serviceSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SIGNATURE',
          description:
            'Base64 HMAC-SHA512, keyed with the client secret, of `METHOD:<path and query as sent>:<accessToken>:<lowerhex sha256(body bytes as sent)>:<X-TIMESTAMP>`. During a secret rotation’s overlap the previous secret is accepted too.',
        },
        tokenSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SIGNATURE',
          description:
            'Base64 signature of `<X-CLIENT-KEY>|<X-TIMESTAMP>`: SHA256withRSA by the client’s registered key, or HMAC-SHA256 with its client secret (a merchant’s `tokenSignature` setting decides; a provider with a key signs RSA).',
        },
        callbackSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SIGNATURE',
          description:
            'Base64 signature of a callback: HMAC-SHA512 over `POST:<path>:<X-PARTNER-ID>:<lowerhex sha256(body)>:<X-TIMESTAMP>`, or SHA256withRSA over `POST:<path>:<lowerhex sha256(body)>:<X-TIMESTAMP>`.',
        },
      },
    },
  };
}

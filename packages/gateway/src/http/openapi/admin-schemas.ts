import { TRANSACTION_STATUS } from '@snapgate/snap';
import { merchantViewSchema } from '../../merchants/merchant-fields.ts';
import { TRANSACTION_KINDS } from '../../methods/index.ts';
import { providerViewSchema } from '../../providers/provider-fields.ts';
import { DATE_TIME, T } from './admin-kit.ts';
import { closed, fromZod, type JsonSchema, nullable, ref } from './kit.ts';

// The admin document's component schemas: the answers more than one admin route gives, and an
// example of the ones several routes show. Merchant and Provider are generated from their fields
// (merchants/merchant-fields.ts, providers/provider-fields.ts); the others are written here.

const money = closed({
  value: { type: 'string', pattern: '^(0|[1-9]\\d{0,15})\\.\\d{2}$' },
  currency: { const: 'IDR' },
});

export const ADMIN_SCHEMAS: Record<string, JsonSchema> = {
  Problem: {
    type: 'object',
    required: ['type', 'title', 'status'],
    properties: {
      type: { const: 'about:blank' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: { type: 'string' },
      errors: { type: 'array', items: { type: 'string' }, description: 'Every problem found, each naming its field.' },
      responseCode: {
        type: 'string',
        description:
          'Sandbox payments: the SNAP code the provider path answered. A bank account the payout bank refused: the bank’s code.',
      },
      responseMessage: { type: 'string', description: 'The SNAP message that goes with `responseCode`.' },
    },
    additionalProperties: false,
    description: 'RFC 9457 problem details (`application/problem+json`).',
  },
  Money: money,
  Merchant: {
    ...fromZod(merchantViewSchema, {}, 'output'),
    description: 'A merchant: never its secret, except once at creation.',
  },
  Provider: {
    ...fromZod(providerViewSchema, {}, 'output'),
    description: 'A bank or an acquirer calling the SNAP provider API: never a secret, its own or the outbound one.',
  },
  Transaction: closed({
    referenceNo: { type: 'string', description: 'The transaction’s; a transfer callback’s: the disbursement’s.' },
    merchantId: { type: 'string' },
    kind: {
      enum: [...TRANSACTION_KINDS, 'transfer'],
      description: '`transfer`: a disbursement’s end (docs/payouts.md).',
    },
    partnerReferenceNo: { type: 'string', description: 'QRIS `partnerReferenceNo`, or VA `trxId`.' },
    status: { enum: Object.keys(TRANSACTION_STATUS) },
    statusDesc: nullable({ type: 'string' }),
    amount: { ...nullable(ref('Money')), description: 'Null for an open amount VA.' },
    paidAmount: nullable(ref('Money')),
    refundedAmount: ref('Money'),
    feeAmount: ref('Money'),
    virtualAccountNo: nullable({ type: 'string' }),
    billNumber: { type: 'integer' },
    expiresAt: nullable(DATE_TIME),
    paidAt: nullable(DATE_TIME),
    details: { type: 'object', description: 'Kind-specific fields (QR content, VA details, payer, upstream, …).' },
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
  }),
  Notification: closed({
    id: { type: 'string', pattern: '^\\d+$', description: 'Sent as `X-EXTERNAL-ID` on every attempt.' },
    referenceNo: { type: 'string' },
    merchantId: { type: 'string' },
    kind: {
      enum: [...TRANSACTION_KINDS, 'transfer'],
      description: '`transfer`: a disbursement’s end (docs/payouts.md).',
    },
    state: { enum: ['pending', 'delivering', 'retrying', 'delivered', 'superseded', 'dead'] },
    latestTransactionStatus: { enum: Object.keys(TRANSACTION_STATUS) },
    attemptCount: { type: 'integer', minimum: 0 },
    nextAttemptAt: nullable(DATE_TIME),
    createdAt: DATE_TIME,
    updatedAt: DATE_TIME,
    deliveredAt: nullable(DATE_TIME),
    lastError: nullable({ type: 'string' }),
  }),
  StatusChange: closed({
    seq: { type: 'integer' },
    status: { enum: Object.keys(TRANSACTION_STATUS) },
    statusDesc: nullable({ type: 'string' }),
    reason: nullable({ type: 'string' }),
    changedAt: DATE_TIME,
  }),
  DeliveryAttempt: closed({
    attemptNo: { type: 'integer', minimum: 1 },
    startedAt: DATE_TIME,
    url: nullable({ type: 'string' }),
    requestHeaders: { type: 'object', additionalProperties: { type: 'string' } },
    requestBody: { type: 'string' },
    responseStatus: nullable({ type: 'integer' }),
    responseBody: { ...nullable({ type: 'string' }), description: 'First 4 KiB.' },
    durationMs: { type: 'number' },
    outcome: { enum: ['acknowledged', 'rejected', 'error'] },
    error: nullable({ type: 'string' }),
  }),
  InboundCall: closed({
    id: { type: 'integer' },
    method: { type: 'string' },
    path: { type: 'string' },
    requestBody: { type: 'string', description: 'First 4 KiB.' },
    httpStatus: { type: 'integer' },
    responseCode: nullable({ type: 'string' }),
    responseBody: { type: 'string', description: 'First 4 KiB.' },
    durationMs: { type: 'number' },
    at: DATE_TIME,
  }),
  AdminKey: closed({
    id: { type: 'string' },
    name: { type: 'string' },
    scope: { enum: ['read', 'operate', 'admin', 'approve'] },
    createdAt: DATE_TIME,
    lastUsedAt: { ...nullable(DATE_TIME), description: 'To the minute.' },
    revokedAt: nullable(DATE_TIME),
  }),
  AuditEntry: closed({
    id: { type: 'integer' },
    at: DATE_TIME,
    keyId: { type: 'string' },
    keyName: { type: 'string' },
    address: { type: 'string', description: 'The client address.' },
    action: { type: 'string', description: 'Method and route, e.g. `PATCH /admin/v1/merchants/:id`.' },
    path: { type: 'string' },
    target: { ...nullable({ type: 'string' }), description: 'The id the action was about.' },
    httpStatus: { type: 'integer' },
    request: { description: 'The request body (JSON, secrets redacted), or null.' },
    before: { description: 'The resource before (JSON, secrets redacted), or null.' },
    after: { description: 'The answer (JSON, secrets redacted), or null.' },
  }),
  MasterKeys: closed({
    currentKeyId: { type: 'string', description: 'The key that seals new secrets.' },
    configuredKeyIds: { type: 'array', items: { type: 'string' } },
    secretsByKeyId: {
      type: 'object',
      additionalProperties: { type: 'integer', minimum: 0 },
      description: 'Stored secrets per key id (`clear`: not sealed).',
    },
  }),
  RotatedSecret: closed({
    clientSecret: { type: 'string', description: 'Shown once.' },
    previousValidUntil: { ...DATE_TIME, description: 'The previous secret (and its tokens) work until then.' },
  }),
};

/** The properties of a component schema, for an answer that shows it with more. */
export function propertiesOf(name: string): Record<string, JsonSchema> {
  const properties = ADMIN_SCHEMAS[name]?.properties;
  if (!properties) throw new TypeError(`no component schema ${name} with properties`);
  return properties as Record<string, JsonSchema>;
}

// `allOf` with a closed schema would refuse clientSecret: the created views are their own schemas.
export const created = (name: string, secret = 'clientSecret', description = 'Shown once, here.'): JsonSchema => {
  const base = ADMIN_SCHEMAS[name] as JsonSchema;
  return {
    ...base,
    required: [...(base.required as string[]), secret],
    properties: { ...(base.properties as object), [secret]: { type: 'string', description } },
  };
};

export const MERCHANT_EXAMPLE = {
  id: 'a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  name: 'Warung Kopi',
  clientKey: '7d0c1f5e-2b3a-4c5d-9e8f-1a2b3c4d5e6f',
  previousValidUntil: null,
  secretVersion: 1,
  partnerId: 'WARUNGKOPI',
  publicKeyPem: null,
  tokenSignature: 'any',
  callbackSignature: 'hmac-sha512',
  callbackJson: 'standard',
  callbackVaBody: 'standard',
  callbackAck: 'strict',
  callbackTokenUrl: null,
  callbackBaseUrl: 'https://merchant.example',
  qrisCallbackUrl: null,
  vaCallbackUrl: null,
  transferCallbackUrl: null,
  merchantName: 'WARUNG KOPI',
  merchantCity: 'BANDUNG',
  nmid: 'ID1020021181745',
  mcc: '5812',
  qrisProvider: null,
  qrisCriteria: 'UMI',
  fees: null,
  retrySchedule: null,
  checkoutFrameAncestors: null,
  payoutAccount: {
    bankCode: '014',
    accountNo: '8880123456',
    accountName: 'Warung Kopi Bandung',
    verifiedName: 'WARUNG KOPI BANDUNG',
    verifiedAt: T,
  },
  payoutSchedule: 'manual',
  limits: null,
  status: 'active',
  createdAt: T,
  updatedAt: T,
};
const IDR = (value: string) => ({ value, currency: 'IDR' });
export const TRANSACTION_EXAMPLE = {
  referenceNo: '260115123456789012',
  merchantId: MERCHANT_EXAMPLE.id,
  kind: 'qris',
  partnerReferenceNo: 'ORDER-1001',
  status: '00',
  statusDesc: 'Success',
  amount: IDR('25000.00'),
  paidAmount: IDR('25000.00'),
  refundedAmount: IDR('0.00'),
  feeAmount: IDR('0.00'),
  virtualAccountNo: null,
  billNumber: 100000000001,
  expiresAt: '2026-01-15T04:00:00.000Z',
  paidAt: T,
  details: { qrContent: '00020101021226…6304ABCD', terminalId: 'T01' },
  createdAt: T,
  updatedAt: T,
};
export const NOTIFICATION_EXAMPLE = {
  id: '17684476000001234567',
  referenceNo: TRANSACTION_EXAMPLE.referenceNo,
  merchantId: MERCHANT_EXAMPLE.id,
  kind: 'qris',
  state: 'delivered',
  latestTransactionStatus: '00',
  attemptCount: 1,
  nextAttemptAt: null,
  createdAt: T,
  updatedAt: T,
  deliveredAt: T,
  lastError: null,
};

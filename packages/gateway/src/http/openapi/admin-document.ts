import { TRANSACTION_STATUS } from '@snapgate/snap';
import {
  merchantCreateSchema as merchantCreate,
  merchantPatchSchema as merchantPatch,
  merchantViewSchema,
} from '../../merchants/merchant-fields.ts';
import {
  providerCreateSchema as providerCreate,
  providerPatchSchema as providerPatch,
  providerViewSchema,
} from '../../providers/provider-fields.ts';
import { requiredScope } from '../admin-auth.ts';
import { idParams, listQuery, rotateSchema } from '../admin-body.ts';
import { adminKeyCreateSchema, auditQuery } from '../routes/admin-access.ts';
import { certifyBody } from '../routes/admin-certifications.ts';
import { listQuery as notificationQuery, recoverBody, reportQuery } from '../routes/admin-notifications.ts';
import { listQuery as transactionQuery } from '../routes/admin-transactions.ts';
import type { MetricsAccess } from '../routes/health.ts';
import { qrisPay, qrisScan, vaPay } from '../routes/sandbox.ts';
import {
  closed,
  type Example,
  fromZod,
  HTTP_METHODS,
  type JsonSchema,
  json,
  nullable,
  OAS_DIALECT,
  type OpenApiDocument,
  type Operation,
  type Parameter,
  type PathItem,
  pathParameter,
  queryParameters,
  type Response,
  ref,
} from './kit.ts';

// The admin API. Request bodies and queries are generated from the very zod schemas the routes
// parse with, so they cannot drift; responses are described here and proven by
// test/http/openapi.test.ts against the running gateway.

const ADMIN = '/admin/v1';
const TAG = {
  merchants: 'Merchants',
  transactions: 'Transactions',
  notifications: 'Notifications',
  providers: 'Providers',
  sandbox: 'Sandbox',
  access: 'Admin keys and audit',
  operations: 'Operations',
} as const;

const DATE_TIME: JsonSchema = { type: 'string', format: 'date-time' };
const T = '2026-01-15T03:30:00.000Z';

const STATUS_TITLE: Record<string, string> = {
  '400': 'Bad Request',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'Not Found',
  '409': 'Conflict',
  '413': 'Content Too Large',
  '500': 'Internal Server Error',
};

const problemExample = (status: string, detail: string, errors?: string[]): Record<string, Example> => ({
  example: {
    value: {
      type: 'about:blank',
      title: STATUS_TITLE[status],
      status: Number(status),
      detail,
      ...(errors ? { errors } : {}),
    },
  },
});

function problem(status: string, description: string, example: Record<string, Example>): Response {
  return {
    description,
    content: json(
      { ...ref('Problem'), properties: { status: { const: Number(status) } } },
      example,
      'application/problem+json',
    ),
  };
}

const UNAUTHORIZED = problem(
  '401',
  'No admin key, an unknown one, or a revoked one.',
  problemExample('401', 'a valid admin key is required (Authorization: Bearer <key>)'),
);
const SERVER_ERROR = problem('500', 'Unexpected failure (logged; no detail is sent).', {
  example: { value: { type: 'about:blank', title: 'Internal Server Error', status: 500 } },
});
const TOO_LARGE = problem('413', 'The body is over 64 KiB.', problemExample('413', 'Request body is too large'));
const badRequest = (description: string, errors = ['name: Too small: expected string to have >=1 characters']) =>
  problem('400', description, problemExample('400', 'invalid request body', errors));
const notFound = (what: string) => problem('404', `No such ${what}.`, problemExample('404', `${what} not found`));
const conflict = (description: string, detail: string) => problem('409', description, problemExample('409', detail));
const BAD_QUERY = problem(
  '400',
  'A query parameter is invalid, or unknown: every problem is listed in `errors`.',
  problemExample('400', 'invalid query', ['limit: Too small: expected number to be >=1']),
);
const BAD_PATH = problem(
  '400',
  'The id is over 64 characters.',
  problemExample('400', 'invalid path', ['id: Too big: expected string to have <=64 characters']),
);

const BAD_TEXT = problem(
  '400',
  'A path parameter or query value holds a control character or an unpaired surrogate.',
  problemExample('400', 'invalid query', ['cursor: control characters and unpaired surrogates are not allowed']),
);

const FORBIDDEN = problem(
  '403',
  'The admin key’s scope does not cover this operation.',
  problemExample('403', 'the key reader has the read scope; this needs admin'),
);

/** An admin operation, with the refusals every admin route shares. */
function op(o: Omit<Operation, 'responses'> & { responses: Record<string, Response> }): Operation {
  return { ...o, responses: { '400': BAD_TEXT, ...o.responses, '401': UNAUTHORIZED, '500': SERVER_ERROR } };
}

/**
 * Every /admin/v1 operation takes an admin key whose scope covers it: the scope is the one the
 * auth hook itself asks (`requiredScope`). A write can also be refused for its scope (403) and for
 * a body over 64 KiB (413).
 */
function scoped(paths: Record<string, PathItem>): Record<string, PathItem> {
  const out: Record<string, PathItem> = {};
  for (const [path, item] of Object.entries(paths)) {
    const scopedItem: PathItem = {};
    for (const method of HTTP_METHODS) {
      const o = item[method];
      if (!o) continue;
      const scope = requiredScope(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'));
      scopedItem[method] = {
        ...o,
        description: [o.description, `Scope: \`${scope}\`.`].filter(Boolean).join('\n\n'),
        security: [{ adminKey: [scope] }],
        responses: {
          ...o.responses,
          ...(scope === 'read' ? {} : { '403': FORBIDDEN }),
          ...(method === 'get' ? {} : { '413': TOO_LARGE }),
        },
      };
    }
    out[path] = scopedItem;
  }
  return out;
}

function body(schema: JsonSchema, example: unknown, options: { optional?: boolean; description?: string } = {}) {
  return {
    required: !options.optional,
    description: [
      'JSON (`Content-Type: application/json`); unknown fields are refused.',
      options.optional ? 'May be empty.' : '',
      options.description ?? '',
    ]
      .filter(Boolean)
      .join(' '),
    content: json(schema, { example: { value: example } }),
  };
}

const ok = (description: string, schema: JsonSchema, example?: unknown, status = '200'): Record<string, Response> => ({
  [status]: { description, content: json(schema, example === undefined ? {} : { example: { value: example } }) },
});

const page = (item: string): JsonSchema =>
  closed({
    items: { type: 'array', items: ref(item) },
    nextCursor: {
      ...nullable({ type: 'string' }),
      description: 'Pass as `cursor` for the next page; null at the end.',
    },
  });

const LIST_DESCRIPTIONS = {
  limit: 'Page size.',
  cursor: 'The `nextCursor` of the previous page.',
  merchantId: 'Only this merchant’s.',
  referenceNo: 'Only this transaction’s.',
};

const idParam = (what: string): Parameter => pathParameter(idParams, 'id', `The ${what}’s id.`);
const textParam = (name: string, description: string): Parameter => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: { type: 'string' },
});

const MERCHANT_EXAMPLE = {
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
  callbackTokenUrl: null,
  callbackBaseUrl: 'https://merchant.example',
  qrisCallbackUrl: null,
  vaCallbackUrl: null,
  merchantName: 'WARUNG KOPI',
  merchantCity: 'BANDUNG',
  nmid: 'ID1020021181745',
  mcc: '5812',
  qrisProvider: null,
  retrySchedule: null,
  status: 'active',
  createdAt: T,
  updatedAt: T,
};
const PROVIDER_EXAMPLE = {
  id: 'b4e2d3c5-6f7a-4b8c-9d0e-1f2a3b4c5d6e',
  name: 'Bank Central',
  kind: 'bank',
  bankCode: '014',
  clientKey: '8e1d2f6a-3c4b-4d5e-8f9a-2b3c4d5e6f7a',
  previousValidUntil: null,
  secretVersion: 1,
  publicKeyPem: null,
  outbound: null,
  isSandbox: false,
  status: 'active',
  createdAt: T,
  updatedAt: T,
};
const IDR = (value: string) => ({ value, currency: 'IDR' });
const TRANSACTION_EXAMPLE = {
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
const NOTIFICATION_EXAMPLE = {
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

const money = closed({
  value: { type: 'string', pattern: '^(0|[1-9]\\d{0,15})\\.\\d{2}$' },
  currency: { const: 'IDR' },
});

const MASTER_KEYS = closed({
  currentKeyId: { type: 'string', description: 'The key that seals new secrets.' },
  configuredKeyIds: { type: 'array', items: { type: 'string' } },
  secretsByKeyId: {
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 0 },
    description: 'Stored secrets per key id (`clear`: not sealed).',
  },
});

const SCHEMAS: Record<string, JsonSchema> = {
  Problem: {
    type: 'object',
    required: ['type', 'title', 'status'],
    properties: {
      type: { const: 'about:blank' },
      title: { type: 'string' },
      status: { type: 'integer', minimum: 400, maximum: 599 },
      detail: { type: 'string' },
      errors: { type: 'array', items: { type: 'string' }, description: 'Every problem found, each naming its field.' },
      responseCode: { type: 'string', description: 'Sandbox payments: the SNAP code the provider path answered.' },
      responseMessage: { type: 'string', description: 'Sandbox payments: the SNAP message.' },
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
    referenceNo: { type: 'string' },
    merchantId: { type: 'string' },
    kind: { enum: ['qris', 'va'] },
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
    kind: { enum: ['qris', 'va'] },
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
    scope: { enum: ['read', 'operate', 'admin'] },
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
  MasterKeys: MASTER_KEYS,
  RotatedSecret: closed({
    clientSecret: { type: 'string', description: 'Shown once.' },
    previousValidUntil: { ...DATE_TIME, description: 'The previous secret (and its tokens) work until then.' },
  }),
};

// `allOf` with a closed schema would refuse clientSecret: the created views are their own schemas.
const created = (name: string, secret = 'clientSecret', description = 'Shown once, here.'): JsonSchema => {
  const base = SCHEMAS[name] as JsonSchema;
  return {
    ...base,
    required: [...(base.required as string[]), secret],
    properties: { ...(base.properties as object), [secret]: { type: 'string', description } },
  };
};

const PAYER_FIELDS = {
  payerName: 'Default `SANDBOX PAYER`.',
  payerIssuer: 'Default `93600009`.',
  payerRefId: 'Default: random digits.',
};

const PATCH_NOTE = 'At least one field is required. `null` clears a nullable setting.';

function merchantPaths(): Record<string, PathItem> {
  return {
    [`${ADMIN}/merchants`]: {
      post: op({
        operationId: 'createMerchant',
        tags: [TAG.merchants],
        summary: 'Create a merchant',
        description: 'Answers the merchant with its client secret, shown this once.',
        requestBody: body(fromZod(merchantCreate), {
          name: 'Warung Kopi',
          callbackBaseUrl: 'https://merchant.example',
          merchantName: 'WARUNG KOPI',
          merchantCity: 'BANDUNG',
          mcc: '5812',
        }),
        responses: {
          ...ok('Created.', ref('CreatedMerchant'), { ...MERCHANT_EXAMPLE, clientSecret: 'q3J5…base64url' }, '201'),
          '400': badRequest('Invalid settings: every problem is listed in `errors`.'),
          '409': conflict('The partnerId is taken.', 'partnerId WARUNGKOPI is already in use'),
        },
      }),
      get: op({
        operationId: 'listMerchants',
        tags: [TAG.merchants],
        summary: 'List merchants',
        parameters: queryParameters(listQuery, LIST_DESCRIPTIONS),
        responses: {
          ...ok('A page of merchants.', page('Merchant'), { items: [MERCHANT_EXAMPLE], nextCursor: null }),
          '400': BAD_QUERY,
        },
      }),
    },
    [`${ADMIN}/merchants/{id}`]: {
      get: op({
        operationId: 'getMerchant',
        tags: [TAG.merchants],
        summary: 'Show a merchant',
        parameters: [idParam('merchant')],
        responses: {
          ...ok('The merchant.', ref('Merchant'), MERCHANT_EXAMPLE),
          '400': BAD_PATH,
          '404': notFound('merchant'),
        },
      }),
      patch: op({
        operationId: 'updateMerchant',
        tags: [TAG.merchants],
        summary: 'Change a merchant’s settings, or disable it',
        description: 'Disabling a merchant refuses its tokens at once.',
        parameters: [idParam('merchant')],
        requestBody: body(fromZod(merchantPatch), { callbackSignature: 'rsa-sha256' }, { description: PATCH_NOTE }),
        responses: {
          ...ok('The merchant as changed.', ref('Merchant'), MERCHANT_EXAMPLE),
          '400': badRequest('Invalid settings, or none given.', ['at least one field is required']),
          '404': notFound('merchant'),
          '409': conflict('The partnerId is taken.', 'partnerId WARUNGKOPI is already in use'),
        },
      }),
    },
    [`${ADMIN}/merchants/{id}/rotate-secret`]: {
      post: op({
        operationId: 'rotateMerchantSecret',
        tags: [TAG.merchants],
        summary: 'Rotate a merchant’s client secret',
        description: 'The previous secret, and tokens issued under it, keep working for `overlapSec` (default 86400).',
        parameters: [idParam('merchant')],
        requestBody: body(
          fromZod(rotateSchema, { overlapSec: 'Seconds the previous secret keeps working (default 86400).' }),
          { overlapSec: 3600 },
          { optional: true },
        ),
        responses: {
          ...ok('The new secret, shown once.', ref('RotatedSecret'), {
            clientSecret: 'Zk9…base64url',
            previousValidUntil: T,
          }),
          '400': badRequest('Invalid body.', ['overlapSec: Too big: expected number to be <=2592000']),
          '404': notFound('merchant'),
        },
      }),
    },
    [`${ADMIN}/merchants/{id}/portal-link`]: {
      post: op({
        operationId: 'createMerchantPortalLink',
        tags: [TAG.merchants],
        summary: 'Create a merchant portal sign-in link',
        description:
          'A short-lived (15 minutes) signed link that signs the merchant in to its own portal at `/console/portal` (docs/console.md). Anyone holding the link can sign in as the merchant until it expires; the audit log records that a link was made, never the link. No body.',
        parameters: [idParam('merchant')],
        responses: {
          ...ok(
            'The link and when it expires.',
            {
              type: 'object',
              required: ['url', 'expiresAt'],
              additionalProperties: false,
              properties: {
                url: { type: 'string', format: 'uri', description: 'The sign-in link (a credential).' },
                expiresAt: { type: 'string', format: 'date-time' },
              },
            },
            {
              url: 'https://gateway.example/console/portal/enter?token=eyJ0IjoicG9ydGFsIn0.c2lnbmF0dXJl',
              expiresAt: T,
            },
            '201',
          ),
          '404': notFound('merchant'),
          '409': conflict('The merchant is disabled.', 'the merchant is disabled'),
        },
      }),
    },
    [`${ADMIN}/merchants/{id}/recover`]: {
      post: op({
        operationId: 'recoverNotifications',
        tags: [TAG.notifications],
        summary: 'Send a merchant’s dead notifications again',
        description: 'Every `dead` notification of the merchant created since `since` goes back to `pending`.',
        parameters: [textParam('id', 'The merchant’s id.')],
        requestBody: body(
          fromZod(recoverBody, { since: 'Dead notifications created since then, ISO 8601 with a zone.' }),
          { since: '2026-01-14T00:00:00+07:00' },
        ),
        responses: {
          ...ok('How many were recovered.', closed({ recovered: { type: 'integer', minimum: 0 } }), { recovered: 3 }),
          '400': badRequest('Invalid body.', ['since: Invalid ISO datetime']),
          '404': notFound('merchant'),
        },
      }),
    },
  };
}

function transactionPaths(): Record<string, PathItem> {
  return {
    [`${ADMIN}/transactions`]: {
      get: op({
        operationId: 'listTransactions',
        tags: [TAG.transactions],
        summary: 'List transactions',
        description: 'Newest first.',
        parameters: queryParameters(transactionQuery, { ...LIST_DESCRIPTIONS, status: 'Only in this status.' }),
        responses: {
          ...ok('A page of transactions.', page('Transaction'), { items: [TRANSACTION_EXAMPLE], nextCursor: null }),
          '400': BAD_QUERY,
        },
      }),
    },
    [`${ADMIN}/transactions/{referenceNo}`]: {
      get: op({
        operationId: 'getTransaction',
        tags: [TAG.transactions],
        summary: 'Show a transaction, its history and its notifications',
        parameters: [textParam('referenceNo', 'snapgate’s reference.')],
        responses: {
          ...ok(
            'The transaction.',
            closed({
              ...(SCHEMAS.Transaction?.properties as Record<string, JsonSchema>),
              statusHistory: { type: 'array', items: ref('StatusChange') },
              notifications: { type: 'array', items: ref('Notification') },
            }),
            {
              ...TRANSACTION_EXAMPLE,
              statusHistory: [
                { seq: 1, status: '01', statusDesc: 'Initiated', reason: null, changedAt: T },
                { seq: 2, status: '00', statusDesc: 'Success', reason: 'notified by acquirer', changedAt: T },
              ],
              notifications: [NOTIFICATION_EXAMPLE],
            },
          ),
          '404': notFound('transaction'),
        },
      }),
    },
  };
}

function notificationPaths(): Record<string, PathItem> {
  return {
    [`${ADMIN}/notifications`]: {
      get: op({
        operationId: 'listNotifications',
        tags: [TAG.notifications],
        summary: 'List notifications (the callback outbox)',
        parameters: queryParameters(notificationQuery, { ...LIST_DESCRIPTIONS, state: 'Only in this delivery state.' }),
        responses: {
          ...ok('A page of notifications.', page('Notification'), { items: [NOTIFICATION_EXAMPLE], nextCursor: null }),
          '400': BAD_QUERY,
        },
      }),
    },
    [`${ADMIN}/notifications/{id}`]: {
      get: op({
        operationId: 'getNotification',
        tags: [TAG.notifications],
        summary: 'Show a notification and every delivery attempt',
        parameters: [textParam('id', 'The notification’s id.')],
        responses: {
          ...ok(
            'The notification.',
            closed({
              ...(SCHEMAS.Notification?.properties as Record<string, JsonSchema>),
              body: { type: 'string', description: 'The exact bytes signed and sent.' },
              attempts: { type: 'array', items: ref('DeliveryAttempt') },
            }),
          ),
          '404': notFound('notification'),
        },
      }),
    },
    [`${ADMIN}/notifications/{id}/replay`]: {
      post: op({
        operationId: 'replayNotification',
        tags: [TAG.notifications],
        summary: 'Send a notification again',
        description:
          'Queues the same body again, with the same `X-EXTERNAL-ID`. Only the newest notification of a transaction can be replayed: a merchant must never see an older status after a newer.',
        parameters: [textParam('id', 'The notification’s id.')],
        responses: {
          ...ok('Queued.', ref('Notification'), { ...NOTIFICATION_EXAMPLE, state: 'pending' }, '202'),
          '404': notFound('notification'),
          '409': conflict(
            'A newer notification exists for the transaction, or this one is being delivered right now.',
            'the notification is being delivered right now',
          ),
        },
      }),
    },
    [`${ADMIN}/reports/undelivered`]: {
      get: op({
        operationId: 'undeliveredReport',
        tags: [TAG.notifications],
        summary: 'Notifications not delivered yet',
        description: 'Every notification not delivered (nor superseded), oldest first; `nextCursor` is always null.',
        parameters: queryParameters(reportQuery, LIST_DESCRIPTIONS),
        responses: {
          ...ok('The undelivered notifications.', page('Notification'), { items: [], nextCursor: null }),
          '400': BAD_QUERY,
        },
      }),
    },
  };
}

function providerPaths(): Record<string, PathItem> {
  return {
    [`${ADMIN}/providers`]: {
      post: op({
        operationId: 'createProvider',
        tags: [TAG.providers],
        summary: 'Connect a bank or an acquirer',
        description:
          'A bank owns the VAs of its `bankCode`; an acquirer notifies QRIS payments, and with `outbound` settings issues the QRIS of the merchants that name it. Answers its client secret, shown this once.',
        requestBody: body(fromZod(providerCreate), {
          name: 'Bank Central',
          kind: 'bank',
          bankCode: '014',
        }),
        responses: {
          ...ok('Created.', ref('CreatedProvider'), { ...PROVIDER_EXAMPLE, clientSecret: 'p7Q…base64url' }, '201'),
          '400': badRequest('Invalid settings: every problem is listed in `errors`.', ['bankCode: must be 3 digits']),
          '409': conflict(
            'An active bank already owns the bankCode.',
            'bankCode 014 already belongs to an active bank',
          ),
        },
      }),
      get: op({
        operationId: 'listProviders',
        tags: [TAG.providers],
        summary: 'List providers',
        description: 'The built-in sandbox bank and acquirer are listed too (sandbox mode).',
        parameters: queryParameters(listQuery, LIST_DESCRIPTIONS),
        responses: {
          ...ok('A page of providers.', page('Provider'), { items: [PROVIDER_EXAMPLE], nextCursor: null }),
          '400': BAD_QUERY,
        },
      }),
    },
    [`${ADMIN}/providers/{id}`]: {
      get: op({
        operationId: 'getProvider',
        tags: [TAG.providers],
        summary: 'Show a provider',
        parameters: [idParam('provider')],
        responses: {
          ...ok('The provider.', ref('Provider'), PROVIDER_EXAMPLE),
          '400': BAD_PATH,
          '404': notFound('provider'),
        },
      }),
      patch: op({
        operationId: 'updateProvider',
        tags: [TAG.providers],
        summary: 'Change a provider’s settings, or disable it',
        parameters: [idParam('provider')],
        requestBody: body(fromZod(providerPatch), { status: 'disabled' }, { description: PATCH_NOTE }),
        responses: {
          ...ok('The provider as changed.', ref('Provider'), PROVIDER_EXAMPLE),
          '400': badRequest('Invalid settings, or none given.', ['at least one field is required']),
          '404': notFound('provider'),
          '409': conflict(
            'An active bank already owns the bankCode.',
            'bankCode 014 already belongs to an active bank',
          ),
        },
      }),
    },
    [`${ADMIN}/providers/{id}/rotate-secret`]: {
      post: op({
        operationId: 'rotateProviderSecret',
        tags: [TAG.providers],
        summary: 'Rotate a provider’s client secret',
        description: 'The previous secret keeps working for `overlapSec` (default 86400).',
        parameters: [idParam('provider')],
        requestBody: body(
          fromZod(rotateSchema, { overlapSec: 'Seconds the previous secret keeps working (default 86400).' }),
          { overlapSec: 3600 },
          { optional: true },
        ),
        responses: {
          ...ok('The new secret, shown once.', ref('RotatedSecret'), {
            clientSecret: 'Zk9…base64url',
            previousValidUntil: T,
          }),
          '400': badRequest('Invalid body.', ['overlapSec: Too big: expected number to be <=2592000']),
          '404': notFound('provider'),
        },
      }),
    },
    [`${ADMIN}/providers/{id}/inbound`]: {
      get: op({
        operationId: 'listInboundCalls',
        tags: [TAG.providers],
        summary: 'The provider’s calls, as answered',
        description: 'Every SNAP call the provider made that got past its token, newest first.',
        parameters: [idParam('provider'), ...queryParameters(listQuery, LIST_DESCRIPTIONS)],
        responses: {
          ...ok('A page of calls.', page('InboundCall')),
          '400': BAD_QUERY,
          '404': notFound('provider'),
        },
      }),
    },
  };
}

const REFUSED = (what: string) =>
  problem('400', `${what}, or the provider path refused the payment (400 with its SNAP code).`, {
    example: {
      value: {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'invalid request body',
        errors: ['status: Invalid option: expected one of "00"|"01"|"02"|"03"|"06"'],
      },
    },
  });
const PROVIDER_REFUSAL = (status: string, description: string, responseCode: string, responseMessage: string) =>
  problem(status, description, {
    example: {
      value: {
        type: 'about:blank',
        title: responseMessage,
        status: Number(status),
        detail: responseMessage,
        responseCode,
        responseMessage,
      },
    },
  });

function sandboxPaths(): Record<string, PathItem> {
  const sandbox = (o: Omit<Operation, 'responses' | 'tags'> & { responses: Record<string, Response> }) =>
    op({ ...o, tags: [TAG.sandbox] });
  const view = ok('The transaction after the payment.', ref('Transaction'), TRANSACTION_EXAMPLE);
  return {
    [`${ADMIN}/sandbox/qris/{referenceNo}/pay`]: {
      post: sandbox({
        operationId: 'sandboxPayQris',
        summary: 'Pay a QRIS (sandbox)',
        description:
          'The sandbox acquirer notifies the gateway over HTTP, exactly as a real acquirer would (`qr-mpm-notify`). `status` 01 only sends the current notification again.',
        parameters: [textParam('referenceNo', 'The QRIS `referenceNo`.')],
        requestBody: body(
          fromZod(qrisPay, {
            ...PAYER_FIELDS,
            status:
              'What the payer did: 00 paid (default), 02 paying, 03 pending, 06 failed; 01 re-sends the current notification.',
          }),
          { status: '00', payerName: 'ANI' },
          { optional: true },
        ),
        responses: {
          ...view,
          '400': REFUSED('Invalid body'),
          '404': PROVIDER_REFUSAL(
            '404',
            'No such QRIS, or the provider path did not find it.',
            '4045201',
            'Transaction Not Found',
          ),
          '409': conflict(
            'The transaction’s status cannot change to that one.',
            'a transaction in status 05 (Canceled) cannot change to 00 (Success)',
          ),
        },
      }),
    },
    [`${ADMIN}/sandbox/qris/pay`]: {
      post: sandbox({
        operationId: 'sandboxScanQris',
        summary: 'Pay a QRIS by its content (sandbox)',
        description: 'As a payer’s app would: the QRIS is found by its `qrContent` (its CRC must match).',
        requestBody: body(
          fromZod(qrisScan, {
            ...PAYER_FIELDS,
            status: 'As for payment by reference.',
            qrContent: 'The QR payload, as scanned.',
          }),
          { qrContent: '00020101021226…6304ABCD' },
        ),
        responses: {
          ...view,
          '400': REFUSED('Invalid body'),
          '404': notFound('QRIS transaction for that qrContent (or its CRC does not match)'),
          '409': conflict(
            'The transaction’s status cannot change to that one.',
            'a transaction in status 05 (Canceled) cannot change to 00 (Success)',
          ),
        },
      }),
    },
    [`${ADMIN}/sandbox/va/{virtualAccountNo}/pay`]: {
      post: sandbox({
        operationId: 'sandboxPayVa',
        summary: 'Pay a Virtual Account (sandbox)',
        description:
          'The sandbox bank asks for the bill (`transfer-va/inquiry`) and flags the payment (`transfer-va/payment`) over HTTP, exactly as a real bank would. Only VAs of a bank code no bank is registered with belong to the sandbox bank.',
        parameters: [textParam('virtualAccountNo', 'The VA number, URL-encoded (it may start with spaces).')],
        requestBody: body(
          fromZod(vaPay, { ...PAYER_FIELDS, amount: 'Default: the bill’s amount.' }),
          { amount: '150000.00' },
          { optional: true, description: '`amount` defaults to the bill.' },
        ),
        responses: {
          ...view,
          '400': REFUSED('Invalid body'),
          '404': PROVIDER_REFUSAL(
            '404',
            'The provider path refused it: unknown VA (`4042412`), paid (`4042414`), expired (`4042419`), wrong amount (`4042513`), …',
            '4042412',
            'Invalid Bill/Virtual Account [Not Found]',
          ),
          '409': conflict('The VA changed meanwhile.', 'the VA changed during the payment'),
        },
      }),
    },
  };
}

// Webhook certification (sandbox mode): http/routes/admin-certifications.ts.
const CERTIFICATION_SCENARIO: JsonSchema = {
  type: 'object',
  required: ['group', 'id', 'title', 'kind', 'passed', 'reason', 'durationMs'],
  properties: {
    group: { type: 'string', description: '`qris`, `va`, `robustness` (true content) or `security` (forgeries).' },
    id: { type: 'string', description: 'The scenario, e.g. `wrong-signature`.' },
    title: { type: 'string' },
    kind: {
      enum: ['positive', 'negative'],
      description: '`positive`: must be acknowledged; `negative`: must be refused.',
    },
    passed: { type: 'boolean' },
    reason: { type: 'string', description: 'Why it failed, in plain words; `passed` when it passed.' },
    durationMs: { type: 'integer' },
    request: { type: 'object', description: 'The exact request sent: method, url, path, headers, body.' },
    response: { type: 'object', description: 'The answer: status (0 when none came), body.' },
  },
};
const CERTIFICATION_REPORT: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'merchantId',
    'suite',
    'target',
    'startedAt',
    'finishedAt',
    'ok',
    'total',
    'passed',
    'failed',
    'results',
    'transactions',
  ],
  properties: {
    id: { type: 'string' },
    merchantId: { type: 'string' },
    suite: { const: 'webhook-certification' },
    target: { type: 'string' },
    startedAt: DATE_TIME,
    finishedAt: DATE_TIME,
    durationMs: { type: 'integer' },
    ok: { type: 'boolean', description: 'True when every scenario passed.' },
    total: { type: 'integer' },
    passed: { type: 'integer' },
    failed: { type: 'integer' },
    results: { type: 'array', items: CERTIFICATION_SCENARIO },
    transactions: {
      type: 'array',
      description: 'The sandbox transactions certified with, as they ended: a QRIS paid, a QRIS failed, a VA paid.',
      items: {
        type: 'object',
        required: ['role', 'referenceNo', 'partnerReferenceNo', 'kind', 'status'],
        properties: {
          role: { enum: ['qris-paid', 'qris-failed', 'va-paid'] },
          referenceNo: { type: 'string' },
          partnerReferenceNo: { type: 'string' },
          kind: { enum: ['qris', 'va'] },
          status: { type: 'string' },
        },
      },
    },
  },
};
const CERTIFICATION_SUMMARY = closed({
  id: { type: 'string' },
  merchantId: { type: 'string' },
  startedAt: DATE_TIME,
  finishedAt: DATE_TIME,
  passed: { type: 'boolean', description: 'True when every scenario passed.' },
});
const CERTIFICATION_EXAMPLE = {
  id: '5b8e2f4a-1c3d-4e5f-8a9b-0c1d2e3f4a5b',
  merchantId: MERCHANT_EXAMPLE.id,
  startedAt: T,
  finishedAt: T,
  passed: false,
};
const CERTIFICATION_REPORT_EXAMPLE = {
  suite: 'webhook-certification',
  target: `merchant ${MERCHANT_EXAMPLE.id} (https://shop.example/webhook/payment-qr-notification, https://shop.example/webhook/payment-va-notification)`,
  startedAt: T,
  durationMs: 412,
  total: 14,
  passed: 13,
  failed: 1,
  ok: false,
  results: [
    {
      group: 'security',
      id: 'wrong-signature',
      title: 'a forged notification that a failed QRIS was paid: a wrong signature',
      kind: 'negative',
      passed: false,
      reason: 'your endpoint accepted a callback with a forged signature: anyone can mark your orders paid',
      durationMs: 12,
    },
  ],
  id: CERTIFICATION_EXAMPLE.id,
  merchantId: MERCHANT_EXAMPLE.id,
  finishedAt: T,
  transactions: [
    { role: 'qris-paid', referenceNo: 'QR2601151030000001', partnerReferenceNo: 'order-1', kind: 'qris', status: '00' },
  ],
};

function certificationPaths(): Record<string, PathItem> {
  const unprocessable: Response = {
    description:
      'It cannot run: the merchant has no callback URL, lacks two unpaid QRIS and an unpaid VA (create them from its own system, or send `create: true`), or a transaction named is not its own or not unpaid.',
    content: json(
      { ...ref('Problem'), properties: { status: { const: 422 } } },
      {
        example: {
          value: {
            type: 'about:blank',
            title: 'Unprocessable Content',
            status: 422,
            detail: `merchant ${MERCHANT_EXAMPLE.id} lacks an unpaid VA: create two QRIS and one VA from your own system first (so it knows the orders), or certify with create: true`,
          },
        },
      },
      'application/problem+json',
    ),
  };
  return {
    [`${ADMIN}/merchants/{id}/certifications`]: {
      post: op({
        operationId: 'certifyMerchant',
        tags: [TAG.merchants],
        summary: 'Certify a merchant’s callback endpoint (sandbox)',
        description:
          'Sandbox mode only. Pays one unpaid QRIS (03, then 00), fails another (06) and pays an unpaid VA (00) through real status changes, sending each true notification to the merchant’s callback URLs, then variants it must acknowledge (a repeat, unknown fields, PHP escapes, a charset) and forgeries it must refuse (wrong signature, another body’s signature, another merchant’s secret, a 10-minute-old timestamp, another X-PARTNER-ID, no signature, another key for `rsa-sha256`). Default transactions: the merchant’s newest unpaid ones. The run is stored.',
        parameters: [idParam('merchant')],
        requestBody: body(
          fromZod(certifyBody, {
            qris: 'Two unpaid QRIS referenceNos: the first is paid, the second fails. Default: the newest two.',
            va: 'An unpaid VA (referenceNo or virtual account number). Default: the newest.',
            create: 'Create the transactions itself (the merchant does not know their orders).',
          }),
          {},
          { optional: true },
        ),
        responses: {
          ...ok(
            'The run, stored: `ok` says whether every scenario passed.',
            CERTIFICATION_REPORT,
            CERTIFICATION_REPORT_EXAMPLE,
            '201',
          ),
          '400': badRequest('Invalid body: every problem is listed in `errors`.', [
            'qris: Too small: expected array to have >=2 items',
          ]),
          '404': notFound('merchant'),
          '409': conflict(
            'Production mode: certification pays and fails transactions, so it runs only in sandbox mode.',
            'webhook certification runs only in sandbox mode: it pays and fails transactions',
          ),
          '422': unprocessable,
        },
      }),
      get: op({
        operationId: 'listCertifications',
        tags: [TAG.merchants],
        summary: 'A merchant’s certification runs, newest first',
        parameters: [idParam('merchant')],
        responses: {
          ...ok(
            'The runs, without their reports.',
            closed({ items: { type: 'array', items: CERTIFICATION_SUMMARY } }),
            { items: [CERTIFICATION_EXAMPLE] },
          ),
          '400': BAD_PATH,
          '404': notFound('merchant'),
        },
      }),
    },
    [`${ADMIN}/certifications/{id}`]: {
      get: op({
        operationId: 'getCertification',
        tags: [TAG.merchants],
        summary: 'One certification run, with its report',
        parameters: [idParam('certification')],
        responses: {
          ...ok(
            'The run and its report.',
            {
              ...CERTIFICATION_SUMMARY,
              required: [...(CERTIFICATION_SUMMARY.required as string[]), 'report'],
              properties: {
                ...(CERTIFICATION_SUMMARY.properties as Record<string, JsonSchema>),
                report: CERTIFICATION_REPORT,
              },
            },
            { ...CERTIFICATION_EXAMPLE, report: CERTIFICATION_REPORT_EXAMPLE },
          ),
          '400': BAD_PATH,
          '404': notFound('certification'),
        },
      }),
    },
  };
}

function healthPaths(metrics: MetricsAccess): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {
    '/healthz': {
      get: {
        operationId: 'healthz',
        tags: [TAG.operations],
        summary: 'Liveness',
        description: 'The process answers. No authentication.',
        security: [],
        responses: ok('Alive.', closed({ status: { const: 'ok' } }), { status: 'ok' }),
      },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        tags: [TAG.operations],
        summary: 'Readiness',
        description: 'The store answers. No authentication.',
        security: [],
        responses: {
          ...ok('Ready.', closed({ status: { const: 'ready' }, store: { enum: ['sqlite', 'postgres'] } }), {
            status: 'ready',
            store: 'sqlite',
          }),
          ...ok(
            'The store does not answer.',
            closed({ status: { const: 'unavailable' }, store: { enum: ['sqlite', 'postgres'] } }),
            { status: 'unavailable', store: 'postgres' },
            '503',
          ),
        },
      },
    },
  };
  if (metrics === 'elsewhere') return paths;
  const guarded = metrics === 'admin-key';
  paths['/metrics'] = {
    get: {
      operationId: 'metrics',
      tags: [TAG.operations],
      summary: 'Prometheus metrics',
      description: `Process metrics, \`snapgate_snap_requests_total\` by operation and responseCode, request latency, and callback delivery. ${
        guarded
          ? 'Production mode: an admin key (scope `read`) is needed. `SNAPGATE_METRICS_PORT` serves it on a port of its own instead, without a key.'
          : 'Sandbox mode: no authentication.'
      }`,
      security: guarded ? [{ adminKey: ['read'] }] : [],
      responses: {
        '200': {
          description: 'Prometheus text exposition format.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        ...(guarded ? { '401': UNAUTHORIZED } : {}),
      },
    },
  };
  return paths;
}

const ADMIN_KEY_EXAMPLE = {
  id: 'key_3f9a1c2b4d5e6f70',
  name: 'ops-readonly',
  scope: 'read',
  createdAt: T,
  lastUsedAt: null,
  revokedAt: null,
};
const MASTER_KEYS_EXAMPLE = {
  currentKeyId: 'k1a2b3c4',
  configuredKeyIds: ['k1a2b3c4'],
  secretsByKeyId: { k1a2b3c4: 12 },
};

function accessPaths(): Record<string, PathItem> {
  return {
    [`${ADMIN}/admin-keys`]: {
      post: op({
        operationId: 'createAdminKey',
        tags: [TAG.access],
        summary: 'Create an admin key',
        description:
          'A named key with a scope: `read` (every GET), `operate` (also deliveries and the sandbox), `admin` (everything). The key is shown this once; only its SHA-256 is stored.',
        requestBody: body(
          fromZod(adminKeyCreateSchema, {
            name: 'Unique among admin keys; shown in the audit log.',
            scope: 'What the key may do.',
          }),
          { name: 'ops-readonly', scope: 'read' },
        ),
        responses: {
          ...ok('Created.', ref('CreatedAdminKey'), { ...ADMIN_KEY_EXAMPLE, key: 'sgk_…' }, '201'),
          '400': badRequest('Invalid body.', ['scope: Invalid option: expected one of "read"|"operate"|"admin"']),
          '409': conflict('An admin key of that name exists.', 'an admin key named ops-readonly exists'),
        },
      }),
      get: op({
        operationId: 'listAdminKeys',
        tags: [TAG.access],
        summary: 'List admin keys',
        description: 'Every admin key, revoked ones too; never a key or its hash.',
        responses: ok('The keys.', closed({ items: { type: 'array', items: ref('AdminKey') } }), {
          items: [ADMIN_KEY_EXAMPLE],
        }),
      }),
    },
    [`${ADMIN}/admin-keys/{id}/revoke`]: {
      post: op({
        operationId: 'revokeAdminKey',
        tags: [TAG.access],
        summary: 'Revoke an admin key',
        description: 'Refused at once by every instance. The last admin-scope key cannot be revoked.',
        parameters: [idParam('admin key')],
        responses: {
          ...ok('The key, revoked.', ref('AdminKey'), { ...ADMIN_KEY_EXAMPLE, revokedAt: T }),
          '400': BAD_PATH,
          '404': notFound('admin key'),
          '409': conflict(
            'It is the last admin-scope key.',
            'the last admin key cannot be revoked: create another admin key first',
          ),
        },
      }),
    },
    [`${ADMIN}/audit`]: {
      get: op({
        operationId: 'listAudit',
        tags: [TAG.access],
        summary: 'The audit log',
        description:
          'Every state-changing admin action, newest first: who, from where, what, the resource before and after (secrets redacted), and how it ended.',
        parameters: queryParameters(auditQuery, { ...LIST_DESCRIPTIONS, target: 'Only actions about this id.' }),
        responses: { ...ok('A page of the log.', page('AuditEntry')), '400': BAD_QUERY },
      }),
    },
    [`${ADMIN}/keys`]: {
      get: op({
        operationId: 'masterKeys',
        tags: [TAG.access],
        summary: 'Master keys, and what each seals',
        description:
          'The key sealing new secrets, the keys configured (`SNAPGATE_MASTER_KEY`, `SNAPGATE_MASTER_KEY_PREVIOUS`), and how many stored secrets each seals.',
        responses: ok('The keys.', ref('MasterKeys'), MASTER_KEYS_EXAMPLE),
      }),
    },
    [`${ADMIN}/keys/rotate`]: {
      post: op({
        operationId: 'resealSecrets',
        tags: [TAG.access],
        summary: 'Re-seal every secret under the current master key',
        description:
          'Run once a new `SNAPGATE_MASTER_KEY` is in place, the old one still configured as `SNAPGATE_MASTER_KEY_PREVIOUS`. No body.',
        responses: ok(
          'How many secrets were re-sealed, and the keys after.',
          closed({
            resealed: { type: 'integer', minimum: 0 },
            ...(MASTER_KEYS.properties as Record<string, JsonSchema>),
          }),
          { resealed: 12, ...MASTER_KEYS_EXAMPLE },
        ),
      }),
    },
  };
}

/** The admin API document: everything under /admin/v1 (the sandbox routes only in sandbox mode), and health. */
export function buildAdminDocument(options: {
  publicUrl: string;
  sandbox: boolean;
  metrics: MetricsAccess;
}): OpenApiDocument {
  const tags = [
    { name: TAG.merchants, description: 'Merchants: SNAP clients, their secrets and their callback settings.' },
    { name: TAG.transactions, description: 'QRIS and Virtual Account transactions, with their history.' },
    { name: TAG.notifications, description: 'The callback outbox: what was sent to merchants, and sending it again.' },
    { name: TAG.providers, description: 'Banks and acquirers that call the SNAP provider API.' },
    ...(options.sandbox
      ? [
          {
            name: TAG.sandbox,
            description: 'The payer’s side, in sandbox mode only: pay through the real provider path.',
          },
        ]
      : []),
    {
      name: TAG.access,
      description: 'Who may use the admin API, what they did, and the keys that seal secrets at rest.',
    },
    { name: TAG.operations, description: 'Health and metrics.' },
  ];
  return {
    openapi: '3.1.1',
    info: {
      title: 'snapgate admin API',
      version: 'v1',
      summary: 'Operate a snapgate gateway: merchants, providers, transactions, callbacks.',
      description: [
        'Every `/admin/v1` call needs `Authorization: Bearer <admin key>`, with a scope that covers it: `read` for every GET, `operate` also for deliveries (replay, recover) and the sandbox, `admin` for everything. `SNAPGATE_ADMIN_TOKEN` is the `bootstrap` key, of scope `admin`. Every state-changing call is written to the audit log.',
        'Bodies are JSON objects (`Content-Type: application/json`); unknown fields and unknown query parameters are refused, and so is text holding a control character (other than tab, line feed, carriage return) or an unpaired surrogate, in a body, a path or a query. Errors are RFC 9457 problem details (`application/problem+json`), listing every problem found in `errors`. An unknown path is 404.',
        'Request bodies and query parameters in this document are generated from the schemas the routes validate with.',
      ].join('\n\n'),
    },
    jsonSchemaDialect: OAS_DIALECT,
    servers: [{ url: options.publicUrl, description: 'This gateway (`SNAPGATE_PUBLIC_URL`).' }],
    tags,
    security: [{ adminKey: [] }],
    paths: {
      ...scoped({
        ...merchantPaths(),
        ...transactionPaths(),
        ...notificationPaths(),
        ...providerPaths(),
        ...accessPaths(),
        ...certificationPaths(),
        ...(options.sandbox ? sandboxPaths() : {}),
      }),
      ...healthPaths(options.metrics),
    },
    components: {
      schemas: {
        ...SCHEMAS,
        CreatedMerchant: created('Merchant'),
        CreatedProvider: created('Provider'),
        CreatedAdminKey: created('AdminKey', 'key', 'The key itself: shown this once, here.'),
      },
      securitySchemes: {
        adminKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An admin key: `SNAPGATE_ADMIN_TOKEN` (the `bootstrap` key), or one made with `POST /admin/v1/admin-keys`. The role each operation lists is the scope it needs: `read` < `operate` < `admin`.',
        },
      },
    },
  };
}

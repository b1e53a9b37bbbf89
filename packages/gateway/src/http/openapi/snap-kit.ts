import { SNAP_CASES, type SnapCase, snapError, successCode } from '@snapgate/snap';
import {
  type Example,
  json,
  type Operation,
  type Parameter,
  type PathItem,
  paramRef,
  type Response,
  ref,
  type SecurityRequirement,
} from './kit.ts';

// What every SNAP operation's OpenAPI description is written with: the refusals signed calls
// share (from the one SNAP case table), the signed headers, the security requirements and the
// examples' shared data. Each SNAP route file (http/routes/payments.ts, provider-api.ts, …)
// describes its own routes with these; snap-document.ts assembles them.

/** The SNAP document's tags (their descriptions are in snap-document.ts). */
export const TAG = {
  token: 'Access token',
  qris: 'QRIS',
  va: 'Virtual Account',
  ewallet: 'E-wallet (Direct Debit)',
  transfers: 'Transfer Credit',
  wallet: 'Provider: e-wallet',
  bank: 'Provider: bank',
  acquirer: 'Provider: acquirer',
  public: 'Public resources',
  callbacks: 'Callbacks to the merchant',
} as const;

/** The instants every example is at. */
export const NOW = '2026-01-15T10:30:00+07:00';
export const LATER = '2026-01-15T11:00:00+07:00';

/** A VA's numbers, as the examples show them. */
export const VA_NUMBERS_EXAMPLE = {
  partnerServiceId: ' 9990001',
  customerNo: '000000000001',
  virtualAccountNo: ' 9990001000000000001',
};
/** A VA as answered, as the examples show it. */
export const VA_DATA_EXAMPLE = {
  ...VA_NUMBERS_EXAMPLE,
  virtualAccountName: 'Budi Santoso',
  virtualAccountEmail: '',
  virtualAccountPhone: '',
  trxId: 'INV-2026-0001',
  totalAmount: { value: '150000.00', currency: 'IDR' },
  virtualAccountTrxType: 'C',
  expiredDate: '2026-01-16T10:30:00+07:00',
  additionalInfo: { bankCode: '999', checkoutUrl: 'https://pay.example/pay/3q2-7wEGZ0mJ1y5b_8kQxA' },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  504: 'Gateway Timeout',
};

/** What every signed call can be refused with, before its own checks. */
export const SIGNED: SnapCase[] = [
  'BAD_REQUEST',
  'INVALID_FIELD_FORMAT',
  'INVALID_MANDATORY_FIELD',
  'UNAUTHORIZED',
  'INVALID_TOKEN',
  'CONFLICT',
  'GENERAL_ERROR',
];
/** A merchant's signed call: also rate limited. */
export const MERCHANT: SnapCase[] = [...SIGNED, 'TOO_MANY_REQUESTS'];
/** What a call passed on to an upstream acquirer can fail with besides. */
export const UPSTREAM: SnapCase[] = ['EXTERNAL_SERVER_ERROR', 'TIMEOUT'];

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
export function errorResponses(serviceCode: string, cases: readonly SnapCase[]): Record<string, Response> {
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

/** The headers of a signed call besides the token and the signature (which are security schemes). */
export const SIGNED_HEADERS = [
  paramRef('XTimestamp'),
  paramRef('XPartnerId'),
  paramRef('XExternalId'),
  paramRef('ChannelId'),
];

export const merchantSecurity: SecurityRequirement[] = [{ b2bToken: [], serviceSignature: [] }];
export const providerSecurity: SecurityRequirement[] = [{ providerToken: [], serviceSignature: [] }];

/** A signed SNAP operation: a JSON body in, a SNAP answer out, refused with the listed cases. */
export interface SnapOperation {
  method: 'post' | 'put' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  serviceCode: string;
  security: SecurityRequirement[];
  parameters: Operation['parameters'];
  /** The component schema of the request body, and of the success answer. */
  request: string;
  requestExample: unknown;
  response: string;
  /** The success answer's example, but for `responseCode` and `responseMessage` (derived from the service code). */
  responseExample: Record<string, unknown>;
  cases: readonly SnapCase[];
  /** Answers besides success and the cases (a transfer's 202 while the bank has not finished). */
  alsoAnswers?: Record<string, Response>;
}

/** What a signed SNAP operation's route says of it beyond its method, path and service code. */
export type SnapDoc = Omit<SnapOperation, 'method' | 'path' | 'serviceCode'>;

/** A signed SNAP operation as the document says it. */
export function snapOperation(op: SnapDoc & { serviceCode: string }): Operation {
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
      ...op.alsoAnswers,
      ...errorResponses(op.serviceCode, op.cases),
    },
  };
}

/** The path items of signed SNAP operations, in their order. */
export function snapPaths(operations: readonly SnapOperation[]): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const op of operations) paths[op.path] = { ...paths[op.path], [op.method]: snapOperation(op) };
  return paths;
}

const header = (name: string, description: string, schema: Parameter['schema'], required = true): Parameter => ({
  name,
  in: 'header',
  required,
  description,
  schema,
});

/** The header parameters the operations refer to (`paramRef`): the document's component parameters. */
export const SNAP_PARAMETERS: Record<string, Parameter> = {
  XTimestamp: header(
    'X-TIMESTAMP',
    'When the request was signed; within the clock skew window (default ±5 minutes).',
    ref('SnapDateTimeInput'),
  ),
  XPartnerId: header('X-PARTNER-ID', 'A merchant’s `partnerId`; a provider’s client key.', {
    type: 'string',
    minLength: 1,
  }),
  XExternalId: header(
    'X-EXTERNAL-ID',
    'Idempotency key, unique per client and Jakarta day: SNAP’s 1 to 36 digits, or up to 64 letters, digits and dashes (a UUID, DOKU’s UUID and milliseconds).',
    { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$' },
  ),
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
  AuthorizationCustomer: header(
    'Authorization-Customer',
    '`Bearer <customer token>`: the bound account’s token from `access-token/b2b2c` (docs/ewallets.md#account-binding).',
    { type: 'string', pattern: '^Bearer .+$' },
  ),
  AuthorizationCustomerOptional: header(
    'Authorization-Customer',
    '`Bearer <customer token>` of a bound account: the payment is then debited from it without a redirect (docs/ewallets.md#account-binding).',
    { type: 'string', pattern: '^Bearer .+$' },
    false,
  ),
};

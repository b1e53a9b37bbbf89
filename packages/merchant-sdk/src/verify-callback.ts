import type { KeyObject } from 'node:crypto';
import {
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  isMoneyValue,
  isTransactionStatus,
  type Money,
  parseSnapTimestamp,
  SERVICE,
  serviceStringToSign,
  snapError,
  verifyHmacSha512,
  verifyRsaSha256,
} from '@snapgate/snap';
import { systemClock } from './clock.ts';
import type { PaymentNotification, TransferNotification } from './types.ts';

/**
 * Request headers as node:http, Express, Fastify or WHATWG `Headers` hold them.
 *
 * @example
 * const headers: HeadersLike = req.headers; // or new Headers(...)
 */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * What a callback signature covers: the request as received, its body as raw bytes.
 *
 * @example
 * const request: CallbackRequest = { method: req.method, path: req.url, headers: req.headers, rawBody };
 */
export interface CallbackRequest {
  method: string;
  /** The request target exactly as received (path and query), e.g. node's `req.url`. */
  path: string;
  headers: HeadersLike;
  /** The body bytes as received: never a re-serialised object. */
  rawBody: Uint8Array | string;
}

/**
 * How callbacks are verified (docs/protocol.md#callbacks): `clientSecret` for `hmac-sha512` (the default; a list is
 * accepted while a rotated secret overlaps), or the gateway's public key for `rsa-sha256`.
 *
 * @example
 * const key: CallbackKey = { gatewayPublicKeyPem: await (await fetch(`${gw}/.well-known/snapgate/callback-public-key.pem`)).text() };
 */
export type CallbackKey =
  | { clientSecret: string | readonly string[]; gatewayPublicKeyPem?: undefined; snapB2b?: SnapB2bTokens }
  | { gatewayPublicKeyPem: string | KeyObject; clientSecret?: undefined; snapB2b?: undefined };

/**
 * `snap-b2b` callbacks: the tokens this merchant issued to the gateway (see
 * {@link createSnapB2bTokenIssuer}). With it, a callback must carry one of them as its bearer
 * token, and its signature is HMAC-SHA512 over `POST:<path>:<token>:<sha256 hex of the body>:<X-TIMESTAMP>`.
 *
 * @example
 * const options: VerifyCallbackOptions = { clientSecret, partnerId, snapB2b: issuer };
 */
export interface SnapB2bTokens {
  isValid(accessToken: string): boolean;
}

/**
 * Options of {@link verifyCallback}.
 *
 * @example
 * const options: VerifyCallbackOptions = { clientSecret, partnerId: 'PARTNER-1', toleranceSec: 300 };
 */
export type VerifyCallbackOptions = CallbackKey & {
  /** The merchant's partner ID: X-PARTNER-ID must equal it. */
  partnerId: string;
  /** Accepted distance of X-TIMESTAMP from now, either way. Default 300. */
  toleranceSec?: number;
  /** Epoch milliseconds to judge the timestamp against. Default: the system clock. */
  now?: number;
};

/**
 * Reads one header from any {@link HeadersLike}, case-insensitively.
 *
 * @example
 * headerValue(req.headers, 'X-EXTERNAL-ID'); // '17040780000001234567'
 */
export function headerValue(headers: HeadersLike, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(lower) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let v = record[lower];
  if (v === undefined) {
    const key = Object.keys(record).find((k) => k.toLowerCase() === lower);
    v = key === undefined ? undefined : record[key];
  }
  return typeof v === 'string' ? v : v?.[0];
}

const SVC = SERVICE.callback;
const unauthorized = (reason: string) => snapError('UNAUTHORIZED', SVC, { reason });
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A money object as a callback carries it: `{ value: "10000.00", currency }`. */
export const isMoney = (v: unknown): v is Money =>
  isObject(v) && isMoneyValue(v.value) && typeof v.currency === 'string';

/** The body as a JSON object, or 400. */
function parseObject(rawBody: Uint8Array | string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw snapError('BAD_REQUEST', SVC);
  }
  if (!isObject(body)) throw snapError('BAD_REQUEST', SVC);
  return body;
}

function requireStrings(body: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) {
    if (body[field] === undefined || body[field] === '') throw snapError('INVALID_MANDATORY_FIELD', SVC, { field });
    if (typeof body[field] !== 'string') throw snapError('INVALID_FIELD_FORMAT', SVC, { field });
  }
}

function requireMoneyAndInfo(body: Record<string, unknown>): void {
  const amount = body.amount;
  if (amount === undefined) throw snapError('INVALID_MANDATORY_FIELD', SVC, { field: 'amount' });
  if (!isMoney(amount)) {
    throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'amount' });
  }
  if (body.additionalInfo !== undefined && !isObject(body.additionalInfo)) {
    throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'additionalInfo' });
  }
}

function parseNotification(rawBody: Uint8Array | string): PaymentNotification {
  const body = parseObject(rawBody);
  requireStrings(body, ['originalReferenceNo', 'originalPartnerReferenceNo', 'latestTransactionStatus']);
  if (!isTransactionStatus(body.latestTransactionStatus)) {
    throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'latestTransactionStatus' });
  }
  // A transfer callback (docs/protocol.md#transfer-callbacks) carries its service code; a payment
  // notification never does. Taking one for a payment would mark an order paid by money sent out.
  if (body.serviceCode !== undefined) throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'serviceCode' });
  requireMoneyAndInfo(body);
  return { ...body, additionalInfo: body.additionalInfo ?? {} } as unknown as PaymentNotification;
}

const TRANSFER_STATUSES: ReadonlySet<unknown> = new Set(['00', '03', '06']);
const TRANSFER_SERVICES: ReadonlySet<unknown> = new Set(['17', '18']);

function parseTransferNotification(rawBody: Uint8Array | string): TransferNotification {
  const body = parseObject(rawBody);
  requireStrings(body, [
    'originalPartnerReferenceNo',
    'originalReferenceNo',
    'serviceCode',
    'latestTransactionStatus',
    'transactionStatusDesc',
    'beneficiaryAccountNo',
    'beneficiaryBankCode',
  ]);
  if (!TRANSFER_SERVICES.has(body.serviceCode)) throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'serviceCode' });
  if (!TRANSFER_STATUSES.has(body.latestTransactionStatus)) {
    throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'latestTransactionStatus' });
  }
  requireMoneyAndInfo(body);
  return { ...body, additionalInfo: body.additionalInfo ?? {} } as unknown as TransferNotification;
}

/**
 * Verifies a payment notification callback (docs/protocol.md#callbacks) and returns its typed body.
 * Checks, in order: POST; X-TIMESTAMP, X-SIGNATURE, X-PARTNER-ID present (400 `4002602`);
 * X-TIMESTAMP an ISO 8601 date-time (400 `4002601`) within `toleranceSec` of now (401 `4012600`
 * [Timestamp Out Of Range]); X-PARTNER-ID equal to `partnerId` (401 [Unknown Partner]); the
 * signature over the raw bytes, compared in constant time (401 [Invalid Signature]); the body a
 * notification (400). Failures throw a `SnapError` whose `toBody()` and `httpStatus` are the answer
 * to give. `path` must be the target as the gateway sent it: behind a proxy that rewrites paths,
 * pass the original one.
 *
 * @example
 * const notification = verifyCallback(
 *   { method: req.method, path: req.url, headers: req.headers, rawBody },
 *   { clientSecret, partnerId },
 * );
 * if (notification.latestTransactionStatus === '00') markPaid(notification.originalPartnerReferenceNo);
 */
export function verifyCallback(request: CallbackRequest, options: VerifyCallbackOptions): PaymentNotification {
  authenticate(request, options, 'verifyCallback');
  return parseNotification(request.rawBody);
}

/**
 * Verifies a transfer callback (docs/protocol.md#transfer-callbacks: how a transfer answered 202
 * ended) and returns its typed body. It is signed exactly as a payment callback, so the checks and
 * their answers are {@link verifyCallback}'s; only the body differs: `originalPartnerReferenceNo`,
 * `originalReferenceNo`, `serviceCode` (`18`, or `17`), `latestTransactionStatus` (`00`, `03` or
 * `06`), `transactionStatusDesc`, `beneficiaryAccountNo` and `beneficiaryBankCode` strings, and
 * `amount` money. A payment notification is not a transfer callback (400), nor the reverse.
 *
 * @example
 * const transfer = verifyTransferCallback(
 *   { method: req.method, path: req.url, headers: req.headers, rawBody },
 *   { clientSecret, partnerId },
 * );
 * if (transfer.latestTransactionStatus === '06') markTransferFailed(transfer.originalPartnerReferenceNo);
 */
export function verifyTransferCallback(request: CallbackRequest, options: VerifyCallbackOptions): TransferNotification {
  authenticate(request, options, 'verifyTransferCallback');
  return parseTransferNotification(request.rawBody);
}

/** Every check of a callback but its body's: method, headers, timestamp, partner, signature. */
function authenticate(request: CallbackRequest, options: VerifyCallbackOptions, caller: string): void {
  if ((options.clientSecret === undefined) === (options.gatewayPublicKeyPem === undefined)) {
    throw new TypeError(`${caller}: give exactly one of clientSecret or gatewayPublicKeyPem`);
  }
  if (request.method.toUpperCase() !== 'POST') throw snapError('NOT_ALLOWED', SVC);
  const header = (name: string) => {
    const v = headerValue(request.headers, name);
    if (!v) throw snapError('INVALID_MANDATORY_FIELD', SVC, { field: name });
    return v;
  };
  // snap-b2b: no callback without a token this merchant issued (401 Invalid Token (B2B)).
  const authorization = headerValue(request.headers, 'Authorization') ?? '';
  const accessToken = /^bearer /i.test(authorization) ? authorization.slice(7).trim() : '';
  if (options.snapB2b && !(accessToken && options.snapB2b.isValid(accessToken))) {
    throw snapError('INVALID_TOKEN', SVC);
  }
  const timestamp = header('X-TIMESTAMP');
  const signature = header('X-SIGNATURE');
  const partnerId = header('X-PARTNER-ID');

  const timestampMs = parseSnapTimestamp(timestamp);
  if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'X-TIMESTAMP' });
  // Secure default: too old and too new are both refused, so a captured callback
  // cannot be replayed later.
  const toleranceMs = (options.toleranceSec ?? 300) * 1000;
  if (Math.abs((options.now ?? systemClock.now()) - timestampMs) > toleranceMs)
    throw unauthorized('Timestamp Out Of Range');
  if (partnerId !== options.partnerId) throw unauthorized('Unknown Partner');

  // The header values exactly as received: never re-formatted before hashing.
  let verified: boolean;
  if (options.gatewayPublicKeyPem !== undefined) {
    const data = callbackRsaStringToSign({ path: request.path, rawBody: request.rawBody, timestamp });
    verified = verifyRsaSha256(options.gatewayPublicKeyPem, data, signature);
  } else {
    const data = options.snapB2b
      ? serviceStringToSign({ method: 'POST', path: request.path, accessToken, rawBody: request.rawBody, timestamp })
      : callbackHmacStringToSign({ path: request.path, partnerId, rawBody: request.rawBody, timestamp });
    const secrets = typeof options.clientSecret === 'string' ? [options.clientSecret] : options.clientSecret;
    // Every secret is tried, so timing does not tell which one matched.
    verified = secrets.map((secret) => verifyHmacSha512(secret, data, signature)).includes(true);
  }
  if (!verified) throw unauthorized('Invalid Signature');
}

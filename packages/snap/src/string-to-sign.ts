import { bodyDigest } from './digest.ts';

/**
 * The B2B token string-to-sign: `<clientKey>|<timestamp>` (docs/protocol.md#access-token), with the
 * timestamp exactly as sent, never re-formatted.
 *
 * @example
 * tokenStringToSign('ck-1', '2024-01-01T10:00:00+07:00'); // 'ck-1|2024-01-01T10:00:00+07:00'
 */
export function tokenStringToSign(clientKey: string, timestamp: string): string {
  return `${clientKey}|${timestamp}`;
}

/** The parts of a payment API request that its signature covers (docs/protocol.md#payment-calls). */
export interface ServiceRequestParts {
  method: string;
  /** Request target exactly as sent: path and query. */
  path: string;
  accessToken: string;
  rawBody: Uint8Array | string;
  timestamp: string;
  /**
   * `bodyDigest(rawBody)`, when the caller has computed it already (a server that also keys its
   * idempotency records by it): the body is then not hashed a second time.
   */
  bodyHash?: string;
}

/**
 * The payment API string-to-sign (docs/protocol.md#payment-calls):
 * `METHOD:path:accessToken:lowerhex(sha256(rawBody)):timestamp`.
 *
 * @example
 * serviceStringToSign({ method: 'POST', path: '/api/snap/v1.0/qr/qr-mpm-query',
 *   accessToken: 'tok', rawBody: '{}', timestamp: '2024-01-01T10:00:00+07:00' });
 */
export function serviceStringToSign(parts: ServiceRequestParts): string {
  return `${parts.method.toUpperCase()}:${parts.path}:${parts.accessToken}:${parts.bodyHash ?? bodyDigest(parts.rawBody)}:${parts.timestamp}`;
}

/** The parts of a callback that its signature covers (docs/protocol.md#callbacks). */
export interface CallbackParts {
  /** Path of the callback URL, with its query. */
  path: string;
  partnerId: string;
  rawBody: Uint8Array | string;
  timestamp: string;
  /** `bodyDigest(rawBody)`, when the caller has computed it already. */
  bodyHash?: string;
}

/**
 * Callback string-to-sign for `hmac-sha512`:
 * `POST:<path>:<X-PARTNER-ID>:<lowerhex sha256(body)>:<X-TIMESTAMP>`.
 *
 * @example
 * callbackHmacStringToSign({ path: '/webhook/payment-qr-notification', partnerId: 'P1',
 *   rawBody: '{}', timestamp: '2024-01-01T10:00:00+07:00' });
 */
export function callbackHmacStringToSign(parts: CallbackParts): string {
  return `POST:${parts.path}:${parts.partnerId}:${parts.bodyHash ?? bodyDigest(parts.rawBody)}:${parts.timestamp}`;
}

/**
 * Callback string-to-sign for `rsa-sha256`: `POST:<path>:<lowerhex sha256(body)>:<X-TIMESTAMP>`.
 *
 * @example
 * callbackRsaStringToSign({ path: '/webhook/payment-va-notification', rawBody: '{}',
 *   timestamp: '2024-01-01T10:00:00+07:00' });
 */
export function callbackRsaStringToSign(parts: Omit<CallbackParts, 'partnerId'>): string {
  return `POST:${parts.path}:${parts.bodyHash ?? bodyDigest(parts.rawBody)}:${parts.timestamp}`;
}

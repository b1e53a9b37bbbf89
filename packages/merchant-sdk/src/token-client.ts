import { createPrivateKey, type KeyObject } from 'node:crypto';
import {
  B2B_TOKEN_PATH,
  B2B2C_TOKEN_PATH,
  formatJakartaTimestamp,
  hmacSha256Base64,
  rsaSha256SignBase64,
  SERVICE,
  tokenStringToSign,
} from '@snapgate/snap';
import { type Clock, systemClock } from './clock.ts';
import type { CustomerTokenRequest, CustomerTokenResponse } from './debit-types.ts';
import { errorFromAnswer, exchange, isSuccess } from './errors.ts';

/**
 * The B2B token path (docs/protocol.md#access-token).
 *
 * @example
 * `${baseUrl}${TOKEN_PATH}`; // 'http://127.0.0.1:8080/api/snap/v1.0/access-token/b2b'
 */
export const TOKEN_PATH = B2B_TOKEN_PATH;
/** The B2B2C (bound customer's) token path (docs/ewallets.md#account-binding). */
const CUSTOMER_TOKEN_PATH = B2B2C_TOKEN_PATH;

/** docs/protocol.md#access-token: the lifetime when an answer does not say. */
const DEFAULT_EXPIRES_IN_SEC = 900;

/**
 * How a token request is signed (docs/protocol.md#access-token): HMAC-SHA256 with the client secret, or SHA256withRSA
 * with the private key whose public key was registered at onboarding.
 *
 * @example
 * const creds: TokenCredentials = { privateKeyPem: readFileSync('merchant-key.pem', 'utf8') };
 */
export type TokenCredentials =
  | { clientSecret: string; privateKeyPem?: undefined }
  | { privateKeyPem: string | KeyObject; clientSecret?: undefined };

/**
 * Options of {@link createTokenClient}.
 *
 * @example
 * const options: TokenClientOptions = { baseUrl, clientKey, clientSecret, refreshAheadSec: 120 };
 */
export type TokenClientOptions = TokenCredentials & {
  /** The gateway's base address, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  baseUrl: string;
  clientKey: string;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Take a new token this long before the current one expires. Default 60. */
  refreshAheadSec?: number;
  /** Abort a token request after this long. Default 30 000. */
  timeoutMs?: number;
};

/**
 * What {@link createTokenClient} returns.
 *
 * @example
 * const tokens: TokenClient = createTokenClient({ baseUrl, clientKey, clientSecret });
 * const authorization = `Bearer ${await tokens.getToken()}`;
 */
export interface TokenClient {
  /** A valid access token: the cached one while it is valid, else a fresh one. */
  getToken(): Promise<string>;
  /** Forgets the cached token (the gateway refused it: rotated secret, disabled merchant). */
  invalidate(): void;
  /**
   * A bound customer's token (docs/ewallets.md#account-binding), signed as the B2B token request
   * is; never cached (each code or refresh token is good once). A refusal throws a
   * {@link SnapApiError} (`4017400` for a spent or wrong code).
   */
  customerToken(request: CustomerTokenRequest): Promise<CustomerTokenResponse>;
}

/**
 * A B2B access-token client (docs/protocol.md#access-token). It reuses a token while it is valid
 * (docs/protocol.md#access-token), takes a new one `refreshAheadSec` before expiry, and lets concurrent callers
 * share one request. A refused request throws a {@link SnapApiError} with the gateway's
 * `responseCode` (`4017100` …); no answer throws a {@link SnapNetworkError}. When an early
 * refresh fails while the cached token is still valid, that token is returned instead.
 *
 * @example
 * const tokens = createTokenClient({ baseUrl: 'http://127.0.0.1:8080', clientKey, clientSecret });
 * const accessToken = await tokens.getToken();
 */
export function createTokenClient(options: TokenClientOptions): TokenClient {
  const { clientKey } = options;
  if (!clientKey) throw new TypeError('createTokenClient: clientKey is required');
  if ((options.clientSecret === undefined) === (options.privateKeyPem === undefined)) {
    throw new TypeError('createTokenClient: give exactly one of clientSecret or privateKeyPem');
  }
  const doFetch = options.fetch ?? fetch;
  const clock = options.clock ?? systemClock;
  const refreshAheadMs = (options.refreshAheadSec ?? 60) * 1000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const origin = options.baseUrl.replace(/\/+$/, '');
  // Parse the PEM once: it costs more than the signature.
  const pem = options.privateKeyPem;
  const privateKey = pem === undefined ? undefined : typeof pem === 'string' ? createPrivateKey(pem) : pem;
  const secret = options.clientSecret;

  let cached: { accessToken: string; refreshAt: number; expiresAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  /** A signed token request at `path` (`<clientKey>|<X-TIMESTAMP>`, the timestamp exactly as sent). */
  function signedTokenRequest(path: string, body: string, at: number) {
    const timestamp = formatJakartaTimestamp(at);
    const data = tokenStringToSign(clientKey, timestamp);
    const signature = privateKey ? rsaSha256SignBase64(privateKey, data) : hmacSha256Base64(secret as string, data);
    return exchange(
      doFetch,
      `${origin}${path}`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-client-key': clientKey,
          'x-timestamp': timestamp,
          'x-signature': signature,
        },
        body,
      },
      timeoutMs,
    );
  }

  async function requestToken(): Promise<string> {
    const startedAt = clock.now();
    const answer = await signedTokenRequest(TOKEN_PATH, '{"grantType":"client_credentials"}', startedAt);
    const body = answer.json as { accessToken?: unknown; expiresIn?: unknown } | undefined;
    if (!isSuccess(answer) || typeof body?.accessToken !== 'string' || body.accessToken === '') {
      throw errorFromAnswer(answer, SERVICE.token);
    }
    const expiresInSec =
      typeof body.expiresIn === 'number' && body.expiresIn > 0 ? body.expiresIn : DEFAULT_EXPIRES_IN_SEC;
    const lifetimeMs = expiresInSec * 1000;
    // Lifetime counts from before the request left, so the cache never outlives the token.
    cached = {
      accessToken: body.accessToken,
      refreshAt: startedAt + Math.max(lifetimeMs - refreshAheadMs, lifetimeMs / 2),
      expiresAt: startedAt + lifetimeMs,
    };
    return body.accessToken;
  }

  return {
    getToken() {
      const now = clock.now();
      if (cached && now < cached.refreshAt) return Promise.resolve(cached.accessToken);
      if (!inFlight) {
        const stillValid = cached && now < cached.expiresAt ? cached : undefined;
        inFlight = requestToken()
          .catch((e: unknown) => {
            if (stillValid && clock.now() < stillValid.expiresAt) return stillValid.accessToken;
            throw e;
          })
          .finally(() => {
            inFlight = undefined;
          });
      }
      return inFlight;
    },
    invalidate() {
      cached = undefined;
    },
    async customerToken(request) {
      const answer = await signedTokenRequest(CUSTOMER_TOKEN_PATH, JSON.stringify(request), clock.now());
      if (!isSuccess(answer)) throw errorFromAnswer(answer, SERVICE.tokenB2b2c);
      return answer.json as CustomerTokenResponse;
    },
  };
}

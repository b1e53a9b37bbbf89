import { randomUUID } from 'node:crypto';
import {
  formatJakartaTimestamp,
  HEADER,
  HEADER_DISPLAY,
  isJsonObject,
  mediaType,
  parseJsonBody,
  parseSnapTimestamp,
  SERVICE,
  snapError,
  successCode,
  tokenStringToSign,
  verifyHmacSha256,
  verifyRsaSha256,
} from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { rsaPublicKey } from '../merchants/public-key.ts';
import { createFieldReader } from '../payments/fields.ts';
import { ACCESS_TOKEN } from '../payments/snap-fields.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { ClientKeys, MerchantRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { type AccessTokenClaims, signJwt, verifyJwt } from './jwt.ts';
import type { RateLimiter } from './rate-limit.ts';

const SVC = SERVICE.token;
const VERIFIED_TOKENS_KEPT = 10_000;
const MANDATORY = [HEADER.contentType, HEADER.clientKey, HEADER.timestamp, HEADER.signature] as const;

export interface TokenServiceDeps {
  store: Store;
  clock: Clock;
  jwtKey: Buffer;
  tokenTtlSec: number;
  clockSkewSec: number;
  rateLimiter: RateLimiter;
  /** Sandbox providers are refused in production mode; HMAC tokens of keyed providers only in sandbox. */
  mode: Mode;
}

export interface TokenResponse {
  headers: Record<string, string>;
  body: string;
}

export interface TokenService {
  /** docs/protocol.md#access-token, every check in the table's order; throws the first SnapError. */
  issueB2bToken(header: (name: string) => string | undefined, rawBody: Buffer): Promise<TokenResponse>;
  /**
   * The merchant that signed a B2B2C (customer) token request (service 74), checked as a B2B token
   * request is (docs/ewallets.md#account-binding), and the request's body.
   */
  authenticateCustomerTokenRequest(
    header: (name: string) => string | undefined,
    rawBody: Buffer,
  ): Promise<{ merchant: MerchantRecord; body: Record<string, unknown>; now: number }>;
  /** The active merchant a bearer token belongs to, or `undefined` when it must be refused. */
  merchantOfToken(accessToken: string): Promise<MerchantRecord | undefined>;
  /** The active provider a bearer token belongs to; a merchant's token never qualifies. */
  providerOfToken(accessToken: string): Promise<ProviderRecord | undefined>;
  /** Whether the client key may make one more request this minute (token and payment API together). */
  takeRateLimit(clientKey: string): boolean;
  /** Whether a timestamp is inside the skew window. */
  isTimestampInWindow(epochMs: number): boolean;
}

/** What a merchant and a provider share as SNAP clients: keys, secrets and their rotation. */
export type ClientCredentials = ClientKeys & Pick<MerchantRecord, 'publicKeyPem' | 'status'>;

/** The secrets a client's signatures may be made with right now: current, then previous in its overlap. */
export function activeSecrets(client: ClientCredentials, nowMs: number): string[] {
  const secrets = [client.clientSecret];
  if (client.previousSecret && client.previousValidUntil !== null && nowMs < client.previousValidUntil) {
    secrets.push(client.previousSecret);
  }
  return secrets;
}

function verifyTokenSignature(
  client: ClientCredentials,
  allow: { hmac: boolean; rsa: boolean },
  data: string,
  signature: string,
  nowMs: number,
): boolean {
  if (allow.hmac && activeSecrets(client, nowMs).some((s) => verifyHmacSha256(s, data, signature))) return true;
  return allow.rsa && verifyRsaSha256(rsaPublicKey(client.publicKeyPem as string), data, signature);
}

/** A merchant's `tokenSignature` setting decides (`any` = RSA if a key is registered, HMAC always). */
const merchantAllows = (m: MerchantRecord) => ({
  hmac: m.tokenSignature !== 'rsa-sha256',
  rsa: m.tokenSignature !== 'hmac-sha256' && m.publicKeyPem !== null,
});

/** A provider with a public key signs SHA256withRSA; HMAC-SHA256 is also taken in sandbox mode. */
const providerAllows = (p: ProviderRecord, mode: Mode) => ({
  hmac: p.publicKeyPem === null || mode === 'sandbox',
  rsa: p.publicKeyPem !== null,
});

/** Whether a token issued under secret version `sv` is still good for this client. */
function isLiveToken(client: ClientCredentials, claims: AccessTokenClaims, nowMs: number): boolean {
  // Disabling the client killed every token issued until then, for good (iat has second
  // precision: a token of that very second is refused too).
  if (client.tokensNotBefore != null && claims.iat * 1000 <= client.tokensNotBefore) return false;
  // A token dies with the secret it was issued under once the overlap ends.
  if (claims.sv === client.secretVersion) return true;
  return (
    claims.sv === client.secretVersion - 1 && client.previousValidUntil !== null && nowMs < client.previousValidUntil
  );
}

export function createTokenService(deps: TokenServiceDeps): TokenService {
  const { store, clock, jwtKey, tokenTtlSec, clockSkewSec, rateLimiter, mode } = deps;
  const skewMs = clockSkewSec * 1000;

  const isTimestampInWindow = (epochMs: number) => Math.abs(clock.now() - epochMs) <= skewMs;

  // A client reuses one token for many calls (measured: verifying it was 4–5 % of a payment
  // call's CPU). The claims of a token that verified are kept, a bounded number, so the HMAC and
  // JSON work is done once per token; expiry and the client's state are checked on every use.
  // A token that does not verify is never kept.
  const verified = new Map<string, AccessTokenClaims>();
  const claimsOf = (accessToken: string): AccessTokenClaims | undefined => {
    const known = verified.get(accessToken);
    if (known) return known;
    const claims = verifyJwt(accessToken, jwtKey);
    if (claims) {
      if (verified.size >= VERIFIED_TOKENS_KEPT) verified.clear();
      verified.set(accessToken, claims);
    }
    return claims;
  };

  /**
   * docs/protocol.md#access-token: a token request's checks in the table's order, the body's own
   * (`checkBody`) where the body is read; the client that signed it (a merchant, or a provider
   * unless `merchantsOnly`).
   */
  async function authenticate(
    h: (name: string) => string | undefined,
    rawBody: Buffer,
    svc: string,
    checkBody: (body: Record<string, unknown>) => void,
    merchantsOnly = false,
  ) {
    for (const name of MANDATORY) {
      if (!h(name)) {
        throw snapError('INVALID_MANDATORY_FIELD', svc, { field: HEADER_DISPLAY[name] as string });
      }
    }
    const clientKey = h(HEADER.clientKey) as string;
    const timestamp = h(HEADER.timestamp) as string;
    const signature = h(HEADER.signature) as string;
    if (mediaType(h(HEADER.contentType) as string) !== 'application/json') {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'Content-Type' });
    }
    const timestampMs = parseSnapTimestamp(timestamp);
    if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-TIMESTAMP' });

    const body = parseJsonBody(rawBody);
    if (!isJsonObject(body)) throw snapError('BAD_REQUEST', svc);
    checkBody(body);

    const merchant = await store.findMerchantByClientKey(clientKey);
    const provider = merchant || merchantsOnly ? undefined : await store.findProviderByClientKey(clientKey);
    const client: (ClientCredentials & { id: string }) | undefined =
      merchant ?? (provider?.isSandbox && mode === 'production' ? undefined : provider);
    if (!client) throw snapError('UNAUTHORIZED', svc, { reason: 'Unknown Client' });
    const who = merchant ? { merchantId: client.id } : { providerId: client.id };
    if (client.status !== 'active') {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Client Disabled', detail: who });
    }
    const now = clock.now();
    if (!isTimestampInWindow(timestampMs)) {
      throw snapError('UNAUTHORIZED', svc, {
        reason: 'Timestamp Out Of Range',
        detail: { ...who, skewMs: now - timestampMs },
      });
    }
    // docs/protocol.md#access-token: signed over the timestamp exactly as sent.
    const allow = merchant ? merchantAllows(merchant) : providerAllows(provider as ProviderRecord, mode);
    if (!verifyTokenSignature(client, allow, tokenStringToSign(clientKey, timestamp), signature, now)) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Invalid Signature', detail: who });
    }
    if (!rateLimiter.take(clientKey, now)) {
      throw snapError('TOO_MANY_REQUESTS', svc, { detail: who });
    }
    return { client, merchant, clientKey, body, now };
  }

  return {
    isTimestampInWindow,
    takeRateLimit: (clientKey) => rateLimiter.take(clientKey, clock.now()),

    async issueB2bToken(h, rawBody) {
      const { client, merchant, clientKey, now } = await authenticate(h, rawBody, SVC, (body) => {
        // OAuth's spelling, `grant_type` (Midtrans' SnapBi sends it), is read as grantType when that is absent.
        const grant = 'grantType' in body || !('grant_type' in body) ? body : { grantType: body.grant_type };
        createFieldReader(grant, SVC).str('grantType', ACCESS_TOKEN.grantType);
      });
      const iat = Math.floor(now / 1000);
      const claims: AccessTokenClaims = {
        sub: clientKey,
        iat,
        exp: iat + tokenTtlSec,
        jti: randomUUID(),
        sv: client.secretVersion,
        ...(merchant ? {} : { aud: 'p' as const }),
      };
      const accessToken = signJwt(claims, jwtKey);
      return {
        headers: { 'X-TIMESTAMP': formatJakartaTimestamp(now), 'X-CLIENT-KEY': clientKey },
        body: `{"responseCode":"${successCode(SVC)}","responseMessage":"Successful","accessToken":"${accessToken}","tokenType":"Bearer","expiresIn":${tokenTtlSec}}`,
      };
    },

    async authenticateCustomerTokenRequest(h, rawBody) {
      const { merchant, body, now } = await authenticate(h, rawBody, SERVICE.tokenB2b2c, () => undefined, true);
      return { merchant: merchant as MerchantRecord, body, now };
    },

    async merchantOfToken(accessToken) {
      const claims = claimsOf(accessToken);
      const now = clock.now();
      if (!claims || claims.aud !== undefined || claims.exp * 1000 <= now) return undefined;
      const merchant = await store.findMerchantByClientKey(claims.sub);
      if (merchant?.status !== 'active') return undefined;
      return isLiveToken(merchant, claims, now) ? merchant : undefined;
    },

    async providerOfToken(accessToken) {
      const claims = claimsOf(accessToken);
      const now = clock.now();
      if (claims?.aud !== 'p' || claims.exp * 1000 <= now) return undefined;
      const provider = await store.findProviderByClientKey(claims.sub);
      if (provider?.status !== 'active' || (provider.isSandbox && mode === 'production')) return undefined;
      return isLiveToken(provider, claims, now) ? provider : undefined;
    },
  };
}

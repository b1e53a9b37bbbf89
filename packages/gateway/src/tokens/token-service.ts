import { randomUUID } from 'node:crypto';
import {
  formatJakartaTimestamp,
  HEADER,
  HEADER_DISPLAY,
  parseSnapTimestamp,
  SERVICE,
  snapError,
  successCode,
  tokenStringToSign,
  verifyHmacSha256,
  verifyRsaSha256,
} from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { isJsonObject, mediaType, parseJsonBody } from '../http/raw-body.ts';
import { rsaPublicKey } from '../merchants/public-key.ts';
import type { MerchantRecord, Store } from '../store/store.ts';
import { type AccessTokenClaims, signJwt, verifyJwt } from './jwt.ts';
import type { RateLimiter } from './rate-limit.ts';

const SVC = SERVICE.token;
const MANDATORY = [HEADER.contentType, HEADER.clientKey, HEADER.timestamp, HEADER.signature] as const;

export interface TokenServiceDeps {
  store: Store;
  clock: Clock;
  jwtKey: Buffer;
  tokenTtlSec: number;
  clockSkewSec: number;
  rateLimiter: RateLimiter;
}

export interface TokenResponse {
  headers: Record<string, string>;
  body: string;
}

export interface TokenService {
  /** SPEC §2, every check in the table's order; throws the first SnapError. */
  issueB2bToken(header: (name: string) => string | undefined, rawBody: Buffer): Promise<TokenResponse>;
  /** The active merchant a bearer token belongs to, or `undefined` when it must be refused. */
  merchantOfToken(accessToken: string): Promise<MerchantRecord | undefined>;
  /** Whether the client key may make one more request this minute (token and payment API together). */
  takeRateLimit(clientKey: string): boolean;
  /** Whether a timestamp is inside the skew window. */
  isTimestampInWindow(epochMs: number): boolean;
}

/** The secrets a merchant's signatures may be made with right now: current, then previous in its overlap. */
export function activeSecrets(merchant: MerchantRecord, nowMs: number): string[] {
  const secrets = [merchant.clientSecret];
  if (merchant.previousSecret && merchant.previousValidUntil !== null && nowMs < merchant.previousValidUntil) {
    secrets.push(merchant.previousSecret);
  }
  return secrets;
}

function verifyTokenSignature(merchant: MerchantRecord, data: string, signature: string, nowMs: number): boolean {
  const allowHmac = merchant.tokenSignature !== 'rsa-sha256';
  const allowRsa = merchant.tokenSignature !== 'hmac-sha256' && merchant.publicKeyPem !== null;
  if (allowHmac && activeSecrets(merchant, nowMs).some((s) => verifyHmacSha256(s, data, signature))) return true;
  return allowRsa && verifyRsaSha256(rsaPublicKey(merchant.publicKeyPem as string), data, signature);
}

export function createTokenService(deps: TokenServiceDeps): TokenService {
  const { store, clock, jwtKey, tokenTtlSec, clockSkewSec, rateLimiter } = deps;
  const skewMs = clockSkewSec * 1000;

  const isTimestampInWindow = (epochMs: number) => Math.abs(clock.now() - epochMs) <= skewMs;

  return {
    isTimestampInWindow,
    takeRateLimit: (clientKey) => rateLimiter.take(clientKey, clock.now()),

    async issueB2bToken(h, rawBody) {
      for (const name of MANDATORY) {
        if (!h(name)) {
          throw snapError('INVALID_MANDATORY_FIELD', SVC, { field: HEADER_DISPLAY[name] as string });
        }
      }
      const clientKey = h(HEADER.clientKey) as string;
      const timestamp = h(HEADER.timestamp) as string;
      const signature = h(HEADER.signature) as string;
      if (mediaType(h(HEADER.contentType) as string) !== 'application/json') {
        throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'Content-Type' });
      }
      const timestampMs = parseSnapTimestamp(timestamp);
      if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'X-TIMESTAMP' });

      const body = parseJsonBody(rawBody);
      if (!isJsonObject(body)) throw snapError('BAD_REQUEST', SVC);
      if (body.grantType === undefined || body.grantType === null || body.grantType === '') {
        throw snapError('INVALID_MANDATORY_FIELD', SVC, { field: 'grantType' });
      }
      if (body.grantType !== 'client_credentials') throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'grantType' });

      const merchant = await store.findMerchantByClientKey(clientKey);
      if (!merchant) throw snapError('UNAUTHORIZED', SVC, { reason: 'Unknown Client' });
      if (merchant.status !== 'active') {
        throw snapError('UNAUTHORIZED', SVC, { reason: 'Client Disabled', detail: { merchantId: merchant.id } });
      }
      const now = clock.now();
      if (!isTimestampInWindow(timestampMs)) {
        throw snapError('UNAUTHORIZED', SVC, {
          reason: 'Timestamp Out Of Range',
          detail: { merchantId: merchant.id, skewMs: now - timestampMs },
        });
      }
      // src 2.1: signed over the timestamp exactly as sent.
      if (!verifyTokenSignature(merchant, tokenStringToSign(clientKey, timestamp), signature, now)) {
        throw snapError('UNAUTHORIZED', SVC, { reason: 'Invalid Signature', detail: { merchantId: merchant.id } });
      }
      if (!rateLimiter.take(clientKey, now)) {
        throw snapError('TOO_MANY_REQUESTS', SVC, { detail: { merchantId: merchant.id } });
      }

      const iat = Math.floor(now / 1000);
      const claims: AccessTokenClaims = {
        sub: clientKey,
        iat,
        exp: iat + tokenTtlSec,
        jti: randomUUID(),
        sv: merchant.secretVersion,
      };
      const accessToken = signJwt(claims, jwtKey);
      return {
        headers: { 'X-TIMESTAMP': formatJakartaTimestamp(now), 'X-CLIENT-KEY': clientKey },
        body: `{"responseCode":"${successCode(SVC)}","responseMessage":"Successful","accessToken":"${accessToken}","tokenType":"Bearer","expiresIn":${tokenTtlSec}}`,
      };
    },

    async merchantOfToken(accessToken) {
      const claims = verifyJwt(accessToken, jwtKey);
      if (!claims) return undefined;
      const now = clock.now();
      if (claims.exp * 1000 <= now) return undefined;
      const merchant = await store.findMerchantByClientKey(claims.sub);
      if (merchant?.status !== 'active') return undefined;
      // SPEC §2: a token dies with the secret it was issued under once the overlap ends.
      if (claims.sv === merchant.secretVersion) return merchant;
      const inOverlap =
        claims.sv === merchant.secretVersion - 1 &&
        merchant.previousValidUntil !== null &&
        now < merchant.previousValidUntil;
      return inOverlap ? merchant : undefined;
    },
  };
}

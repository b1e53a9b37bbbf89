import {
  bodyDigest,
  callbackHmacStringToSign,
  callbackRsaStringToSign,
  HEADER,
  HEADER_DISPLAY,
  isJsonObject,
  jakartaDay,
  mediaType,
  parseJsonBody,
  parseSnapTimestamp,
  serviceStringToSign,
  snapError,
  verifyHmacSha512,
  verifyRsaSha256,
} from '@snapgate/snap';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { rsaPublicKey } from '../merchants/public-key.ts';
import type { MerchantRequest, ProviderRequest, SnapRequestBase } from '../payments/snap-request.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { MerchantRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { firstBadTextFieldOfJson, isBadText } from '../text.ts';
import { activeSecrets, type TokenService } from '../tokens/token-service.ts';
import { bearerToken } from './bearer.ts';
import { headerValue, rawBodyOf } from './raw-body.ts';

/** Who may call a route: merchants (the payment API) or upstream providers (never both). */
export type Audience = 'merchant' | 'provider';

const MANDATORY = [
  HEADER.contentType,
  HEADER.timestamp,
  HEADER.signature,
  HEADER.partnerId,
  HEADER.externalId,
  HEADER.channelId,
] as const;
/**
 * SNAP says numeric, up to 36; real clients send UUIDs, and DOKU's a UUID and the time in ms (50).
 * It is an idempotency key, never signed alone: letters, digits and dashes up to 64 are taken.
 */
const EXTERNAL_ID = /^[A-Za-z0-9-]{1,64}$/;
const WEBHOOK_MANDATORY = [HEADER.contentType, HEADER.timestamp, HEADER.signature, HEADER.externalId] as const;

/**
 * The header checks every signed SNAP request starts with, in the payment API's order: mandatory
 * headers present (400 xx02), then Content-Type, X-TIMESTAMP and X-EXTERNAL-ID well formed (400 xx01).
 */
function readSignedHeaders(request: FastifyRequest, svc: string, mandatory: readonly string[]) {
  for (const name of mandatory) {
    if (!headerValue(request, name)) {
      throw snapError('INVALID_MANDATORY_FIELD', svc, { field: HEADER_DISPLAY[name] as string });
    }
  }
  const timestamp = headerValue(request, HEADER.timestamp) as string;
  const externalId = headerValue(request, HEADER.externalId) as string;
  if (mediaType(headerValue(request, HEADER.contentType) as string) !== 'application/json') {
    throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'Content-Type' });
  }
  const timestampMs = parseSnapTimestamp(timestamp);
  if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-TIMESTAMP' });
  if (!EXTERNAL_ID.test(externalId)) throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-EXTERNAL-ID' });
  return { timestamp, timestampMs, externalId };
}

/**
 * The body as a JSON object (400 xx00 otherwise) and the idempotency key of the calling client.
 * `bodyHash` is the body's digest the signature check computed (a body is hashed once).
 */
function snapRequestBase(
  request: FastifyRequest,
  svc: string,
  raw: Buffer,
  bodyHash: string,
  clientId: string,
  externalId: string,
  now: number,
): SnapRequestBase {
  const body = parseJsonBody(raw);
  if (!isJsonObject(body)) throw snapError('BAD_REQUEST', svc);
  const bad = firstBadTextFieldOfJson(raw, body);
  if (bad !== undefined) throw snapError('INVALID_FIELD_FORMAT', svc, { field: bad });
  return {
    body,
    serviceCode: svc,
    idempotencyKey: { merchantId: clientId, day: jakartaDay(now), externalId },
    requestHash: bodyDigest(`${request.method}:${request.url}:${bodyHash}`),
    now,
    requestId: request.id,
  };
}

const CONTEXT = Symbol('snapgate.snapRequest');
type WithContext = FastifyRequest & { [CONTEXT]?: MerchantRequest | ProviderRequest };

export function merchantRequestOf(request: FastifyRequest): MerchantRequest {
  const c = (request as WithContext)[CONTEXT];
  if (!c || !('merchant' in c)) throw new TypeError('route has no merchant snap guard');
  return c;
}

export function providerRequestOf(request: FastifyRequest): ProviderRequest {
  const c = (request as WithContext)[CONTEXT];
  if (!c || !('provider' in c)) throw new TypeError('route has no provider snap guard');
  return c;
}

const PROVIDER = Symbol('snapgate.provider');
type WithProvider = FastifyRequest & { [PROVIDER]?: ProviderRecord };

/** The provider of a guarded request that got past its token, if any (for the inbound log). */
export function callingProviderOf(request: FastifyRequest): ProviderRecord | undefined {
  return (request as WithProvider)[PROVIDER];
}

/**
 * An upstream acquirer that speaks this gateway's own callback form (another snapgate):
 * `/upstream/<providerId>/webhook/…`, signed as snapgate signs its callbacks, HMAC-SHA512 with the
 * outbound secret snapgate holds at that acquirer, or SHA256withRSA by the provider's key. A bad
 * signature is refused with 401 and changes nothing.
 */
export function upstreamWebhookGuard(deps: { store: Store; tokens: TokenService; clock: Clock; mode: Mode }) {
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const svc = request.routeOptions.config?.serviceCode ?? '00';
    const id = (request.params as { providerId?: string }).providerId ?? '';
    // Text no provider id holds is no provider (and PostgreSQL could not even look it up).
    const provider = isBadText(id) ? undefined : await deps.store.findProviderById(id);
    const refuse = (reason: string) => snapError('UNAUTHORIZED', svc, { reason, detail: { providerId: id } });
    const isUsable = provider?.status === 'active' && !(provider.isSandbox && deps.mode === 'production');
    if (provider?.kind !== 'acquirer' || !isUsable) throw refuse('Unknown Client');
    const { timestamp, timestampMs, externalId } = readSignedHeaders(request, svc, WEBHOOK_MANDATORY);
    if (!deps.tokens.isTimestampInWindow(timestampMs)) throw refuse('Timestamp Out Of Range');
    const raw = rawBodyOf(request);
    const bodyHash = bodyDigest(raw);
    const signature = headerValue(request, HEADER.signature) as string;
    const partnerId = headerValue(request, HEADER.partnerId) ?? '';
    const outbound = provider.outbound;
    const byHmac =
      outbound !== null &&
      partnerId === outbound.partnerId &&
      verifyHmacSha512(
        outbound.clientSecret,
        callbackHmacStringToSign({ path: request.url, partnerId, rawBody: raw, bodyHash, timestamp }),
        signature,
      );
    const byRsa =
      !byHmac &&
      provider.publicKeyPem !== null &&
      verifyRsaSha256(
        rsaPublicKey(provider.publicKeyPem),
        callbackRsaStringToSign({ path: request.url, rawBody: raw, bodyHash, timestamp }),
        signature,
      );
    if (!byHmac && !byRsa) throw refuse('Invalid Signature');
    (request as WithProvider)[PROVIDER] = provider;
    const base = snapRequestBase(request, svc, raw, bodyHash, provider.id, externalId, deps.clock.now());
    (request as WithContext)[CONTEXT] = { ...base, provider };
  };
}

/**
 * One guard for every SNAP service call, in the payment API's order: bearer token → mandatory
 * headers → formats → timestamp window → partner → HMAC-SHA512 over the raw bytes → rate limit →
 * body. A merchant's token is refused on provider routes and the reverse (401 xx01).
 */
export function snapGuard(deps: { tokens: TokenService; clock: Clock; audience?: Audience }) {
  const { tokens, clock } = deps;
  const audience = deps.audience ?? 'merchant';
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const svc = request.routeOptions.config?.serviceCode ?? '00';
    const auth = headerValue(request, HEADER.authorization);
    const accessToken = bearerToken(auth);
    let merchant: MerchantRecord | undefined;
    let provider: ProviderRecord | undefined;
    if (accessToken && audience === 'merchant') merchant = await tokens.merchantOfToken(accessToken);
    if (accessToken && audience === 'provider') provider = await tokens.providerOfToken(accessToken);
    const client = merchant ?? provider;
    if (!client || !accessToken) throw snapError('INVALID_TOKEN', svc);
    if (provider) (request as WithProvider)[PROVIDER] = provider;
    // A provider's partner ID is its client key.
    const partnerId = merchant ? merchant.partnerId : client.clientKey;
    const who = merchant ? { merchantId: client.id } : { providerId: client.id };

    const { timestamp, timestampMs, externalId } = readSignedHeaders(request, svc, MANDATORY);
    if ((headerValue(request, HEADER.channelId) as string).length > 5) {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'CHANNEL-ID' });
    }
    if (!tokens.isTimestampInWindow(timestampMs)) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Timestamp Out Of Range', detail: who });
    }
    if (headerValue(request, HEADER.partnerId) !== partnerId) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Unknown Partner', detail: who });
    }
    const raw = rawBodyOf(request);
    const bodyHash = bodyDigest(raw);
    const now = clock.now();
    // docs/protocol.md#payment-calls: the target exactly as sent and the raw bytes received, never a re-serialisation.
    const data = serviceStringToSign({
      method: request.method,
      path: request.url,
      accessToken,
      rawBody: raw,
      bodyHash,
      timestamp,
    });
    const signature = headerValue(request, HEADER.signature) as string;
    if (!activeSecrets(client, now).some((secret) => verifyHmacSha512(secret, data, signature))) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Invalid Signature', detail: who });
    }
    // Money coming in is never throttled: a bank's payment flags are not a merchant's API calls.
    if (merchant && !tokens.takeRateLimit(merchant.clientKey)) throw snapError('TOO_MANY_REQUESTS', svc);
    const base = snapRequestBase(request, svc, raw, bodyHash, client.id, externalId, now);
    // A customer's header that is there but no bearer token names no binding: refused, never ignored.
    const customerHeader = merchant ? headerValue(request, HEADER.customerAuthorization) : undefined;
    const customerToken = customerHeader === undefined ? undefined : (bearerToken(customerHeader) ?? '');
    (request as WithContext)[CONTEXT] = merchant
      ? { ...base, merchant, ...(customerToken === undefined ? {} : { customerToken }) }
      : { ...base, provider: provider as ProviderRecord };
  };
}

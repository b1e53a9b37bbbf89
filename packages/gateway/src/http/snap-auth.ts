import {
  bodyDigest,
  HEADER,
  HEADER_DISPLAY,
  jakartaDay,
  parseSnapTimestamp,
  serviceStringToSign,
  snapError,
  verifyHmacSha512,
} from '@snapgate/snap';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { IdempotencyKey, MerchantRecord } from '../store/store.ts';
import { activeSecrets, type TokenService } from '../tokens/token-service.ts';
import { headerValue, isJsonObject, mediaType, parseJsonBody, rawBodyOf } from './raw-body.ts';

/** What the guard hands an authenticated SNAP operation. */
export interface SnapContext {
  merchant: MerchantRecord;
  body: Record<string, unknown>;
  serviceCode: string;
  idempotencyKey: IdempotencyKey;
  /** Hash of method, target and body: a repeat must match it to be replayed. */
  requestHash: string;
  now: number;
}

const MANDATORY = [
  HEADER.contentType,
  HEADER.timestamp,
  HEADER.signature,
  HEADER.partnerId,
  HEADER.externalId,
  HEADER.channelId,
] as const;
const EXTERNAL_ID = /^\d{1,36}$/;

const CONTEXT = Symbol('snapgate.snapContext');
type WithContext = FastifyRequest & { [CONTEXT]?: SnapContext };

export function snapContextOf(request: FastifyRequest): SnapContext {
  const c = (request as WithContext)[CONTEXT];
  if (!c) throw new TypeError('route has no snap guard');
  return c;
}

/**
 * One guard for every payment operation, in SPEC §3's order: bearer token → mandatory headers →
 * formats → timestamp window → partner → HMAC-SHA512 over the raw bytes → rate limit → body.
 */
export function snapGuard(deps: { tokens: TokenService; clock: Clock }) {
  const { tokens, clock } = deps;
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const svc = request.routeOptions.config?.serviceCode ?? '00';
    const auth = headerValue(request, HEADER.authorization);
    const accessToken = auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
    const merchant = accessToken ? await tokens.merchantOfToken(accessToken) : undefined;
    if (!merchant || !accessToken) throw snapError('INVALID_TOKEN', svc);

    for (const name of MANDATORY) {
      if (!headerValue(request, name))
        throw snapError('INVALID_MANDATORY_FIELD', svc, { field: HEADER_DISPLAY[name] as string });
    }
    const timestamp = headerValue(request, HEADER.timestamp) as string;
    const externalId = headerValue(request, HEADER.externalId) as string;
    if (mediaType(headerValue(request, HEADER.contentType) as string) !== 'application/json') {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'Content-Type' });
    }
    const timestampMs = parseSnapTimestamp(timestamp);
    if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-TIMESTAMP' });
    if (!EXTERNAL_ID.test(externalId)) throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'X-EXTERNAL-ID' });
    if ((headerValue(request, HEADER.channelId) as string).length > 5) {
      throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'CHANNEL-ID' });
    }
    if (!tokens.isTimestampInWindow(timestampMs)) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Timestamp Out Of Range', detail: { merchantId: merchant.id } });
    }
    if (headerValue(request, HEADER.partnerId) !== merchant.partnerId) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Unknown Partner', detail: { merchantId: merchant.id } });
    }
    const raw = rawBodyOf(request);
    const now = clock.now();
    // SPEC §3: the target exactly as sent and the raw bytes received, never a re-serialisation.
    const data = serviceStringToSign({
      method: request.method,
      path: request.url,
      accessToken,
      rawBody: raw,
      timestamp,
    });
    const signature = headerValue(request, HEADER.signature) as string;
    if (!activeSecrets(merchant, now).some((secret) => verifyHmacSha512(secret, data, signature))) {
      throw snapError('UNAUTHORIZED', svc, { reason: 'Invalid Signature', detail: { merchantId: merchant.id } });
    }
    if (!tokens.takeRateLimit(merchant.clientKey)) throw snapError('TOO_MANY_REQUESTS', svc);
    const body = parseJsonBody(raw);
    if (!isJsonObject(body)) throw snapError('BAD_REQUEST', svc);

    (request as WithContext)[CONTEXT] = {
      merchant,
      body,
      serviceCode: svc,
      idempotencyKey: { merchantId: merchant.id, day: jakartaDay(now), externalId },
      requestHash: bodyDigest(`${request.method}:${request.url}:${bodyDigest(raw)}`),
      now,
    };
  };
}

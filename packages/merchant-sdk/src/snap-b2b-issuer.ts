import { createPublicKey, type KeyObject, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isJsonObject,
  mediaType,
  parseJsonBody,
  parseSnapTimestamp,
  type SnapBody,
  snapError,
  tokenStringToSign,
  verifyRsaSha256,
} from '@snapgate/snap';
import { readRawBody, writeResult } from './callback-handler.ts';
import { type Clock, systemClock } from './clock.ts';
import { type CallbackRequest, headerValue, type SnapB2bTokens } from './verify-callback.ts';

/** SNAP's B2B token service code, as a merchant's own token endpoint answers it. */
const SVC = '73';

/**
 * Options of {@link createSnapB2bTokenIssuer}.
 *
 * @example
 * const options: SnapB2bIssuerOptions = { clientKey, gatewayPublicKeyPem: pemFromTheGateway };
 */
export interface SnapB2bIssuerOptions {
  /** The merchant's client key at the gateway: X-CLIENT-KEY must equal it. */
  clientKey: string;
  /** The gateway's callback public key (GET /.well-known/snapgate/callback-public-key.pem). */
  gatewayPublicKeyPem: string | KeyObject;
  /** Token lifetime. Default 900. */
  ttlSec?: number;
  /** Accepted X-TIMESTAMP distance from now. Default 300. */
  toleranceSec?: number;
  clock?: Clock;
}

/**
 * The merchant's token endpoint for `snap-b2b` callbacks, and the tokens it issued.
 *
 * @example
 * http.createServer((req, res) => req.url === TOKEN_PATH ? issuer(req, res) : handler(req, res));
 */
export interface SnapB2bTokenIssuer extends SnapB2bTokens {
  (req: IncomingMessage, res: ServerResponse): void;
  handle(request: CallbackRequest): Promise<{ httpStatus: number; body: SnapBody }>;
  readonly maxBodyBytes: number;
}

/**
 * The merchant side of SNAP's inbound callbacks (`snap-b2b`): before it calls back, the gateway
 * takes a B2B token here, signed SHA256withRSA with its callback key over `<clientKey>|<X-TIMESTAMP>`.
 * Tokens are random, short-lived and kept in memory; give the issuer to
 * {@link createCallbackHandler} as `snapB2b` so callbacks must carry one. Adapters: node:http
 * (the issuer itself), {@link toExpress} and {@link fastifyCallbackPlugin} (with `paths: [TOKEN_PATH]`).
 *
 * @example
 * const issuer = createSnapB2bTokenIssuer({ clientKey, gatewayPublicKeyPem });
 * const callbacks = createCallbackHandler({ clientSecret, partnerId, snapB2b: issuer, onStatus });
 */
export function createSnapB2bTokenIssuer(options: SnapB2bIssuerOptions): SnapB2bTokenIssuer {
  const key =
    typeof options.gatewayPublicKeyPem === 'string'
      ? createPublicKey(options.gatewayPublicKeyPem)
      : options.gatewayPublicKeyPem;
  const clock = options.clock ?? systemClock;
  const ttlMs = (options.ttlSec ?? 900) * 1000;
  const toleranceMs = (options.toleranceSec ?? 300) * 1000;
  const issued = new Map<string, number>();

  function prune(now: number): void {
    for (const [token, until] of issued) if (until <= now) issued.delete(token);
  }

  async function handle(request: CallbackRequest): Promise<{ httpStatus: number; body: SnapBody }> {
    try {
      for (const name of ['Content-Type', 'X-CLIENT-KEY', 'X-TIMESTAMP', 'X-SIGNATURE']) {
        if (!headerValue(request.headers, name)) throw snapError('INVALID_MANDATORY_FIELD', SVC, { field: name });
      }
      const header = (name: string) => headerValue(request.headers, name) as string;
      if (mediaType(header('Content-Type')) !== 'application/json') {
        throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'Content-Type' });
      }
      const timestamp = header('X-TIMESTAMP');
      const timestampMs = parseSnapTimestamp(timestamp);
      if (timestampMs === undefined) throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'X-TIMESTAMP' });
      const body = parseJsonBody(typeof request.rawBody === 'string' ? Buffer.from(request.rawBody) : request.rawBody);
      if (!isJsonObject(body) || body.grantType !== 'client_credentials') {
        throw snapError('INVALID_FIELD_FORMAT', SVC, { field: 'grantType' });
      }
      if (header('X-CLIENT-KEY') !== options.clientKey)
        throw snapError('UNAUTHORIZED', SVC, { reason: 'Unknown Client' });
      const now = clock.now();
      if (Math.abs(now - timestampMs) > toleranceMs) {
        throw snapError('UNAUTHORIZED', SVC, { reason: 'Timestamp Out Of Range' });
      }
      if (!verifyRsaSha256(key, tokenStringToSign(options.clientKey, timestamp), header('X-SIGNATURE'))) {
        throw snapError('UNAUTHORIZED', SVC, { reason: 'Invalid Signature' });
      }
      prune(now);
      const accessToken = randomBytes(32).toString('base64url');
      issued.set(accessToken, now + ttlMs);
      return {
        httpStatus: 200,
        body: {
          responseCode: `200${SVC}00`,
          responseMessage: 'Successful',
          accessToken,
          tokenType: 'Bearer',
          expiresIn: String(ttlMs / 1000),
        } as SnapBody,
      };
    } catch (e) {
      const err = e as { httpStatus?: number; toBody?: () => SnapBody };
      if (err.toBody && err.httpStatus) return { httpStatus: err.httpStatus, body: err.toBody() };
      throw e;
    }
  }

  const maxBodyBytes = 4096;
  const issuer = ((req: IncomingMessage, res: ServerResponse) => {
    readRawBody(req, maxBodyBytes)
      .then(async (rawBody) =>
        writeResult(
          res,
          rawBody === undefined
            ? { httpStatus: 400, body: snapError('BAD_REQUEST', SVC).toBody() }
            : await handle({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody }),
        ),
      )
      .catch(() => res.destroy());
  }) as SnapB2bTokenIssuer;
  return Object.assign(issuer, {
    handle,
    maxBodyBytes,
    isValid(accessToken: string) {
      const until = issued.get(accessToken);
      return until !== undefined && clock.now() < until;
    },
  });
}

import { createHash } from 'node:crypto';
import {
  B2B_TOKEN_PATH,
  formatJakartaTimestamp,
  HEADER,
  hmacSha256Base64,
  hmacSha512Base64,
  rsaSha256SignBase64,
  serviceStringToSign,
  tokenStringToSign,
} from '@snapgate/snap';
import { Agent } from 'undici';
import { connectOptions, type OutboundPolicy } from '../address-guard.ts';
import type { Clock } from '../clock.ts';
import { startDeadline } from '../deadline.ts';
import { createTokenCache, type TakenToken } from '../tokens/token-cache.ts';

export const DEFAULT_PATH_PREFIX = '/api/snap/v1.0';
/** A SNAP answer is a small JSON object; anything past this is not one we want in memory. */
export const ANSWER_LIMIT_BYTES = 64 * 1024;
/** Take a new token this long before the current one expires, so it never lapses mid-call. */
const REFRESH_AHEAD_MS = 30_000;
const TOKEN_BODY = '{"grantType":"client_credentials"}';
const EXTERNAL_ID = /^\d{1,36}$/;

/** Another SNAP server and the credentials it issued to us. */
export interface SnapTarget {
  /** Names the target in the token cache (e.g. the provider id). */
  id: string;
  /** Origin only, e.g. `http://127.0.0.1:8081`; a trailing slash is tolerated. */
  baseUrl: string;
  clientKey: string;
  clientSecret: string;
  /** When set, the token request is signed SHA256withRSA instead of HMAC-SHA256 (docs/protocol.md#access-token). */
  privateKeyPem: string | null;
  partnerId: string;
  channelId: string;
  /** Default `/api/snap/v1.0/access-token/b2b`. */
  tokenPath?: string;
  /** Default `/api/snap/v1.0`. */
  pathPrefix?: string;
}

export interface SnapCall {
  /** Default POST. */
  method?: 'POST' | 'PUT' | 'DELETE';
  /** Below the path prefix, e.g. `qr/qr-mpm-generate`. */
  path: string;
  /** A string is sent (and signed) byte for byte; anything else is JSON.stringify'd once. */
  body: unknown;
  /** X-EXTERNAL-ID: numeric; the caller keeps it and reuses it when it retries. */
  externalId: string;
}

export interface SnapAnswer {
  httpStatus: number;
  body: Record<string, unknown>;
  raw: string;
}

export interface SnapCallOptions {
  /** Bounds the whole exchange, token included. Default: the client's `timeoutMs`. */
  timeoutMs?: number;
  /**
   * The X-Request-Id of the request this call is made for: it travels on, one id across the
   * gateway, its sandbox and an upstream acquirer that logs it.
   */
  requestId?: string | undefined;
  /**
   * Headers the signature does not cover, sent with the call: a customer's token at its wallet
   * (`Authorization-Customer`), say. Never logged.
   */
  headers?: Record<string, string>;
}

/** The exchange (token and call together) did not finish within its deadline. */
export class SnapCallTimeout extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`SNAP exchange exceeded ${timeoutMs} ms`);
    this.name = 'SnapCallTimeout';
    this.timeoutMs = timeoutMs;
  }
}

/** A network failure, a refused token, or an answer that is not SNAP JSON. Never holds a secret. */
export class SnapCallFailed extends Error {
  readonly detail: string;
  readonly httpStatus: number | undefined;
  constructor(detail: string, options: { httpStatus?: number; cause?: unknown } = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SnapCallFailed';
    this.detail = detail;
    this.httpStatus = options.httpStatus;
  }
}

export interface SnapClient {
  /**
   * Takes (or reuses) the token, then sends one signed call; no retry inside. A SNAP answer of
   * any HTTP status is returned; a 401 answer also drops the cached token.
   */
  call(target: SnapTarget, op: SnapCall, options?: SnapCallOptions): Promise<SnapAnswer>;
  /** Only the token step. */
  token(target: SnapTarget, options?: SnapCallOptions): Promise<string>;
  /**
   * A customer's token at the target (B2B2C, `access-token/b2b2c` under its path prefix), signed as
   * the token request is: its SNAP answer as given, whatever the HTTP status.
   */
  customerToken(target: SnapTarget, body: Record<string, unknown>, options?: SnapCallOptions): Promise<SnapAnswer>;
  /** Drops the cached token(s) of this target id. */
  forget(targetId: string): void;
  close(): Promise<void>;
}

function originOf(target: SnapTarget): string {
  const url = new URL(target.baseUrl);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new TypeError(`SNAP target ${target.id}: baseUrl must be an origin, without a path`);
  }
  return url.origin;
}

const trimSlashes = (s: string) => s.replace(/^\/+|\/+$/g, '');

function servicePath(target: SnapTarget, path: string): string {
  const prefix = trimSlashes(target.pathPrefix ?? DEFAULT_PATH_PREFIX);
  return `${prefix === '' ? '' : `/${prefix}`}/${path.replace(/^\/+/, '')}`;
}

/** A rotated secret or key must never be served the token taken with the old one. */
function cacheKeyOf(target: SnapTarget, origin: string): string {
  const credentials = createHash('sha256')
    .update(`${target.clientKey}\0${target.clientSecret}\0${target.privateKeyPem ?? ''}`)
    .digest('base64url');
  return `${target.id}\0${origin}\0${credentials}`;
}

function isTimeout(e: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return true;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && code.endsWith('_TIMEOUT');
}

function describe(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err.message === 'string' ? err.message : String(e);
  return typeof err.code === 'string' ? `${err.code}: ${message}` : message;
}

function parseExpiresInSec(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * The gateway's one outbound SNAP client: to an upstream acquirer, and from the sandbox bank
 * and the CLI to a gateway. One undici Agent keeps connections alive per origin.
 */
export function createSnapClient(deps: { clock: Clock; timeoutMs: number; outbound?: OutboundPolicy }): SnapClient {
  const { clock } = deps;
  // The gateway's own client dials acquirers through the one address guard; the CLI's names its target.
  const agent = new Agent({
    connectTimeout: deps.timeoutMs,
    ...(deps.outbound ? { connect: connectOptions(deps.outbound) } : {}),
  });
  const tokens = createTokenCache<TakenToken>({ clock });

  async function send(
    origin: string,
    request: { method: string; path: string; headers: Record<string, string>; body: string },
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<SnapAnswer> {
    let raw: string;
    let httpStatus: number;
    try {
      const res = await agent.request({ origin, ...request, signal });
      httpStatus = res.statusCode;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > ANSWER_LIMIT_BYTES) {
          // Destroying the body closes the connection instead of draining an unbounded answer.
          res.body.destroy();
          throw new SnapCallFailed(`answer larger than ${ANSWER_LIMIT_BYTES} bytes`, { httpStatus });
        }
        chunks.push(chunk as Buffer);
      }
      raw = Buffer.concat(chunks).toString('utf8');
    } catch (e) {
      if (e instanceof SnapCallFailed) throw e;
      if (isTimeout(e, signal)) throw new SnapCallTimeout(timeoutMs);
      throw new SnapCallFailed(`${request.method} ${request.path}: ${describe(e)}`, { cause: e });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = undefined;
    }
    if (
      typeof parsed !== 'object' ||
      parsed === null ||
      Array.isArray(parsed) ||
      typeof (parsed as { responseCode?: unknown }).responseCode !== 'string'
    ) {
      throw new SnapCallFailed(`${request.method} ${request.path}: HTTP ${httpStatus} answer is not SNAP JSON`, {
        httpStatus,
      });
    }
    return { httpStatus, body: parsed as Record<string, unknown>, raw };
  }

  /** The headers of a token request (B2B or B2B2C): `<clientKey>|<X-TIMESTAMP>` signed. */
  function tokenHeaders(target: SnapTarget, timestamp: string): Record<string, string> {
    // docs/protocol.md#access-token: `<clientKey>|<X-TIMESTAMP>`, the timestamp exactly as sent.
    const data = tokenStringToSign(target.clientKey, timestamp);
    let signature: string;
    try {
      signature = target.privateKeyPem
        ? rsaSha256SignBase64(target.privateKeyPem, data)
        : hmacSha256Base64(target.clientSecret, data);
    } catch {
      // The crypto error is dropped on purpose: it is about key material.
      throw new SnapCallFailed(`SNAP target ${target.id}: the private key cannot sign the token request`);
    }
    return {
      [HEADER.contentType]: 'application/json',
      [HEADER.clientKey]: target.clientKey,
      [HEADER.timestamp]: timestamp,
      [HEADER.signature]: signature,
    };
  }

  async function requestToken(target: SnapTarget, signal: AbortSignal, timeoutMs: number): Promise<TakenToken> {
    const origin = originOf(target);
    const path = `/${trimSlashes(target.tokenPath ?? B2B_TOKEN_PATH)}`;
    const startedAtMs = clock.now();
    const headers = tokenHeaders(target, formatJakartaTimestamp(startedAtMs));
    const answer = await send(origin, { method: 'POST', path, headers, body: TOKEN_BODY }, signal, timeoutMs);
    const { responseCode, responseMessage, accessToken, expiresIn } = answer.body;
    const expiresInSec = parseExpiresInSec(expiresIn);
    if (
      answer.httpStatus !== 200 ||
      typeof responseCode !== 'string' ||
      !responseCode.startsWith('2007') ||
      typeof accessToken !== 'string' ||
      accessToken === '' ||
      expiresInSec === undefined
    ) {
      const message = typeof responseMessage === 'string' ? ` ${responseMessage}` : '';
      throw new SnapCallFailed(
        `token refused by ${target.id}: HTTP ${answer.httpStatus} ${String(responseCode)}${message}`,
        { httpStatus: answer.httpStatus },
      );
    }
    // Lifetime counts from before the request left, so the cache never outlives the token.
    return { token: accessToken, reuseUntilMs: startedAtMs + expiresInSec * 1000 - REFRESH_AHEAD_MS };
  }

  /**
   * The target's token: cached, or one request shared by every concurrent caller of the target.
   * Each caller waits only until its own deadline (the cache rejects with its SnapCallTimeout).
   */
  async function takeToken(target: SnapTarget, deadline: AbortSignal, timeoutMs: number): Promise<string> {
    const key = cacheKeyOf(target, originOf(target));
    const request = (shared: AbortSignal) => requestToken(target, shared, timeoutMs);
    return (await tokens.take(target.id, key, request, deadline)).token;
  }

  /** Bounds one exchange, token included: aborts with SnapCallTimeout, and is gone once it ends. */
  const deadlineOf = (timeoutMs: number) => startDeadline(timeoutMs, () => new SnapCallTimeout(timeoutMs));

  return {
    async call(target, op, options = {}) {
      const timeoutMs = options.timeoutMs ?? deps.timeoutMs;
      if (!EXTERNAL_ID.test(op.externalId)) {
        throw new TypeError('SNAP call: externalId must be 1 to 36 digits');
      }
      const origin = originOf(target);
      const deadline = deadlineOf(timeoutMs);
      try {
        const accessToken = await takeToken(target, deadline.signal, timeoutMs);
        const method = op.method ?? 'POST';
        const path = servicePath(target, op.path);
        const body = typeof op.body === 'string' ? op.body : JSON.stringify(op.body);
        const timestamp = formatJakartaTimestamp(clock.now());
        // docs/upstream.md: the signature covers the path and the body bytes exactly as sent.
        const signature = hmacSha512Base64(
          target.clientSecret,
          serviceStringToSign({ method, path, accessToken, rawBody: body, timestamp }),
        );
        const headers = {
          [HEADER.contentType]: 'application/json',
          [HEADER.authorization]: `Bearer ${accessToken}`,
          [HEADER.timestamp]: timestamp,
          [HEADER.partnerId]: target.partnerId,
          [HEADER.externalId]: op.externalId,
          [HEADER.channelId]: target.channelId,
          [HEADER.signature]: signature,
          ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
          ...options.headers,
        };
        const answer = await send(origin, { method, path, headers, body }, deadline.signal, timeoutMs);
        // The server no longer accepts this token (expired early, revoked): the next call takes a new one.
        if (answer.httpStatus === 401) tokens.drop(target.id, accessToken);
        return answer;
      } finally {
        deadline.clear();
      }
    },
    async token(target, options = {}) {
      const timeoutMs = options.timeoutMs ?? deps.timeoutMs;
      const deadline = deadlineOf(timeoutMs);
      try {
        return await takeToken(target, deadline.signal, timeoutMs);
      } finally {
        deadline.clear();
      }
    },
    async customerToken(target, body, options = {}) {
      const timeoutMs = options.timeoutMs ?? deps.timeoutMs;
      const deadline = deadlineOf(timeoutMs);
      try {
        const headers = {
          ...tokenHeaders(target, formatJakartaTimestamp(clock.now())),
          ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
        };
        const path = servicePath(target, 'access-token/b2b2c');
        return await send(
          originOf(target),
          { method: 'POST', path, headers, body: JSON.stringify(body) },
          deadline.signal,
          timeoutMs,
        );
      } finally {
        deadline.clear();
      }
    },
    forget(targetId) {
      tokens.forget(targetId);
    },
    async close() {
      tokens.clear();
      await agent.close();
    },
  };
}

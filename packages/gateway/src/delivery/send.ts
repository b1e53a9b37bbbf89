import { isIP } from 'node:net';
import { Pool } from 'undici';
import { connectOptions, createAddressGuard, type OutboundPolicy } from '../address-guard.ts';
import { startDeadline } from '../deadline.ts';

import { storableText } from '../text.ts';

export const RESPONSE_BODY_LIMIT = 4096;
const PARSE_LIMIT = 64 * 1024;

export type AttemptOutcome = 'acknowledged' | 'rejected' | 'error';

export interface SendResult {
  outcome: AttemptOutcome;
  status: number | null;
  /** First 4 KiB of the answer. */
  responseBody: string | null;
  retryAfter: string | undefined;
  durationMs: number;
  error: string | null;
}

export interface Sender {
  /** `ack`: what acknowledges (default: the merchant's `strict` rule, isAcknowledgement). */
  post(url: URL, headers: Record<string, string>, body: string, ack?: AckRule): Promise<SendResult>;
  close(): Promise<void>;
}

/** Whether an answer (HTTP status, body) acknowledges a callback. */
export type AckRule = (status: number, body: string) => boolean;

/** The `responseCode` of a JSON object body, if it has one. */
function responseCodeOf(body: string): unknown {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null
      ? (parsed as { responseCode?: unknown }).responseCode
      : undefined;
  } catch {
    return undefined;
  }
}

/** docs/protocol.md#callbacks: only HTTP 200 whose JSON body has responseCode "2002600" acknowledges. */
export function isAcknowledgement(status: number, body: string): boolean {
  return status === 200 && responseCodeOf(body) === '2002600';
}

/**
 * `callbackAck: any-200`: HTTP 200 with any 200xxxx code, a string or a number (DOKU's library
 * answers 2002700). Acknowledgements are not authenticated in any mode, so this weakens nothing.
 */
export function isAnySuccessCode(status: number, body: string): boolean {
  const code = responseCodeOf(body);
  return status === 200 && (typeof code === 'string' || typeof code === 'number') && /^200\d{4}$/.test(String(code));
}

/** HTTP 200 whose `responseCode` is one of `codes` (an e-wallet's callback also takes its own `2005600`). */
export function strictAck(codes: readonly string[]): AckRule {
  if (codes.length === 1 && codes[0] === '2002600') return isAcknowledgement;
  return (status, body) => {
    const code = status === 200 ? responseCodeOf(body) : undefined;
    return typeof code === 'string' && codes.includes(code);
  };
}

/** The rule of a merchant's `callbackAck`; `strict`: the method's own (default: `2002600` only). */
export const ackRuleOf = (callbackAck: 'strict' | 'any-200', strict: AckRule = isAcknowledgement): AckRule =>
  callbackAck === 'any-200' ? isAnySuccessCode : strict;

function describe(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = err.cause?.code ?? err.code;
  const message = err.cause?.message ?? err.message ?? String(e);
  return code ? `${code}: ${message}` : message;
}

/** A send's result with its duration (a module function: no closure made per callback). */
function timed(started: number, r: Omit<SendResult, 'durationMs'>): SendResult {
  return { ...r, durationMs: Math.round(performance.now() - started) };
}

/** Callbacks go out through a keep-alive undici Pool per merchant origin (measured: 30k/s vs 3k/s for fetch). */
export function createSender(options: { timeoutMs: number; outbound?: OutboundPolicy; connections?: number }): Sender {
  const outbound = options.outbound ?? { guard: createAddressGuard(false) };
  const guard = outbound.guard;
  const pools = new Map<string, Pool>();
  const poolFor = (origin: string) => {
    let pool = pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: options.connections ?? 64,
        headersTimeout: options.timeoutMs,
        bodyTimeout: options.timeoutMs,
        connectTimeout: options.timeoutMs,
        connect: connectOptions(outbound),
      });
      pools.set(origin, pool);
    }
    return pool;
  };

  return {
    async post(url, headers, body, ack = isAcknowledgement) {
      const started = performance.now();
      // A URL saved in sandbox mode may be http: production sends only over TLS.
      if (guard.production && url.protocol !== 'https:') {
        const error = `EINSECURE: callbacks are sent only to https URLs in production mode, not ${url.protocol}`;
        return timed(started, { outcome: 'error', status: null, responseBody: null, retryAfter: undefined, error });
      }
      // An address written as the host is never looked up, so the lookup guard cannot see it.
      const literal = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(literal) !== 0 && !guard.allowsAddress(literal, literal)) {
        const error = `EFORBIDDENADDR: callback host ${literal} is a forbidden address`;
        return timed(started, { outcome: 'error', status: null, responseBody: null, retryAfter: undefined, error });
      }
      // One bound on the whole exchange (connect, answer and its body), gone once it ends.
      const deadline = startDeadline(options.timeoutMs);
      try {
        const res = await poolFor(url.origin).request({
          method: 'POST',
          path: `${url.pathname}${url.search}`,
          headers,
          body,
          signal: deadline.signal,
        });
        // An acknowledgement is a few dozen bytes: read at most PARSE_LIMIT, and past it stop
        // reading and close the connection, so a hostile answer costs neither time nor CPU.
        const chunks: Buffer[] = [];
        let size = 0;
        const declared = Number(res.headers['content-length']);
        let overLimit = Number.isFinite(declared) && declared > PARSE_LIMIT;
        if (!overLimit) {
          for await (const chunk of res.body) {
            size += (chunk as Buffer).length;
            if (size > PARSE_LIMIT) {
              overLimit = true;
              break;
            }
            chunks.push(chunk as Buffer);
          }
        }
        if (overLimit) res.body.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        const retryAfter = typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined;
        const acknowledged = !overLimit && ack(res.statusCode, text);
        return timed(started, {
          outcome: acknowledged ? 'acknowledged' : 'rejected',
          status: res.statusCode,
          responseBody: storableText(text.slice(0, RESPONSE_BODY_LIMIT)),
          retryAfter,
          error: acknowledged
            ? null
            : overLimit
              ? `not acknowledged: HTTP ${res.statusCode}, answer over ${PARSE_LIMIT} bytes (not read further)`
              : `not acknowledged: HTTP ${res.statusCode}`,
        });
      } catch (e) {
        const timedOut = (e as Error).name === 'TimeoutError' || (e as { code?: string }).code?.includes('TIMEOUT');
        return timed(started, {
          outcome: 'error',
          status: null,
          responseBody: null,
          retryAfter: undefined,
          error: timedOut ? `timeout after ${options.timeoutMs} ms` : storableText(describe(e)),
        });
      } finally {
        deadline.clear();
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close().catch(() => undefined)));
      pools.clear();
    },
  };
}

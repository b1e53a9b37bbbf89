import { isIP } from 'node:net';
import { type Dispatcher, Pool } from 'undici';
import { connectOptions, createAddressGuard, type OutboundPolicy } from '../address-guard.ts';

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

export type Answer =
  | { status: number; text: string; retryAfter: string | undefined; overLimit: boolean }
  | { error: string };

/** Why an exchange was cut short by the sender itself (never seen by the merchant). */
class Cut extends Error {}

/**
 * One POST and its answer, through undici's dispatch handlers rather than `request()`: no response
 * stream, async iterator or AbortSignal per callback (bench:sender: about a quarter less CPU per
 * exchange, docs/benchmarks.md). One bound covers the whole exchange (waiting for a
 * connection, the answer and its body); its timer goes as soon as the exchange ends. The answer is
 * read up to PARSE_LIMIT: past it (or when it declares more) the exchange is aborted, which closes
 * the connection, so a hostile answer costs neither time nor CPU.
 */
export function exchange(pool: Pool, path: string, headers: Record<string, string>, body: string, timeoutMs: number) {
  return new Promise<Answer>((resolve) => {
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    let status = 0;
    let retryAfter: string | undefined;
    let size = 0;
    const chunks: Buffer[] = [];
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
    };
    const overLimit = (c: Dispatcher.DispatchController) => {
      settle({ status, text: Buffer.concat(chunks).toString('utf8'), retryAfter, overLimit: true });
      // Paused first, so the parser stops at this chunk rather than reading on to the answer's end.
      c.pause();
      c.abort(new Cut('answer over the limit'));
    };
    const timer = setTimeout(() => {
      settle({ error: `timeout after ${timeoutMs} ms` });
      controller?.abort(new Cut('timeout'));
    }, timeoutMs);
    // As AbortSignal.timeout's: a deadline alone does not keep the process alive.
    timer.unref();
    pool.dispatch(
      { method: 'POST', path, headers, body },
      {
        onRequestStart(c) {
          controller = c;
          // Timed out while waiting for a connection: it is not sent at all.
          if (settled) c.abort(new Cut('timeout'));
        },
        onResponseStart(c, statusCode, responseHeaders) {
          if (statusCode < 200) return;
          status = statusCode;
          const after = responseHeaders['retry-after'];
          retryAfter = typeof after === 'string' ? after : undefined;
          const declared = Number(responseHeaders['content-length']);
          if (Number.isFinite(declared) && declared > PARSE_LIMIT) overLimit(c);
        },
        onResponseData(c, chunk) {
          if (settled) return;
          size += chunk.length;
          if (size > PARSE_LIMIT) overLimit(c);
          else chunks.push(chunk);
        },
        onResponseEnd() {
          settle({ status, text: Buffer.concat(chunks).toString('utf8'), retryAfter, overLimit: false });
        },
        onResponseError(_c, e) {
          // undici's own bounds (connect, headers, body) are set to the same timeout.
          const timedOut = (e as { code?: string }).code?.includes('TIMEOUT') === true;
          settle({ error: timedOut ? `timeout after ${timeoutMs} ms` : storableText(describe(e)) });
        },
      },
    );
  });
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
      const r = await exchange(poolFor(url.origin), `${url.pathname}${url.search}`, headers, body, options.timeoutMs);
      if ('error' in r) {
        return timed(started, {
          outcome: 'error',
          status: null,
          responseBody: null,
          retryAfter: undefined,
          error: r.error,
        });
      }
      const acknowledged = !r.overLimit && ack(r.status, r.text);
      return timed(started, {
        outcome: acknowledged ? 'acknowledged' : 'rejected',
        status: r.status,
        responseBody: storableText(r.text.slice(0, RESPONSE_BODY_LIMIT)),
        retryAfter: r.retryAfter,
        error: acknowledged
          ? null
          : r.overLimit
            ? `not acknowledged: HTTP ${r.status}, answer over ${PARSE_LIMIT} bytes (not read further)`
            : `not acknowledged: HTTP ${r.status}`,
      });
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close().catch(() => undefined)));
      pools.clear();
    },
  };
}

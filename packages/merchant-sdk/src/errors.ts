import type { SnapBody } from '@snapgate/snap';

/**
 * A SNAP error answered by the gateway, rebuilt from its body: the gateway's own
 * `responseCode` and `responseMessage`, and the HTTP status of the answer. It has the same shape
 * as `SnapError` (`isSnapError(e)` is true), so one `catch` handles both.
 *
 * @example
 * try {
 *   await snap.queryQris({ originalPartnerReferenceNo: 'ORDER-1' });
 * } catch (e) {
 *   if (e instanceof SnapApiError && e.responseCode === '4045101') console.log('no such QRIS');
 * }
 */
export class SnapApiError extends Error {
  readonly responseCode: string;
  readonly responseMessage: string;
  readonly httpStatus: number;
  /** The whole parsed answer (SNAP error bodies may carry more than the two fields), when JSON. */
  readonly body: unknown;
  /** Private detail for logs (the first bytes of an answer that was not SNAP). */
  readonly detail: unknown;

  constructor(
    init: { responseCode: string; responseMessage: string; httpStatus: number; body?: unknown; detail?: unknown },
    options?: { cause?: unknown },
  ) {
    super(`${init.responseCode} ${init.responseMessage}`, options);
    this.name = 'SnapApiError';
    this.responseCode = init.responseCode;
    this.responseMessage = init.responseMessage;
    this.httpStatus = init.httpStatus;
    this.body = init.body;
    this.detail = init.detail;
  }

  /** The public body: `{ responseCode, responseMessage }`. */
  toBody(): SnapBody {
    return { responseCode: this.responseCode, responseMessage: this.responseMessage };
  }
}

/**
 * No answer from the gateway: the connection was refused or reset, the name did not resolve, or
 * the answer did not arrive within `timeoutMs`. The request may or may not have been processed:
 * repeat a payment call with the same X-EXTERNAL-ID (the SDK does, `retries` times) and it is
 * answered once. `cause` is the underlying error (undici's `TypeError: fetch failed` and its own
 * cause, or the timeout's `TimeoutError`).
 *
 * @example
 * try {
 *   await snap.generateQris({ partnerReferenceNo: 'ORDER-1', amount: idr('10000.00') });
 * } catch (e) {
 *   if (e instanceof SnapNetworkError) console.log(e.timedOut ? 'gateway too slow' : 'gateway unreachable');
 * }
 */
export class SnapNetworkError extends Error {
  /** The URL called (no credentials are ever part of it). */
  readonly url: string;
  readonly method: string;
  /** True when no answer arrived within the client's `timeoutMs`. */
  readonly timedOut: boolean;
  /** The system error code when there is one: `ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, … */
  readonly code: string | undefined;

  constructor(init: { url: string; method: string; timedOut: boolean; code?: string }, options?: { cause?: unknown }) {
    const what = init.timedOut ? 'no answer in time' : `no answer${init.code ? ` (${init.code})` : ''}`;
    super(`${init.method} ${init.url}: ${what}`, options);
    this.name = 'SnapNetworkError';
    this.url = init.url;
    this.method = init.method;
    this.timedOut = init.timedOut;
    this.code = init.code;
  }
}

/** The system error code somewhere in a fetch failure's chain of causes. */
function systemCode(e: unknown): string | undefined {
  for (let c: unknown = e, depth = 0; c && typeof c === 'object' && depth < 5; depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * One HTTP exchange with the gateway, read to the end. A failure to get an answer (or to read
 * all of it) becomes a {@link SnapNetworkError}, never a bare `TypeError: fetch failed`.
 */
export async function exchange(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit & { method: string },
  timeoutMs: number,
): Promise<SnapAnswer> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await readAnswer(await doFetch(url, { ...init, redirect: 'manual', signal }));
  } catch (e) {
    const timedOut = signal.aborted;
    throw new SnapNetworkError(
      { url, method: init.method, timedOut, ...(timedOut ? {} : { code: systemCode(e) }) },
      { cause: e },
    );
  }
}

const RESPONSE_CODE = /^\d{7}$/;

/** A parsed answer: its status, raw text and JSON (undefined when the text is not JSON). */
export interface SnapAnswer {
  httpStatus: number;
  text: string;
  json: unknown;
}

/** Reads an answer's body once; JSON when it parses. */
export async function readAnswer(res: Response): Promise<SnapAnswer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { httpStatus: res.status, text, json };
}

/** True for a JSON object carrying a SNAP `responseCode` and `responseMessage`. */
export function isSnapBody(value: unknown): value is SnapBody & Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as SnapBody).responseCode === 'string' &&
    RESPONSE_CODE.test((value as SnapBody).responseCode) &&
    typeof (value as SnapBody).responseMessage === 'string'
  );
}

/**
 * True when the answer is a SNAP success: HTTP 2xx and a `2xx…` responseCode. That includes 202
 * `202xx00` Request In Progress (a transfer's pending answer, docs/protocol.md#transfer-18): the
 * request was taken and is on its way, so it is returned to the caller, never thrown.
 */
export function isSuccess(answer: SnapAnswer): boolean {
  return (
    answer.httpStatus >= 200 &&
    answer.httpStatus < 300 &&
    isSnapBody(answer.json) &&
    answer.json.responseCode.startsWith('2')
  );
}

/**
 * The error for an answer that is not a success. A SNAP body keeps the gateway's code; anything
 * else (a proxy's HTML page, an empty 502) becomes `<status><service>00` with the text as detail.
 */
export function errorFromAnswer(answer: SnapAnswer, serviceCode: string): SnapApiError {
  if (isSnapBody(answer.json) && !answer.json.responseCode.startsWith('2')) {
    return new SnapApiError({
      responseCode: answer.json.responseCode,
      responseMessage: answer.json.responseMessage,
      httpStatus: answer.httpStatus,
      body: answer.json,
    });
  }
  const status = answer.httpStatus >= 400 && answer.httpStatus <= 599 ? answer.httpStatus : 500;
  return new SnapApiError({
    responseCode: `${status}${serviceCode}00`,
    responseMessage: 'Unexpected Response',
    httpStatus: status,
    body: answer.json,
    detail: { httpStatus: answer.httpStatus, text: answer.text.slice(0, 512) },
  });
}

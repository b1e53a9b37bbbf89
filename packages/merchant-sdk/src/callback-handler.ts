import { createPublicKey } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  canChangeStatus,
  isFinalStatus,
  isSnapError,
  SERVICE,
  type SnapBody,
  snapError,
  statusRank,
  type TransactionStatus,
} from '@snapgate/snap';
import { type Clock, systemClock } from './clock.ts';
import { createMemoryDedupeStore, createMemoryStatusStore, type DedupeStore, type StatusStore } from './stores.ts';
import type { PaymentNotification } from './types.ts';
import { type CallbackKey, type CallbackRequest, headerValue, verifyCallback } from './verify-callback.ts';

/**
 * What the merchant should do with its order (docs/protocol.md#transaction-statuses): `PAID` (00), `FAILED` (06), `WAIT` for the
 * next notification (01, 03, and 02 Paying, which is still in progress), `CANCELED` (05: the
 * QRIS was canceled, nobody paid) and `REFUNDED` (04: the whole amount went back).
 *
 * @example
 * const action: CallbackAction = actionOf('00'); // 'PAID'
 */
export type CallbackAction = 'PAID' | 'FAILED' | 'WAIT' | 'CANCELED' | 'REFUNDED';

/**
 * The action for a transaction status (see {@link CallbackAction}).
 *
 * @example
 * actionOf('06'); // 'FAILED'
 * actionOf('03'); // 'WAIT'
 */
export function actionOf(status: TransactionStatus): CallbackAction {
  switch (status) {
    case '00':
      return 'PAID';
    case '06':
      return 'FAILED';
    case '04':
      return 'REFUNDED';
    case '05':
      return 'CANCELED';
    case '01':
    case '02':
    case '03':
      return 'WAIT';
  }
}

/**
 * True when `next` moves a transaction on from `previous`: an allowed change (docs/protocol.md#transaction-statuses) or a
 * later stage (the gateway may skip superseded statuses, e.g. 01 → 04), but never away from a
 * final status, never back to a lower stage, and not the same status again.
 *
 * @example
 * isNewerStatus('03', '00'); // true
 * isNewerStatus('00', '03'); // false: an older notification arriving late
 */
export function isNewerStatus(previous: TransactionStatus | undefined, next: TransactionStatus): boolean {
  if (previous === undefined) return true;
  if (previous === next || isFinalStatus(previous)) return false;
  return canChangeStatus(previous, next) || statusRank(next) > statusRank(previous);
}

/**
 * What `onStatus` receives: a verified notification that moves its transaction on.
 *
 * @example
 * const onStatus = async ({ action, notification }: StatusEvent) => {
 *   if (action === 'PAID') await orders.markPaid(notification.originalPartnerReferenceNo);
 * };
 */
export interface StatusEvent {
  action: CallbackAction;
  status: TransactionStatus;
  /** The status applied before this one, if any. */
  previousStatus: TransactionStatus | undefined;
  notification: PaymentNotification;
  /** X-EXTERNAL-ID: the notification's id at the gateway. */
  externalId: string | undefined;
  /** The request target it arrived on (the QRIS or the VA path). */
  path: string;
}

/**
 * How a callback ended: `applied` (onStatus ran), `duplicate` (X-EXTERNAL-ID seen before),
 * `stale` (older, lower or equal status: acknowledged, not applied), `rejected` (verification
 * failed: 4xx) or `failed` (onStatus or a store threw: 500, so the gateway retries).
 *
 * @example
 * const outcome: CallbackOutcome = 'duplicate';
 */
export type CallbackOutcome = 'applied' | 'duplicate' | 'stale' | 'rejected' | 'failed';

/**
 * The answer to one callback and why.
 *
 * @example
 * const r: CallbackResult = await handler.handle({ method, path, headers, rawBody });
 * res.writeHead(r.httpStatus, { 'content-type': 'application/json' }).end(JSON.stringify(r.body));
 */
export interface CallbackResult {
  httpStatus: number;
  body: SnapBody;
  outcome: CallbackOutcome;
  externalId?: string;
  notification?: PaymentNotification;
  action?: CallbackAction;
  /** Why it was rejected or failed (a SnapError, or what onStatus threw). Never sent. */
  error?: unknown;
}

/**
 * Options of {@link createCallbackHandler}: the key and partner of {@link verifyCallback}, what to
 * do with a status, and where to remember what was seen.
 *
 * @example
 * const options: CallbackHandlerOptions = { clientSecret, partnerId, onStatus: ({ action }) => console.log(action) };
 */
export type CallbackHandlerOptions = CallbackKey & {
  partnerId: string;
  /** Applies a status to the merchant's order; a throw answers 500 so the gateway retries. */
  onStatus(event: StatusEvent): void | Promise<void>;
  /** Default: in memory ({@link createMemoryDedupeStore}). */
  dedupeStore?: DedupeStore;
  /** Default: in memory ({@link createMemoryStatusStore}). */
  statusStore?: StatusStore;
  /** Accepted X-TIMESTAMP distance from now. Default 300. */
  toleranceSec?: number;
  clock?: Clock;
  /** Bodies larger than this are refused (400). Default 65 536. */
  maxBodyBytes?: number;
  /** Told how every callback ended (for logs and metrics); what it throws is ignored. */
  onOutcome?(result: CallbackResult, request: CallbackRequest): void;
};

/**
 * A node:http request listener, plus the framework-free core (`handle`) that adapters use.
 *
 * @example
 * http.createServer(handler).listen(3000);
 * const r = await handler.handle({ method: 'POST', path, headers, rawBody });
 */
export interface CallbackHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  handle(request: CallbackRequest): Promise<CallbackResult>;
  readonly maxBodyBytes: number;
}

/**
 * The acknowledgement the gateway waits for.
 *
 * @example
 * res.end(JSON.stringify(ACKNOWLEDGEMENT)); // {"responseCode":"2002600","responseMessage":"Success"}
 */
export const ACKNOWLEDGEMENT: SnapBody = Object.freeze({ responseCode: '2002600', responseMessage: 'Success' });

const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a request body up to `maxBytes`; `undefined` when it is larger (the rest is drained).
 *
 * @example
 * const raw = await readRawBody(req, 65_536);
 */
export function readRawBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += b.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(b);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Writes a callback answer as JSON.
 *
 * @example
 * writeResult(res, await handler.handle(request));
 */
export function writeResult(res: ServerResponse, result: Pick<CallbackResult, 'httpStatus' | 'body'>): void {
  res.writeHead(result.httpStatus, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
}

/**
 * A callback receiver (docs/protocol.md#callbacks): verifies each callback ({@link verifyCallback};
 * a bad one gets its 4xx SNAP body, never 200), drops a duplicate X-EXTERNAL-ID with a 200
 * acknowledgement, and calls `onStatus` only for a status that moves the transaction on
 * ({@link isNewerStatus}: a late 03 never overwrites PAID). It answers 200
 * `{"responseCode":"2002600","responseMessage":"Success"}` once `onStatus` has returned; if it
 * throws, 500 `5002600` and neither the id nor the status is recorded, so the gateway's retry is
 * applied again. Callbacks of one transaction are handled one at a time in this process.
 * X-EXTERNAL-ID is not signed: a replayed callback with a new id still cannot apply a status twice.
 *
 * @example
 * const handler = createCallbackHandler({
 *   clientSecret, partnerId,
 *   onStatus: async ({ action, notification }) => {
 *     if (action === 'PAID') await orders.markPaid(notification.originalPartnerReferenceNo);
 *     if (action === 'FAILED') await orders.markFailed(notification.originalPartnerReferenceNo);
 *   },
 * });
 * http.createServer(handler).listen(3000);
 */
export function createCallbackHandler(options: CallbackHandlerOptions): CallbackHandler {
  const { partnerId, onStatus } = options;
  if (!partnerId) throw new TypeError('createCallbackHandler: partnerId is required');
  if ((options.clientSecret === undefined) === (options.gatewayPublicKeyPem === undefined)) {
    throw new TypeError('createCallbackHandler: give exactly one of clientSecret or gatewayPublicKeyPem');
  }
  const key: CallbackKey =
    options.gatewayPublicKeyPem === undefined
      ? { clientSecret: options.clientSecret, snapB2b: options.snapB2b }
      : // Parse the PEM once: it costs more than the verification.
        { gatewayPublicKeyPem: createPublicKey(options.gatewayPublicKeyPem) };
  const dedupe = options.dedupeStore ?? createMemoryDedupeStore();
  const statuses = options.statusStore ?? createMemoryStatusStore();
  const clock = options.clock ?? systemClock;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const failed: SnapBody = snapError('GENERAL_ERROR', SERVICE.callback).toBody();

  // One callback per transaction at a time, so a duplicate waits for the first to finish.
  const queues = new Map<string, Promise<unknown>>();
  async function oneAtATime<T>(id: string, work: () => Promise<T>): Promise<T> {
    const run = (queues.get(id) ?? Promise.resolve()).then(work);
    const tail = run.catch(() => undefined);
    queues.set(id, tail);
    try {
      return await run;
    } finally {
      if (queues.get(id) === tail) queues.delete(id);
    }
  }

  async function apply(request: CallbackRequest): Promise<CallbackResult> {
    let notification: PaymentNotification;
    try {
      notification = verifyCallback(request, {
        ...key,
        partnerId,
        toleranceSec: options.toleranceSec,
        now: clock.now(),
      });
    } catch (e) {
      if (!isSnapError(e)) throw e;
      return { httpStatus: e.httpStatus, body: e.toBody(), outcome: 'rejected', error: e };
    }
    const externalId = headerValue(request.headers, 'X-EXTERNAL-ID') || undefined;
    const ack = (outcome: CallbackOutcome, action?: CallbackAction): CallbackResult => ({
      httpStatus: 200,
      body: ACKNOWLEDGEMENT,
      outcome,
      externalId,
      notification,
      ...(action ? { action } : {}),
    });
    const ref = notification.originalReferenceNo;
    return oneAtATime(ref, async () => {
      try {
        if (externalId !== undefined && (await dedupe.has(externalId))) return ack('duplicate');
        const previousStatus = await statuses.get(ref);
        const status = notification.latestTransactionStatus;
        if (!isNewerStatus(previousStatus, status)) {
          if (externalId !== undefined) await dedupe.add(externalId);
          return ack('stale');
        }
        const action = actionOf(status);
        await onStatus({ action, status, previousStatus, notification, externalId, path: request.path });
        // Recorded only after onStatus succeeded: a failure leaves the retry free to apply it.
        await statuses.set(ref, status);
        if (externalId !== undefined) await dedupe.add(externalId);
        return ack('applied', action);
      } catch (e) {
        return { httpStatus: 500, body: failed, outcome: 'failed', externalId, notification, error: e };
      }
    });
  }

  async function handle(request: CallbackRequest): Promise<CallbackResult> {
    const result = await apply(request);
    try {
      options.onOutcome?.(result, request);
    } catch {
      // An observer must not change the answer.
    }
    return result;
  }

  const tooLarge: CallbackResult = {
    httpStatus: 400,
    body: snapError('BAD_REQUEST', SERVICE.callback).toBody(),
    outcome: 'rejected',
  };
  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    readRawBody(req, maxBodyBytes)
      .then(async (rawBody) =>
        writeResult(
          res,
          rawBody === undefined
            ? tooLarge
            : await handle({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody }),
        ),
      )
      .catch(() => {
        if (!res.headersSent) writeResult(res, { httpStatus: 500, body: failed });
        else res.destroy();
      });
  }) as CallbackHandler;
  return Object.assign(handler, { handle, maxBodyBytes });
}

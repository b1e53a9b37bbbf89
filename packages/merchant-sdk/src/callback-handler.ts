import { createPublicKey } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  canChangeStatus,
  isFinalStatus,
  isSnapError,
  type Money,
  SERVICE,
  type SnapBody,
  snapError,
  statusRank,
  type TransactionStatus,
} from '@snapgate/snap';
import { type Clock, systemClock } from './clock.ts';
import { createMemoryDedupeStore, createMemoryStatusStore, type DedupeStore, type StatusStore } from './stores.ts';
import type { PaymentNotification, RefundNotice, TransferNotification, TransferStatus } from './types.ts';
import {
  type CallbackKey,
  type CallbackRequest,
  headerValue,
  isMoney,
  type VerifyCallbackOptions,
  verifyCallback,
  verifyTransferCallback,
} from './verify-callback.ts';

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
 * What `onRefund` receives: a verified refund's callback (docs/protocol.md#refund-callbacks), once
 * per refund that reaches you: a part (status stays `00`) or the last part (status `04`, when
 * `onStatus` runs too, after it). A refund's callback replaces an undelivered earlier one, so two
 * quick refunds may come as one naming the later: keep `refundedAmount`, the total.
 *
 * @example
 * const onRefund = async ({ refund, refundedAmount, notification }: RefundEvent) => {
 *   await orders.setRefunded(notification.originalPartnerReferenceNo, refundedAmount.value, refund.refundNo);
 * };
 */
export interface RefundEvent {
  refund: RefundNotice;
  /** The total refunded so far, this refund included. */
  refundedAmount: Money;
  status: TransactionStatus;
  notification: PaymentNotification;
  /** X-EXTERNAL-ID: the notification's id at the gateway. */
  externalId: string | undefined;
  /** The request target it arrived on. */
  path: string;
}

/**
 * How a callback ended: `applied` (onStatus or onRefund ran), `duplicate` (X-EXTERNAL-ID seen before),
 * `stale` (older, lower or equal status: acknowledged, not applied), `rejected` (verification
 * failed: 4xx) or `failed` (onStatus, onRefund or a store threw: 500, so the gateway retries).
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
export interface CallbackResult<N = PaymentNotification> {
  httpStatus: number;
  body: SnapBody;
  outcome: CallbackOutcome;
  externalId?: string;
  notification?: N;
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
export type CallbackHandlerOptions = HandlerOptions<PaymentNotification> & {
  /** Applies a status to the merchant's order; a throw answers 500 so the gateway retries. */
  onStatus(event: StatusEvent): void | Promise<void>;
  /**
   * Applies a refund to the merchant's order, once per `refundNo` (remembered in the dedupe store
   * as `refund:<refundNo>`); a throw answers 500 so the gateway retries. Without it, a partial
   * refund's callback (status `00` again) is acknowledged as stale.
   */
  onRefund?(event: RefundEvent): void | Promise<void>;
};

/** The refund a payment notification tells of, when it is a refund's callback of the documented shape. */
function refundOf(n: PaymentNotification): { refund: RefundNotice; refundedAmount: Money } | undefined {
  const { refund, refundedAmount } = n.additionalInfo;
  if (typeof refund !== 'object' || refund === null) return undefined;
  const texts = [refund.refundNo, refund.partnerRefundNo, refund.refundTime];
  if (!texts.every((t) => typeof t === 'string') || !isMoney(refund.refundAmount) || !isMoney(refundedAmount)) {
    return undefined;
  }
  return { refund, refundedAmount };
}

/** What both handlers take: the key and partner of {@link verifyCallback}, stores, limits, an observer. */
type HandlerOptions<N> = CallbackKey & {
  partnerId: string;
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
  onOutcome?(result: CallbackResult<N>, request: CallbackRequest): void;
};

/**
 * A node:http request listener, plus the framework-free core (`handle`) that adapters use.
 *
 * @example
 * http.createServer(handler).listen(3000);
 * const r = await handler.handle({ method: 'POST', path, headers, rawBody });
 */
export interface CallbackHandler<N = PaymentNotification> {
  (req: IncomingMessage, res: ServerResponse): void;
  handle(request: CallbackRequest): Promise<CallbackResult<N>>;
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
 * ({@link isNewerStatus}: a late 03 never overwrites PAID), and `onRefund` (when given) once per
 * refund a refund's callback names. It answers 200
 * `{"responseCode":"2002600","responseMessage":"Success"}` once they have returned; if one
 * throws, 500 `5002600` and what it was to apply is not recorded, so the gateway's retry applies it
 * again. Callbacks of one transaction are handled one at a time in this process.
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
  const { onStatus, onRefund } = options;
  const refundEvent = (notification: PaymentNotification): SideEvent | undefined => {
    const told = onRefund && refundOf(notification);
    if (!told) return undefined;
    return {
      key: `refund:${told.refund.refundNo}`,
      run: ({ externalId, path }) =>
        onRefund({ ...told, status: notification.latestTransactionStatus, notification, externalId, path }),
    };
  };
  return createHandler(
    'createCallbackHandler',
    options,
    verifyCallback,
    async (notification, context) => {
      const status = notification.latestTransactionStatus;
      const action = actionOf(status);
      const { previousStatus, externalId, path } = context;
      await onStatus({ action, status, previousStatus, notification, externalId, path });
      return action;
    },
    refundEvent,
  );
}

/**
 * What a transfer's end asks of the merchant: `PAID` (00: the money reached the beneficiary),
 * `FAILED` (06: nothing was paid, the amount and fee are back in its pending balance), `WAIT` (03).
 *
 * @example
 * const action: TransferAction = 'FAILED';
 */
export type TransferAction = Extract<CallbackAction, 'PAID' | 'FAILED' | 'WAIT'>;

/**
 * What `onTransfer` receives: a verified transfer callback that moves its transfer on.
 *
 * @example
 * const onTransfer = async ({ action, notification }: TransferEvent) => {
 *   if (action === 'FAILED') await payouts.markFailed(notification.originalPartnerReferenceNo);
 * };
 */
export interface TransferEvent {
  action: TransferAction;
  status: TransferStatus;
  /** The status applied before this one, if any. */
  previousStatus: TransactionStatus | undefined;
  notification: TransferNotification;
  /** X-EXTERNAL-ID: the callback's id at the gateway. */
  externalId: string | undefined;
  /** The request target it arrived on. */
  path: string;
}

/**
 * Options of {@link createTransferCallbackHandler}: those of {@link createCallbackHandler}, with
 * `onTransfer` in place of `onStatus`.
 *
 * @example
 * const options: TransferCallbackHandlerOptions = { clientSecret, partnerId, onTransfer: ({ action }) => console.log(action) };
 */
export type TransferCallbackHandlerOptions = HandlerOptions<TransferNotification> & {
  /** Applies a transfer's end to the merchant's records; a throw answers 500 so the gateway retries. */
  onTransfer(event: TransferEvent): void | Promise<void>;
};

/**
 * A transfer callback receiver (docs/protocol.md#transfer-callbacks): the ends of transfers the
 * gateway answered 202, posted by default to `<callbackBaseUrl>/v1.0/transfer/notify`
 * ({@link TRANSFER_CALLBACK_PATH}). The same rules as {@link createCallbackHandler}'s, with
 * {@link verifyTransferCallback}: a bad callback gets its 4xx SNAP body; a duplicate
 * X-EXTERNAL-ID or a status that does not move the transfer on is acknowledged without calling
 * `onTransfer`; otherwise `onTransfer` runs and the answer is 200 `2002600`, or 500 `5002600` if
 * it throws. A payment notification sent here is refused (400), as a transfer callback is by the
 * payment handler: each handler applies only its own kind.
 *
 * @example
 * const transfers = createTransferCallbackHandler({
 *   clientSecret, partnerId,
 *   onTransfer: async ({ action, notification }) => {
 *     if (action === 'PAID') await payouts.markPaid(notification.originalPartnerReferenceNo);
 *     if (action === 'FAILED') await payouts.markFailed(notification.originalPartnerReferenceNo);
 *   },
 * });
 * http.createServer((req, res) =>
 *   req.url?.startsWith(TRANSFER_CALLBACK_PATH) ? transfers(req, res) : payments(req, res),
 * ).listen(3000);
 */
export function createTransferCallbackHandler(
  options: TransferCallbackHandlerOptions,
): CallbackHandler<TransferNotification> {
  const { onTransfer } = options;
  return createHandler(
    'createTransferCallbackHandler',
    options,
    verifyTransferCallback,
    async (notification, context) => {
      const status = notification.latestTransactionStatus;
      const action: TransferAction = status === '00' ? 'PAID' : status === '06' ? 'FAILED' : 'WAIT';
      const { previousStatus, externalId, path } = context;
      await onTransfer({ action, status, previousStatus, notification, externalId, path });
      return action;
    },
  );
}

/** What a handler knows of a callback besides its body, for the merchant's function. */
interface ApplyContext {
  previousStatus: TransactionStatus | undefined;
  externalId: string | undefined;
  path: string;
}

/** Something a callback tells besides its status (a refund), applied once per `key`. */
interface SideEvent {
  key: string;
  run(context: ApplyContext): void | Promise<void>;
}

/**
 * The handler of one kind of callback: `verify` checks and parses it, `applyStatus` runs the
 * merchant's function for a status that moves its transaction on and says which action it was;
 * `sideEvent` names what else it tells (a refund), applied once even when its status is not new.
 */
function createHandler<N extends { originalReferenceNo: string; latestTransactionStatus: TransactionStatus }>(
  name: string,
  options: HandlerOptions<N>,
  verify: (request: CallbackRequest, options: VerifyCallbackOptions) => N,
  applyStatus: (notification: N, context: ApplyContext) => Promise<CallbackAction>,
  sideEvent?: (notification: N) => SideEvent | undefined,
): CallbackHandler<N> {
  const { partnerId } = options;
  if (!partnerId) throw new TypeError(`${name}: partnerId is required`);
  if ((options.clientSecret === undefined) === (options.gatewayPublicKeyPem === undefined)) {
    throw new TypeError(`${name}: give exactly one of clientSecret or gatewayPublicKeyPem`);
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

  async function apply(request: CallbackRequest): Promise<CallbackResult<N>> {
    let notification: N;
    try {
      notification = verify(request, {
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
    const ack = (outcome: CallbackOutcome, action?: CallbackAction): CallbackResult<N> => ({
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
        const context = { previousStatus, externalId, path: request.path };
        const side = sideEvent?.(notification);
        const isSideNew = side !== undefined && !(await dedupe.has(side.key));
        const isNewer = isNewerStatus(previousStatus, status);
        if (!isNewer && !isSideNew) {
          if (externalId !== undefined) await dedupe.add(externalId);
          return ack('stale');
        }
        // The refund first, so that a REFUNDED order already holds its last refund. Each is recorded
        // only after the merchant's function succeeded: a failure leaves the retry free to apply
        // what is not recorded yet.
        if (isSideNew) {
          await side.run(context);
          await dedupe.add(side.key);
        }
        let action: CallbackAction | undefined;
        if (isNewer) {
          action = await applyStatus(notification, context);
          await statuses.set(ref, status);
        }
        if (externalId !== undefined) await dedupe.add(externalId);
        return ack('applied', action);
      } catch (e) {
        return { httpStatus: 500, body: failed, outcome: 'failed', externalId, notification, error: e };
      }
    });
  }

  async function handle(request: CallbackRequest): Promise<CallbackResult<N>> {
    const result = await apply(request);
    try {
      options.onOutcome?.(result, request);
    } catch {
      // An observer must not change the answer.
    }
    return result;
  }

  const tooLarge: CallbackResult<N> = {
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
  }) as CallbackHandler<N>;
  return Object.assign(handler, { handle, maxBodyBytes });
}

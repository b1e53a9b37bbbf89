import { canChangeStatus, TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import { paymentEntry, refundPosting } from '../books/postings.ts';
import { methodOf, methodOfTxn } from '../methods/index.ts';
import {
  type IdempotencyRecord,
  type NewNotification,
  type NotificationRecord,
  type RefundRecord,
  type StatusChange,
  type StatusChanged,
  type TransactionRecord,
  UniqueViolation,
  type VaPaymentRecord,
} from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { feeOf } from './fees.ts';
import { newNotificationId, reseedNotificationIds } from './ids.ts';
import { notificationBody } from './notification-body.ts';

/** The notifications table's primary key, as SQLite (`notifications.id`) and PostgreSQL name it. */
const isNotificationIdConstraint = (c: string) => c === 'notifications.id' || c === 'notifications_pkey';

export class IllegalStatusChange extends Error {
  readonly from: TransactionStatus;
  readonly to: TransactionStatus;
  constructor(from: TransactionStatus, to: TransactionStatus) {
    super(
      `a transaction in status ${from} (${TRANSACTION_STATUS[from]}) cannot change to ${to} (${TRANSACTION_STATUS[to]})`,
    );
    this.name = 'IllegalStatusChange';
    this.from = from;
    this.to = to;
  }
}

/** docs/protocol.md#transaction-statuses: every QRIS status change is notified; for a VA, its payment. */
export const isNotified = (txn: Pick<TransactionRecord, 'kind'>, to: TransactionStatus): boolean =>
  methodOf(txn.kind).isNotified(to);

export interface ChangeRequest {
  to: TransactionStatus;
  statusDesc?: string | null;
  reason?: string | null;
  patch?: (txn: TransactionRecord) => StatusChange['patch'];
  refund?: RefundRecord;
  idempotency?: IdempotencyRecord;
  /** A bank's payment flag, committed with the payment it made. */
  vaPayment?: VaPaymentRecord;
  /** `false`: a change the merchant is not told about (a QRIS it never received: its acquirer failed). */
  notify?: false;
  /**
   * Notify the current status again instead of changing it: the sandbox's 01 → 01, and a partial
   * refund's 00 → 00 (its history row and its callback, docs/protocol.md#refund-callbacks).
   */
  renotify?: boolean;
  /**
   * When the change was decided on the transaction as read (a refund's remaining amount), a lost
   * race must be decided again by the caller, not retried blindly: throw LostRace instead.
   */
  decidedOnRead?: boolean;
  /** X-Request-Id of the request that caused the change: its notification carries it. */
  requestId?: string | undefined;
  /**
   * The provider (bank or acquirer) that collected the payment: a change to 00 posts the payment to
   * its ledger account (docs/books.md#ledger). Required for a change to 00.
   */
  providerId?: string | undefined;
}

/** Another change committed first; re-read and decide again. */
export class LostRace extends Error {
  constructor(referenceNo: string) {
    super(`transaction ${referenceNo} changed meanwhile`);
    this.name = 'LostRace';
  }
}

export interface StatusChanger {
  /**
   * Changes a transaction's status through the one path every change takes: the status machine,
   * then the change, its history row and its notification in one database transaction. A change
   * that lost a race is re-read and re-checked.
   */
  change(txn: TransactionRecord, request: ChangeRequest, nowMs: number): Promise<TransactionRecord>;
}

/** A place in a dispatcher for a notification claimed at birth (NewNotification.claim). */
export interface BirthClaim {
  workerId: string;
  leaseUntil: number;
  /** The change committed with its notification claimed: send it now. */
  take(notification: NotificationRecord): void;
  /** Nothing was claimed (another undelivered notification of the transaction, a lost race, an error). */
  release(): void;
}

/** The local dispatcher, as a status change sees it. */
export interface NotificationClaimer {
  /** A place for one notification, or `undefined` when the dispatcher is not running or is full. */
  reserve(): BirthClaim | undefined;
}

/**
 * The fee is charged when a transaction becomes 00 (docs/books.md#fees): on what was paid (a VA's
 * paid amount, else the amount), under the settings it was created with. A transaction from before
 * fees existed keeps none.
 */
type StatusPatch = NonNullable<StatusChange['patch']>;

function withFee(txn: TransactionRecord, to: TransactionStatus, patch: StatusPatch): StatusPatch {
  if (to !== '00' || txn.status === '00' || patch.feeAmount !== undefined) return patch;
  const snapshot = (patch.details ?? txn.details).fee;
  const paid = patch.paidAmount ?? txn.paidAmount ?? patch.amount ?? txn.amount;
  if (!snapshot || paid === null || paid === undefined) return patch;
  return { ...patch, feeAmount: feeOf(snapshot, paid) };
}

export function createStatusChanger(deps: {
  store: Store;
  firstAttemptDelayMs: number;
  /** Called after a change with a notification committed that nobody claimed (wakes the dispatcher). */
  onNotified?: () => void;
  /** Called after every committed change (the hosted checkout's live status). */
  onChanged?: (change: { referenceNo: string; status: string; statusDesc: string | null; seq: number }) => void;
  /**
   * With a first attempt due at once, a notification is claimed at birth for this dispatcher: it
   * is sent as soon as its change commits, without a claim of its own.
   */
  claimer?: NotificationClaimer;
}): StatusChanger {
  const { store, firstAttemptDelayMs } = deps;

  /**
   * The store's change, its notification under a fresh id. Another instance may have drawn the
   * same id in the same millisecond: this process's counter moves somewhere else and draws again.
   */
  async function changeWithFreshId(
    change: Omit<StatusChange, 'notification'>,
    notification: Omit<NewNotification, 'id'> | undefined,
  ): Promise<StatusChanged | undefined> {
    for (let redraw = 0; ; redraw++) {
      try {
        return await store.changeStatus({
          ...change,
          notification: notification && { ...notification, id: newNotificationId(change.at) },
        });
      } catch (e) {
        const isIdTaken = e instanceof UniqueViolation && isNotificationIdConstraint(e.constraint);
        if (!notification || !isIdTaken || redraw >= 5) throw e;
        reseedNotificationIds();
      }
    }
  }

  return {
    async change(initial, request, nowMs) {
      let txn = initial;
      for (let attempt = 0; attempt < 5; attempt++) {
        const isRenotify = request.renotify === true && txn.status === request.to;
        if (!isRenotify && !canChangeStatus(txn.status, request.to))
          throw new IllegalStatusChange(txn.status, request.to);
        const patch = withFee(txn, request.to, request.patch?.(txn) ?? {});
        const next: TransactionRecord = {
          ...txn,
          ...patch,
          status: request.to,
          statusDesc: request.statusDesc ?? TRANSACTION_STATUS[request.to],
          seq: txn.seq + 1,
          updatedAt: nowMs,
        } as TransactionRecord;
        const isPayment = request.to === '00' && txn.status !== '00';
        if (isPayment && request.providerId === undefined) {
          throw new TypeError(`a payment of ${txn.referenceNo} names no provider to post it to`);
        }
        const ledger = isPayment
          ? paymentEntry(next, request.providerId as string, nowMs)
          : request.refund && (await refundPosting(store, request.refund, nowMs));
        const notify = request.notify !== false && isNotified(txn, request.to);
        // The merchant's callback style (serialisation, VA shape), read through the store's exact merchant cache.
        const style = notify ? await store.findMerchantById(txn.merchantId) : undefined;
        const notification = notify
          ? {
              body: notificationBody(next, nowMs, style, request.refund),
              nextAttemptAt: nowMs + firstAttemptDelayMs,
              requestId: request.requestId ?? null,
              // An e-wallet payment's PAY_NOTIFY; none: the merchant's URL.
              callbackUrl: methodOfTxn(next).ownCallbackUrl(next) ?? null,
            }
          : undefined;
        // Reserved only now, with nothing left to throw before the change is sent: every place
        // taken is given back or used.
        const place = notification && firstAttemptDelayMs <= 0 ? deps.claimer?.reserve() : undefined;
        const changed = await changeWithFreshId(
          {
            referenceNo: txn.referenceNo,
            expectedSeq: txn.seq,
            status: next.status,
            statusDesc: next.statusDesc,
            reason: request.reason ?? null,
            at: nowMs,
            patch,
            refund: request.refund,
            idempotency: request.idempotency,
            vaPayment: request.vaPayment,
            ledger,
            next,
          },
          notification && {
            ...notification,
            claim: place && { workerId: place.workerId, leaseUntil: place.leaseUntil },
          },
        ).catch((e: unknown) => {
          place?.release();
          throw e;
        });
        if (changed?.claimed && place) place.take(changed.claimed);
        else place?.release();
        if (changed) {
          if (notify && !changed.claimed) deps.onNotified?.();
          deps.onChanged?.({
            referenceNo: changed.txn.referenceNo,
            status: changed.txn.status,
            statusDesc: changed.txn.statusDesc,
            seq: changed.txn.seq,
          });
          return changed.txn;
        }
        if (request.decidedOnRead) throw new LostRace(txn.referenceNo);
        const fresh = await store.findTransaction(txn.referenceNo);
        if (!fresh) throw new TypeError(`transaction ${txn.referenceNo} vanished`);
        txn = fresh;
      }
      throw new Error(`transaction ${initial.referenceNo} is changing too often to apply a change`);
    },
  };
}

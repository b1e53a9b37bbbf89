import { canChangeStatus, TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import { currentRequestId } from '../request-context.ts';
import {
  type IdempotencyRecord,
  type NewNotification,
  type RefundRecord,
  type StatusChange,
  type Store,
  type TransactionRecord,
  UniqueViolation,
  type VaPaymentRecord,
} from '../store/store.ts';
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
export function isNotified(txn: Pick<TransactionRecord, 'kind'>, to: TransactionStatus): boolean {
  return txn.kind === 'qris' || to === '00';
}

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
  /** Sandbox only: notify the current status again (01 → 01) instead of changing it. */
  renotify?: boolean;
  /**
   * When the change was decided on the transaction as read (a refund's remaining amount), a lost
   * race must be decided again by the caller, not retried blindly: throw LostRace instead.
   */
  decidedOnRead?: boolean;
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

export function createStatusChanger(deps: {
  store: Store;
  firstAttemptDelayMs: number;
  /** Called after a change with a notification committed (wakes the dispatcher). */
  onNotified?: () => void;
}): StatusChanger {
  const { store, firstAttemptDelayMs } = deps;

  /**
   * The store's change, its notification under a fresh id. Another instance may have drawn the
   * same id in the same millisecond: this process's counter moves somewhere else and draws again.
   */
  async function changeWithFreshId(
    change: Omit<StatusChange, 'notification'>,
    notification: Omit<NewNotification, 'id'> | undefined,
  ): Promise<TransactionRecord | undefined> {
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
        const patch = request.patch?.(txn) ?? {};
        const next: TransactionRecord = {
          ...txn,
          ...patch,
          status: request.to,
          statusDesc: request.statusDesc ?? TRANSACTION_STATUS[request.to],
          seq: txn.seq + 1,
          updatedAt: nowMs,
        } as TransactionRecord;
        const notify = request.notify !== false && isNotified(txn, request.to);
        // The merchant's serialisation, read through the store's exact merchant cache.
        const format = notify ? (await store.findMerchantById(txn.merchantId))?.callbackJson : undefined;
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
          },
          notify
            ? {
                body: notificationBody(next, nowMs, format),
                nextAttemptAt: nowMs + firstAttemptDelayMs,
                requestId: currentRequestId() ?? null,
              }
            : undefined,
        );
        if (changed) {
          if (notify) deps.onNotified?.();
          return changed;
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

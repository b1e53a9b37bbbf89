import type { Clock } from '../clock.ts';
import { DomainError, notFound } from '../domain-error.ts';
import { type Caller, ownerOf, reaches } from '../operators/caller.ts';
import type {
  NotificationFilter,
  NotificationRecord,
  NotificationState,
  Page,
  PageRequest,
  StoredAttempt,
} from '../records/records.ts';
import type { ClientStore, OutboxStore, StatisticsStore } from '../store/store.ts';

export type { NotificationFilter, NotificationRecord, NotificationState, Page, StoredAttempt };

/** Every notification state, the ones that need an operator first. */
export const NOTIFICATION_STATES: readonly NotificationState[] = [
  'dead',
  'retrying',
  'pending',
  'delivering',
  'delivered',
  'superseded',
];

/** A replay the outbox refused: the notification is in flight, or a newer one exists. */
export class ReplayRefused extends DomainError {
  /** The notification that was not replayed. */
  readonly notificationId: string;
  constructor(notificationId: string, detail: string) {
    super('conflict', detail);
    this.name = 'ReplayRefused';
    this.notificationId = notificationId;
  }
}

const refusal = (n: NotificationRecord) =>
  new ReplayRefused(
    n.id,
    n.state === 'delivering'
      ? 'the notification is being delivered right now'
      : 'a newer notification exists for this transaction: replay that one (a merchant must never see an older status after a newer)',
  );

export interface NotificationOperationsDeps {
  store: OutboxStore & ClientStore & StatisticsStore;
  clock: Clock;
  /** Wakes the dispatcher: a replayed or recovered notification is due now. */
  dispatcher: { wake(): void };
}

/**
 * Delivery operations, for an operator (any merchant) or a merchant in its portal (its own
 * notifications only; another's answers as one that does not exist): list, show with attempts,
 * replay, recover the dead.
 */
export function createNotificationOperations({ store, clock, dispatcher }: NotificationOperationsDeps) {
  /** A notification the caller may see, else not found. */
  async function reachable(caller: Caller, id: string): Promise<NotificationRecord> {
    const n = await store.findNotification(id);
    if (!n || !reaches(caller, n.merchantId)) throw notFound('notification');
    return n;
  }

  const service = {
    /** Notifications, newest first; a merchant's own only. */
    list(caller: Caller, filter: NotificationFilter, page: PageRequest): Promise<Page<NotificationRecord>> {
      const owner = ownerOf(caller);
      return store.listNotifications(owner === undefined ? filter : { ...filter, merchantId: owner }, page);
    },

    /** The latest notification of every transaction whose latest status is not acknowledged. */
    undelivered(caller: Caller, merchantId: string | undefined, limit: number): Promise<NotificationRecord[]> {
      return store.undelivered(ownerOf(caller) ?? merchantId, limit);
    },

    /** A notification with every attempt at it, oldest first. */
    async show(caller: Caller, id: string): Promise<{ notification: NotificationRecord; attempts: StoredAttempt[] }> {
      const notification = await reachable(caller, id);
      return { notification, attempts: await store.attemptsOf(notification.id) };
    },

    /** Notifications each with its attempts (a transaction's, as its detail lists them). */
    withAttempts(
      notifications: readonly NotificationRecord[],
    ): Promise<Array<{ notification: NotificationRecord; attempts: StoredAttempt[] }>> {
      return Promise.all(
        notifications.map(async (notification) => ({
          notification,
          attempts: await store.attemptsOf(notification.id),
        })),
      );
    },

    /**
     * Makes a notification due again now, signed as before. Only the latest of its transaction, and
     * not while it is being delivered (ReplayRefused): a merchant must never see an older status
     * after a newer.
     */
    async replay(caller: Caller, id: string): Promise<NotificationRecord> {
      const existing = await reachable(caller, id);
      const n = await store.replayNotification(existing.id, clock.now());
      if (!n) throw refusal(existing);
      dispatcher.wake();
      return n;
    },

    /**
     * A merchant's test callback: its latest notification (of the newest of its last 50
     * transactions that has one) delivered again.
     */
    async replayLatest(caller: Caller, merchantId: string): Promise<NotificationRecord> {
      const owner = ownerOf(caller) ?? merchantId;
      const recent = await store.searchTransactions({ merchantId: owner }, 50, 0);
      for (const t of recent) {
        const ns = (await store.notificationsOf(t.referenceNo)).filter((n) => n.merchantId === owner);
        const latest = ns.sort((a, b) => b.txnSeq - a.txnSeq || Number(b.id) - Number(a.id))[0];
        if (!latest) continue;
        const n = await store.replayNotification(latest.id, clock.now());
        if (!n) {
          throw new ReplayRefused(
            latest.id,
            'your latest notification is being delivered right now: try again in a moment',
          );
        }
        dispatcher.wake();
        return n;
      }
      throw new DomainError('conflict', 'there is no notification to send yet: a transaction must change status first');
    },

    /** Re-queues a merchant's dead notifications created since `since` (the latest of their transaction). */
    async recover(caller: Caller, merchantId: string, since: number): Promise<number> {
      const merchant = await store.findMerchantById(merchantId);
      if (!merchant || !reaches(caller, merchant.id)) throw notFound('merchant');
      const recovered = await store.recoverDead(merchant.id, since, clock.now());
      dispatcher.wake();
      return recovered;
    },
  };
  return service;
}

export type NotificationOperations = ReturnType<typeof createNotificationOperations>;

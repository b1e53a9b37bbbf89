import { notFound } from '../domain-error.ts';
import { type Caller, ownerOf, reaches } from '../operators/caller.ts';
import type {
  NotificationRecord,
  Page,
  PageRequest,
  RefundRecord,
  StatusHistoryEntry,
  TransactionFilter,
  TransactionKind,
  TransactionRecord,
  TransactionSearch,
} from '../records/records.ts';
import type { OutboxStore, StatisticsStore, TransactionStore } from '../store/store.ts';

export type { StatusHistoryEntry, TransactionFilter, TransactionKind, TransactionRecord, TransactionSearch };

/** A transaction with its status history and every notification sent for it, oldest first. */
export interface TransactionDetail {
  transaction: TransactionRecord;
  history: StatusHistoryEntry[];
  notifications: NotificationRecord[];
}

/**
 * Transactions as operators and merchants read them: an operator any merchant's, a merchant its
 * own only (another's answers as one that does not exist).
 */
export function createTransactionReads({ store }: { store: TransactionStore & OutboxStore & StatisticsStore }) {
  const owned = <F extends { merchantId?: string | undefined }>(caller: Caller, filter: F): F => {
    const owner = ownerOf(caller);
    return owner === undefined ? filter : { ...filter, merchantId: owner };
  };

  return {
    /** The admin list: newest first unless asked, by cursor. */
    list(caller: Caller, filter: TransactionFilter, page: PageRequest): Promise<Page<TransactionRecord>> {
      return store.listTransactions(owned(caller, filter), page);
    },

    /** The console's search: newest first, the first `offset` rows skipped. */
    search(caller: Caller, search: TransactionSearch, limit: number, offset: number): Promise<TransactionRecord[]> {
      return store.searchTransactions(owned(caller, search), limit, offset);
    },

    async detail(caller: Caller, referenceNo: string): Promise<TransactionDetail> {
      const transaction = await store.findTransaction(referenceNo);
      if (!transaction || !reaches(caller, transaction.merchantId)) throw notFound('transaction');
      const [history, notifications] = await Promise.all([
        store.statusHistory(transaction.referenceNo),
        store.notificationsOf(transaction.referenceNo),
      ]);
      return {
        transaction,
        history,
        notifications: notifications.filter((n) => reaches(caller, n.merchantId)),
      };
    },

    /** A merchant's refund by its partnerRefundNo, when the caller reaches that merchant. */
    async refundOf(caller: Caller, merchantId: string, partnerRefundNo: string): Promise<RefundRecord | undefined> {
      return reaches(caller, merchantId) ? store.findRefund(merchantId, partnerRefundNo) : undefined;
    },
  };
}

export type TransactionReads = ReturnType<typeof createTransactionReads>;

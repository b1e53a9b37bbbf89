// Where the live hub's changes come from besides this instance's own: a store that hears every
// instance's committed changes (PostgreSQL: LISTEN snapgate_status, each change's statement sends
// its NOTIFY). SQLite has none: one instance per database file, so onChanged already sees them all.
import type { Store } from '../store/store.ts';
import type { CheckoutLive, LiveChange } from './live.ts';

/** A transaction's current status as the hub delivers it (for a resync). */
export function liveStatusReader(store: Pick<Store, 'findTransaction'>) {
  return async (referenceNo: string): Promise<LiveChange | undefined> => {
    const txn = await store.findTransaction(referenceNo);
    return txn && { referenceNo, status: txn.status, statusDesc: txn.statusDesc, seq: txn.seq };
  };
}

/**
 * Feeds `live` with every instance's changes while the store announces them, and resyncs it after
 * each gap in what this instance heard. Returns the stop (nothing to stop on SQLite).
 */
export function followStatusChanges(store: Store, live: CheckoutLive): () => void {
  if (!store.watchStatusChanges) return () => undefined;
  return store.watchStatusChanges({
    change: (change) => live.publish(change),
    resync: () => void live.resync(),
  });
}

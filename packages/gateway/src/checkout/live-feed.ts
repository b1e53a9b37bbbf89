// Where the live hub's changes come from besides this instance's own: a store that hears every
// instance's committed changes (PostgreSQL: LISTEN snapgate_status, each change's statement sends
// its NOTIFY). SQLite has none: one instance per database file, so onChanged already sees them all.
import type { CheckoutReads } from '../payments/checkout-reads.ts';
import type { StatusWatcher } from '../records/status-watch.ts';
import type { CheckoutLive, LiveChange } from './live.ts';

/** A transaction's current status as the hub delivers it (for a resync). */
export function liveStatusReader(reads: Pick<CheckoutReads, 'byReference'>) {
  return async (referenceNo: string): Promise<LiveChange | undefined> => {
    const txn = await reads.byReference(referenceNo);
    return txn && { referenceNo, status: txn.status, statusDesc: txn.statusDesc, seq: txn.seq };
  };
}

/**
 * Feeds `live` with every instance's changes while the store announces them, and resyncs it after
 * each gap in what this instance heard. Returns the stop (nothing to stop on SQLite).
 */
export function followStatusChanges(
  watch: ((watcher: StatusWatcher) => () => void) | undefined,
  live: CheckoutLive,
): () => void {
  if (!watch) return () => undefined;
  return watch({
    change: (change) => live.publish(change),
    resync: () => void live.resync(),
  });
}

// Every instance's committed status changes, as a store that hears them passes them on
// (PostgreSQL: store/postgres/status-notify.ts; the hosted checkout's live status).
/** A committed status change as every instance announces it: what a waiting checkout page is told. */
export interface AnnouncedStatus {
  referenceNo: string;
  status: string;
  statusDesc: string | null;
  seq: number;
}

/** Who hears the announcements through the store (the checkout's live hub). */
export interface StatusWatcher {
  change(change: AnnouncedStatus): void;
  /** The listener was away (its connection dropped and came back): announcements may have been missed. */
  resync(): void;
}

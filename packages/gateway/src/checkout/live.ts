// Live status for the hosted checkout (docs/checkout.md): who is waiting for which transaction,
// told of each committed status change of it. One subscription per open page, one listener list per
// transaction; a change is delivered by the status change itself (StatusChanger's onChanged), never
// by a timer per page.

/** A committed status change, as the pages waiting for it are told. */
export interface LiveChange {
  referenceNo: string;
  /** The SNAP status it became: `00` paid, `05` cancelled, `06` failed (or expired: see statusDesc), … */
  status: string;
  statusDesc: string | null;
  /** The transaction's change counter after it: a page told twice of one change can tell. */
  seq: number;
}

export interface CheckoutLive {
  /** Calls `listener` with every later change of the transaction, until the function it returns is called. */
  subscribe(referenceNo: string, listener: (change: LiveChange) => void): () => void;
  /** A change this instance committed (StatusChanger's onChanged). */
  publish(change: LiveChange): void;
  /** How many pages are listening, on this instance. */
  readonly listeners: number;
  close(): Promise<void>;
}

/** This instance's changes, to this instance's pages. */
export function createCheckoutLive(): CheckoutLive {
  const byReference = new Map<string, Set<(change: LiveChange) => void>>();
  let count = 0;
  return {
    subscribe(referenceNo, listener) {
      let set = byReference.get(referenceNo);
      if (!set) {
        set = new Set();
        byReference.set(referenceNo, set);
      }
      set.add(listener);
      count++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        count--;
        const s = byReference.get(referenceNo);
        s?.delete(listener);
        if (s?.size === 0) byReference.delete(referenceNo);
      };
    },
    publish(change) {
      const set = byReference.get(change.referenceNo);
      if (!set) return;
      for (const listener of [...set]) listener(change);
    },
    get listeners() {
      return count;
    },
    async close() {
      byReference.clear();
      count = 0;
    },
  };
}

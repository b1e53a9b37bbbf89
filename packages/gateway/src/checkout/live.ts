// Live status for the hosted checkout (docs/checkout.md#live-status): who is waiting for which
// transaction, told of each committed status change of it. One subscription per open page, one
// entry per transaction; a change is delivered by the status change itself (StatusChanger's
// onChanged on this instance, PostgreSQL's NOTIFY from every instance: live-feed.ts), never by a
// timer per page. The same change may arrive twice (locally and by NOTIFY): the transaction's seq
// lets only the first through.

/** A committed status change, as the pages waiting for it are told. */
export interface LiveChange {
  referenceNo: string;
  /** The SNAP status it became: `00` paid, `05` cancelled, `06` failed (or expired: see statusDesc), … */
  status: string;
  statusDesc: string | null;
  /** The transaction's change counter after it: a page told twice of one change can tell. */
  seq: number;
}

/** What a subscriber may be told besides the changes. */
export interface LiveHooks {
  /**
   * This instance may have missed changes (its PostgreSQL listener was away). The hub has already
   * re-read every transaction waited for and delivered each newer state as an ordinary change;
   * this is for a subscriber that keeps more than the last change.
   */
  onResync?: () => void;
  /** The hub is closing (the gateway shuts down): end the page's stream so the server can close. */
  onClose?: () => void;
}

export interface CheckoutLive {
  /**
   * Calls `listener` with every later change of the transaction, until the function it returns is
   * called. Subscribe before reading the transaction's current state, so no change falls between.
   */
  subscribe(referenceNo: string, listener: (change: LiveChange) => void, hooks?: LiveHooks): () => void;
  /** A committed change (this instance's onChanged, or any instance's NOTIFY). */
  publish(change: LiveChange): void;
  /**
   * Re-reads every transaction waited for and delivers whatever is newer than what its pages were
   * told, then calls each onResync. Resolves when done; calls made meanwhile run it once more after.
   */
  resync(): Promise<void>;
  /** How many pages are listening, on this instance. */
  readonly listeners: number;
  /** How many transactions they wait for. */
  readonly transactions: number;
  /** Tells every subscriber (onClose) and forgets them all. */
  close(): Promise<void>;
}

export interface CheckoutLiveDeps {
  /** The transaction's current status, for a resync (undefined: gone). */
  read?: (referenceNo: string) => Promise<LiveChange | undefined>;
  /** A listener that threw, or a read that failed: reported, and the others carry on. */
  onError?: (error: unknown, referenceNo: string) => void;
}

interface Subscriber {
  listener: (change: LiveChange) => void;
  hooks: LiveHooks | undefined;
}

interface Waiting {
  /** The newest seq delivered (0: none yet). */
  seq: number;
  subscribers: Subscriber[];
}

/** Transactions re-read at once during a resync. */
const RESYNC_READS_IN_FLIGHT = 8;

export function createCheckoutLive(deps: CheckoutLiveDeps = {}): CheckoutLive {
  const byReference = new Map<string, Waiting>();
  let count = 0;
  let running: Promise<void> | undefined;
  let isAgain = false;

  const report = (error: unknown, referenceNo: string) => {
    try {
      deps.onError?.(error, referenceNo);
    } catch {
      // A failing reporter must not stop the delivery either.
    }
  };

  const publish = (change: LiveChange) => {
    const waiting = byReference.get(change.referenceNo);
    if (!waiting || change.seq <= waiting.seq) return;
    waiting.seq = change.seq;
    const subscribers = waiting.subscribers;
    for (const s of subscribers.length === 1 ? subscribers : [...subscribers]) {
      try {
        s.listener(change);
      } catch (e) {
        report(e, change.referenceNo);
      }
    }
  };

  const readAll = async () => {
    const { read } = deps;
    if (read) {
      const queue = [...byReference.keys()];
      const worker = async () => {
        for (let ref = queue.pop(); ref !== undefined; ref = queue.pop()) {
          if (!byReference.has(ref)) continue;
          try {
            const change = await read(ref);
            if (change) publish(change);
          } catch (e) {
            report(e, ref);
          }
        }
      };
      await Promise.all(Array.from({ length: RESYNC_READS_IN_FLIGHT }, worker));
    }
    for (const [ref, waiting] of byReference) {
      for (const s of [...waiting.subscribers]) {
        try {
          s.hooks?.onResync?.();
        } catch (e) {
          report(e, ref);
        }
      }
    }
  };

  return {
    subscribe(referenceNo, listener, hooks) {
      const subscriber: Subscriber = { listener, hooks };
      const waiting = byReference.get(referenceNo);
      // A page is usually its transaction's only one: an array of exactly one (a push onto [] reserves 17).
      if (waiting) waiting.subscribers.push(subscriber);
      else byReference.set(referenceNo, { seq: 0, subscribers: [subscriber] });
      count++;
      let isDone = false;
      return () => {
        if (isDone) return;
        isDone = true;
        const w = byReference.get(referenceNo);
        const at = w ? w.subscribers.indexOf(subscriber) : -1;
        if (!w || at === -1) return;
        count--;
        w.subscribers.splice(at, 1);
        if (w.subscribers.length === 0) byReference.delete(referenceNo);
      };
    },
    publish,
    resync() {
      if (running) {
        isAgain = true;
        return running;
      }
      running = (async () => {
        do {
          isAgain = false;
          await readAll();
        } while (isAgain);
      })().finally(() => {
        running = undefined;
      });
      return running;
    },
    get listeners() {
      return count;
    },
    get transactions() {
      return byReference.size;
    },
    async close() {
      const all = [...byReference];
      byReference.clear();
      count = 0;
      for (const [ref, waiting] of all) {
        for (const s of waiting.subscribers) {
          try {
            s.hooks?.onClose?.();
          } catch (e) {
            report(e, ref);
          }
        }
      }
    },
  };
}

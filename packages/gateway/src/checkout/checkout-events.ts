import type { ServerResponse } from 'node:http';
import type { Clock } from '../clock.ts';
import type { TransactionRecord } from '../records/records.ts';
import { currentStateOf, isFinal, stateOf, streamStateOf } from './checkout-state.ts';
import type { CheckoutState } from './checkout-text.ts';
import type { CheckoutLive, LiveChange } from './live.ts';

// The checkout's event stream (docs/checkout.md#live-status): `GET /pay/<id>/events`. The first
// event is the transaction's state as the store has it; then one per later change of it, pushed
// by the status change itself through CheckoutLive (no timer per page); the stream ends after a
// final state. One interval writes the keep-alive comment to every open stream of this instance,
// and ends those open longer than RENEW_AFTER_MS: the page's EventSource opens it again at once and
// is told the state as the store has it, so a change announcement this instance never heard (its
// sender stopped between its commit and the NOTIFY) is healed within minutes, by no timer per page.

export const KEEP_ALIVE_MS = 25_000;
/** How long a stream stays open before it is ended for the page to open again (the state re-read). */
export const RENEW_AFTER_MS = 300_000;
/** How long an EventSource waits before it reconnects (it asks for the current state again). */
const RETRY_MS = 5_000;

/** One open stream: its response, what it has sent, and how to stop listening. */
interface Stream {
  res: ServerResponse;
  lastSeq: number;
  /** Changes told while the first event was being read; undefined once it was sent. */
  early: LiveChange[] | undefined;
  unsubscribe: () => void;
  isClosed: boolean;
  /** When it was opened (the clock's ms). */
  openedAt: number;
}

export interface EventStreams {
  /**
   * Streams a transaction's state to `res` (already hijacked from the framework). `read` gives the
   * transaction as it is now: called once listening, so no change committed meanwhile is missed.
   */
  serve(res: ServerResponse, referenceNo: string, read: () => Promise<TransactionRecord | undefined>): Promise<void>;
  /** Open streams on this instance. */
  readonly size: number;
  /** Ends every open stream (the gateway is closing). */
  closeAll(): void;
}

const eventText = (state: CheckoutState, status: string, seq: number, paidAt: number | null) =>
  `event: status\ndata: ${JSON.stringify({ state: streamStateOf(state), status, seq, ...(paidAt === null ? {} : { paidAt }) })}\n\n`;

export function createEventStreams(deps: {
  live: CheckoutLive;
  clock: Clock;
  keepAliveMs?: number;
  renewAfterMs?: number;
  headers?: Record<string, string>;
}): EventStreams {
  const { live, clock } = deps;
  const open = new Set<Stream>();
  let keepAlive: NodeJS.Timeout | undefined;
  /** closeAll was called: a stream that arrives late is ended at once. */
  let isClosing = false;

  const close = (s: Stream) => {
    if (s.isClosed) return;
    s.isClosed = true;
    s.unsubscribe();
    open.delete(s);
    if (!s.res.writableEnded) s.res.end();
    if (open.size === 0 && keepAlive) {
      clearInterval(keepAlive);
      keepAlive = undefined;
    }
  };

  /** Sends a state newer than the last one sent; ends the stream after a final one. */
  const send = (s: Stream, state: CheckoutState, status: string, seq: number, paidAt: number | null) => {
    if (s.isClosed || seq <= s.lastSeq) return;
    s.lastSeq = seq;
    s.res.write(eventText(state, status, seq, paidAt));
    if (isFinal(state)) close(s);
  };

  const tell = (s: Stream, change: LiveChange) => {
    if (s.early) {
      s.early.push(change);
      return;
    }
    const state = stateOf(change.status, change.statusDesc);
    // Told right after the commit: the time it was paid, to the second, without reading the row.
    send(s, state, change.status, change.seq, state === 'paid' ? clock.now() : null);
  };

  return {
    async serve(res, referenceNo, read) {
      const s: Stream = {
        res,
        lastSeq: 0,
        early: [],
        unsubscribe: () => undefined,
        isClosed: false,
        openedAt: clock.now(),
      };
      s.unsubscribe = live.subscribe(referenceNo, (change) => tell(s, change), { onClose: () => close(s) });
      open.add(s);
      res.on('close', () => close(s));
      // Gone already (it hung up while its checkout was looked up), or the gateway is closing: the
      // close event will not come, so nothing may stay subscribed.
      if (isClosing || res.destroyed || res.socket?.destroyed || res.req?.destroyed) {
        close(s);
        return;
      }
      if (!keepAlive) {
        keepAlive = setInterval(() => {
          const renewBefore = clock.now() - (deps.renewAfterMs ?? RENEW_AFTER_MS);
          for (const each of [...open]) {
            if (each.openedAt <= renewBefore && !each.early) close(each);
            else each.res.write(': keep-alive\n\n');
          }
        }, deps.keepAliveMs ?? KEEP_ALIVE_MS);
        keepAlive.unref();
      }
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        ...deps.headers,
      });
      res.write(`retry: ${RETRY_MS}\n\n`);
      let txn: TransactionRecord | undefined;
      try {
        txn = await read();
      } catch (e) {
        close(s);
        throw e;
      }
      if (!txn) {
        close(s);
        return;
      }
      const early = s.early ?? [];
      s.early = undefined;
      const state = currentStateOf(txn, clock.now());
      send(s, state, txn.status, txn.seq, state === 'paid' ? txn.paidAt : null);
      for (const change of early) tell(s, change);
    },
    get size() {
      return open.size;
    },
    closeAll() {
      isClosing = true;
      for (const s of [...open]) close(s);
    },
  };
}

// Every instance's committed status changes, heard by every instance (the hosted checkout's live
// status, docs/checkout.md#live-status). A change is announced only after it committed (a lost race
// or a refused change announces nothing), from outside its transaction: PostgreSQL serialises the
// commits of transactions that NOTIFY (one lock for the whole database, held through the commit's
// WAL flush), which cut status changes to a third of their rate when each sent its own
// (docs/adr/0010-checkout-announcements-after-commit.md). The changes committed in one turn of the
// event loop go out together, as one NOTIFY whose payload is their list.

/** The channel a status change is announced on. */
export const STATUS_CHANNEL = 'snapgate_status';
/** The statement that announces (a list of changes, on STATUS_CHANNEL). */
export const ANNOUNCE = 'SELECT pg_notify($1, $2)';

import type { AnnouncedStatus } from '../../records/status-watch.ts';

export type { AnnouncedStatus, StatusWatcher } from '../../records/status-watch.ts';

/** Longer descriptions are left out: a page reads the rest. */
const MAX_DESC_CHARS = 200;
/** A NOTIFY payload is bounded (8,000 bytes): a longer list goes out as several. */
const MAX_PAYLOAD_BYTES = 7_500;

type Wire = { r: string; s: string; q: number; d?: string };
const wire = (c: AnnouncedStatus): Wire => ({
  r: c.referenceNo,
  s: c.status,
  q: c.seq,
  ...(c.statusDesc !== null && c.statusDesc.length <= MAX_DESC_CHARS ? { d: c.statusDesc } : {}),
});

/** The payloads a list of changes goes out as: each a JSON array within the NOTIFY bound. */
export function payloadsOf(changes: readonly AnnouncedStatus[]): string[] {
  const payloads: string[] = [];
  let part: string[] = [];
  let bytes = 2;
  for (const c of changes) {
    const item = JSON.stringify(wire(c));
    const size = Buffer.byteLength(item) + 1;
    if (part.length > 0 && bytes + size > MAX_PAYLOAD_BYTES) {
      payloads.push(`[${part.join(',')}]`);
      part = [];
      bytes = 2;
    }
    part.push(item);
    bytes += size;
  }
  if (part.length > 0) payloads.push(`[${part.join(',')}]`);
  return payloads;
}

/**
 * Announces committed changes: those given in one turn of the event loop are sent together by
 * `send` (a `pg_notify` of its own, outside any change's transaction). A failed send is given to
 * `onError` and dropped: a page that missed it is told when its stream is opened again, which the page does on
 * its own (docs/checkout.md#live-status).
 */
export function createAnnouncer(
  send: (payload: string) => Promise<unknown>,
  onError: (e: unknown) => void = () => undefined,
) {
  let queued: AnnouncedStatus[] = [];
  let scheduled = false;
  /** Every batch not yet sent, each removed once its sends settle. */
  const inFlight = new Set<Promise<unknown>>();
  const flush = () => {
    scheduled = false;
    const batch = queued;
    queued = [];
    const sending: Promise<unknown> = Promise.all(payloadsOf(batch).map((p) => send(p).catch(onError))).finally(() =>
      inFlight.delete(sending),
    );
    inFlight.add(sending);
  };
  return {
    announce(change: AnnouncedStatus): void {
      queued.push(change);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    /** Sends what is queued and waits until every batch is sent (before the pool closes). */
    async drain(): Promise<void> {
      while (scheduled || queued.length > 0 || inFlight.size > 0) {
        if (scheduled || queued.length > 0) flush();
        await Promise.all([...inFlight]);
      }
    },
  };
}

/** An announcement's changes; none when it is not one (a foreign NOTIFY on the channel). */
export function parseAnnouncement(payload: string): AnnouncedStatus[] {
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return [];
  }
  const out: AnnouncedStatus[] = [];
  for (const item of Array.isArray(v) ? v : [v]) {
    if (typeof item !== 'object' || item === null) continue;
    const { r, s, q, d } = item as Record<string, unknown>;
    if (typeof r !== 'string' || typeof s !== 'string' || typeof q !== 'number' || !Number.isInteger(q)) continue;
    out.push({ referenceNo: r, status: s, seq: q, statusDesc: typeof d === 'string' ? d : null });
  }
  return out;
}

import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import type { StatusChanger } from './status-change.ts';
import { upstreamOf } from './upstream.ts';

const OPEN = new Set(['01', '02', '03']);

/** A QRIS an upstream acquirer issued is settled by reconciliation with it, not by our clock alone. */
const isUpstream = (txn: TransactionRecord) => upstreamOf(txn) !== undefined;

export const isDue = (txn: TransactionRecord, nowMs: number) =>
  OPEN.has(txn.status) && txn.expiresAt !== null && txn.expiresAt <= nowMs && !isUpstream(txn);

/** docs/protocol.md#transaction-statuses: an unpaid QRIS past its validityPeriod (or VA past expiredDate) becomes 06 Expired. */
export async function expireIfDue(
  changer: StatusChanger,
  txn: TransactionRecord,
  nowMs: number,
  /** The request that found it due, if any: its notification carries the X-Request-Id. */
  requestId?: string,
): Promise<TransactionRecord> {
  if (!isDue(txn, nowMs)) return txn;
  const expired = await changer
    .change(txn, { to: '06', statusDesc: 'Expired', reason: 'expired', requestId }, nowMs)
    .catch(() => undefined);
  return expired ?? txn;
}

export interface ExpirySweeper {
  /** Expires every due transaction; returns how many. */
  runOnce(): Promise<number>;
  start(intervalMs?: number): void;
  /** Stops the timer; resolves once a sweep in progress has ended (it stops before its next transaction). */
  stop(): Promise<void>;
}

/** Due times live in the database, so a restart misses none: the sweeper only looks them up. */
export function createExpirySweeper(deps: {
  store: Store;
  changer: StatusChanger;
  clock: Clock;
  logger: Logger;
  /**
   * Settles an upstream-issued QRIS with its acquirer when it is due (a minute past its validity,
   * then backing off; docs/upstream.md). It always moves the transaction on or its due time.
   */
  reconcile?: (txn: TransactionRecord, nowMs: number) => Promise<unknown>;
  /** What else lapses with time, swept after the payments (account bindings approved but never traded). */
  alsoDue?: (nowMs: number) => Promise<unknown>;
}): ExpirySweeper {
  const { store, changer, clock, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  let stopped = false;
  const sweep = async (isStopped: () => boolean) => {
    const total = await sweepPayments(isStopped);
    if (!isStopped()) await deps.alsoDue?.(clock.now());
    return total;
  };
  const sweepPayments = async (isStopped: () => boolean) => {
    let total = 0;
    for (;;) {
      const now = clock.now();
      const due = await store.findDueExpiries(now, 200);
      for (const txn of due) {
        if (isStopped()) return total;
        if (!isUpstream(txn)) await expireIfDue(changer, txn, now);
        else if (deps.reconcile) await deps.reconcile(txn, now);
        else return total;
        total++;
      }
      if (due.length < 200) return total;
    }
  };
  return {
    runOnce: () => sweep(() => false),
    start(intervalMs = 1000) {
      stopped = false;
      timer = setInterval(() => {
        if (sweeping) return;
        sweeping = sweep(() => stopped)
          .catch((err) => logger.error({ err }, 'expiry sweep failed'))
          .finally(() => {
            sweeping = undefined;
          });
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await sweeping;
    },
  };
}

import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store, TransactionRecord } from '../store/store.ts';
import type { StatusChanger } from './status-change.ts';

const OPEN = new Set(['01', '02', '03']);

/** A QRIS an upstream acquirer issued is settled by reconciliation with it, not by our clock alone. */
const isUpstream = (txn: TransactionRecord) => txn.kind === 'qris' && txn.details.upstream !== undefined;

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
  stop(): void;
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
}): ExpirySweeper {
  const { store, changer, clock, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const runOnce = async () => {
    let total = 0;
    for (;;) {
      const now = clock.now();
      const due = await store.findDueExpiries(now, 200);
      for (const txn of due) {
        if (!isUpstream(txn)) await expireIfDue(changer, txn, now);
        else if (deps.reconcile) await deps.reconcile(txn, now);
        else return total;
        total++;
      }
      if (due.length < 200) return total;
    }
  };
  return {
    runOnce,
    start(intervalMs = 1000) {
      timer = setInterval(() => {
        if (running) return;
        running = true;
        runOnce()
          .catch((err) => logger.error({ err }, 'expiry sweep failed'))
          .finally(() => {
            running = false;
          });
      }, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

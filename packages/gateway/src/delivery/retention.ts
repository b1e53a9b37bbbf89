import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/store.ts';

export interface Pruner {
  /** Prunes everything past retention now, batch after batch; returns what it pruned. */
  runOnce(): Promise<{ attempts: number; idempotencyKeys: number }>;
  start(): void;
  /** Stops the timer; resolves once a run in progress has ended (it stops before its next batch). */
  stop(): Promise<void>;
}

/**
 * SNAPGATE_RETENTION_DAYS: attempts of delivered notifications lose their request headers and
 * response bodies, and idempotency keys are deleted, once older than the retention. Small batches,
 * each its own short transaction, with the event loop given back between them: a large backlog
 * never blocks requests or holds a long lock. Transactions, their history, notifications and every
 * attempt of one not yet delivered are kept.
 */
export function createPruner(deps: {
  store: Store;
  clock: Clock;
  logger: Logger;
  retentionDays: number | undefined;
  batch?: number;
  intervalMs?: number;
}): Pruner {
  const batch = deps.batch ?? 500;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<{ attempts: number; idempotencyKeys: number }> | undefined;
  let stopped = false;

  async function prune(isStopped: () => boolean) {
    const total = { attempts: 0, idempotencyKeys: 0 };
    if (deps.retentionDays === undefined) return total;
    const before = deps.clock.now() - deps.retentionDays * 86_400_000;
    for (;;) {
      const r = await deps.store.pruneBefore(before, batch);
      total.attempts += r.attempts;
      total.idempotencyKeys += r.idempotencyKeys;
      if ((r.attempts < batch && r.idempotencyKeys < batch) || isStopped()) break;
      await yieldToEventLoop();
    }
    if (total.attempts + total.idempotencyKeys > 0) deps.logger.info(total, 'retention: pruned');
    return total;
  }

  /** The run in progress, or a new one; a run the timer started ends early once stopped. */
  const run = (isStopped: () => boolean) => {
    running ??= prune(isStopped).finally(() => {
      running = undefined;
    });
    return running;
  };
  const pruner: Pruner = {
    runOnce: () => run(() => false),
    start() {
      if (timer || deps.retentionDays === undefined) return;
      stopped = false;
      timer = setInterval(() => {
        run(() => stopped).catch((err) => deps.logger.error({ err }, 'retention failed'));
      }, deps.intervalMs ?? 3_600_000);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
  return pruner;
}

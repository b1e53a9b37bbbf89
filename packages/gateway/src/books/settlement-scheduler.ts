import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { SettlementRecord } from '../records/book-records.ts';
import { lastSlotAtOrBefore, nextSlotAfter, type SettlementSchedule, slotName } from '../settlement-schedule.ts';
import type { SettlementService } from './settlement-service.ts';

// SNAPGATE_SETTLEMENT_SCHEDULE (docs/books.md#settlements): settlements made at each scheduled
// moment with that moment as the cutoff. Several instances on one database may all run a slot: the
// settlement lock and the one-settlement-per-merchant-per-slot rule leave one settlement each.

export interface SettlementScheduler {
  /** Settles the slot at `slotMs` (its cutoff); a slot run again settles nobody twice. */
  runSlot(slotMs: number): Promise<number>;
  /** Runs the latest slot that has come (one missed while stopped), then each slot as it comes. */
  start(): void;
  /** Stops the timer; resolves once a slot being settled has been settled. */
  stop(): Promise<void>;
}

/** Timers wake at least this often, so a long wait never overflows and a clock change is seen. */
const MAX_WAIT_MS = 3_600_000;

export function createSettlementScheduler(deps: {
  settlements: Pick<SettlementService, 'run'>;
  clock: Clock;
  logger: Logger;
  schedule: SettlementSchedule;
  /** What follows a slot's settlements (docs/payouts.md: `payoutSchedule: auto` pays them out). */
  afterSettled?: (made: SettlementRecord[]) => Promise<void>;
}): SettlementScheduler {
  const { schedule, logger } = deps;
  let timer: NodeJS.Timeout | undefined;
  let isStopped = true;
  let settling: Promise<unknown> | undefined;

  const scheduler: SettlementScheduler = {
    async runSlot(slotMs) {
      const slot = slotName(schedule, slotMs);
      const made = await deps.settlements.run({ cutoff: slotMs, slot });
      if (made.length > 0) logger.info({ slot, settlements: made.length }, 'settlements made');
      await deps.afterSettled?.(made);
      return made.length;
    },
    start() {
      if (schedule.kind === 'off' || !isStopped) return;
      isStopped = false;
      const runSafely = (slotMs: number) => {
        const run = scheduler
          .runSlot(slotMs)
          .catch((err) => logger.error({ err, slotMs }, 'scheduled settlement failed'))
          .finally(() => {
            if (settling === run) settling = undefined;
          });
        settling = run;
        return run;
      };
      const last = lastSlotAtOrBefore(schedule, deps.clock.now());
      let after = deps.clock.now();
      const wait = () => {
        if (isStopped) return;
        const next = nextSlotAfter(schedule, after) as number;
        const delayMs = Math.max(0, Math.min(next - deps.clock.now(), MAX_WAIT_MS));
        timer = setTimeout(() => {
          if (deps.clock.now() >= next) {
            after = next;
            void runSafely(next).finally(wait);
          } else wait();
        }, delayMs);
        timer.unref();
      };
      if (last === undefined) wait();
      else void runSafely(last).finally(wait);
    },
    async stop() {
      isStopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await settling;
    },
  };
  return scheduler;
}

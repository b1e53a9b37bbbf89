import { formatJakartaTimestamp } from '@snapgate/snap';

// docs/books.md#settlements: SNAPGATE_SETTLEMENT_SCHEDULE, when settlements run. Times are
// Asia/Jakarta (UTC+07:00, no daylight saving time). A run is keyed by its slot's name, so a slot
// missed while the gateway was down is found again (lastSlotAtOrBefore) and never run twice.

export type SettlementSchedule =
  | { kind: 'off' }
  /** Every day at this minute after 00:00 Jakarta time (0 to 1439). */
  | { kind: 'daily'; minuteOfDay: number }
  /** Every hour at this minute (0 to 59). */
  | { kind: 'hourly'; minute: number };

/** Settle once a day, at Jakarta midnight, unless told otherwise. */
export const DEFAULT_SETTLEMENT_SCHEDULE = 'daily 00:00';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Jakarta is UTC+07:00 all year. A whole number of hours: hourly slots are the same in UTC. */
const JAKARTA_OFFSET_MS = 7 * HOUR_MS;

const DAILY = /^daily\s+(\d{2}):(\d{2})$/;
const HOURLY = /^hourly\s+:(\d{2})$/;
const ACCEPTED = '"off", "daily HH:MM" (00:00 to 23:59, Jakarta time) or "hourly :MM" (:00 to :59)';

/**
 * Reads a schedule: `off`, `daily HH:MM` or `hourly :MM`, trimmed, in any case. Throws a
 * TypeError naming the accepted forms otherwise.
 *
 * @example
 * parseSettlementSchedule('daily 00:30'); // { kind: 'daily', minuteOfDay: 30 }
 * parseSettlementSchedule('Hourly :15');  // { kind: 'hourly', minute: 15 }
 */
export function parseSettlementSchedule(text: string): SettlementSchedule {
  const t = text.trim().toLowerCase();
  if (t === 'off') return { kind: 'off' };
  const daily = DAILY.exec(t);
  if (daily) {
    const hour = Number(daily[1]);
    const minute = Number(daily[2]);
    if (hour <= 23 && minute <= 59) return { kind: 'daily', minuteOfDay: hour * 60 + minute };
  }
  const hourly = HOURLY.exec(t);
  if (hourly && Number(hourly[1]) <= 59) return { kind: 'hourly', minute: Number(hourly[1]) };
  throw new TypeError(`a settlement schedule is ${ACCEPTED}; got ${JSON.stringify(text)}`);
}

/** Refuses an instant that is not one: NaN would make every slot NaN and every name the same. */
function checkInstant(ms: number): void {
  if (!Number.isFinite(ms)) throw new TypeError(`not an instant: ${ms}`);
}

/** The period between slots and where a slot falls in it, both in ms, measured in Jakarta time. */
function cycleOf(schedule: Exclude<SettlementSchedule, { kind: 'off' }>): { periodMs: number; atMs: number } {
  return schedule.kind === 'daily'
    ? { periodMs: DAY_MS, atMs: schedule.minuteOfDay * MINUTE_MS }
    : { periodMs: HOUR_MS, atMs: schedule.minute * MINUTE_MS };
}

/**
 * The most recent scheduled moment at or before `nowMs`, in epoch ms; undefined when off.
 *
 * @example
 * lastSlotAtOrBefore({ kind: 'daily', minuteOfDay: 0 }, Date.parse('2026-11-25T17:00:00Z'));
 * // Date.parse('2026-11-25T17:00:00Z'): 00:00 +07:00 on the 26th
 */
export function lastSlotAtOrBefore(schedule: SettlementSchedule, nowMs: number): number | undefined {
  checkInstant(nowMs);
  if (schedule.kind === 'off') return undefined;
  const { periodMs, atMs } = cycleOf(schedule);
  const localMs = nowMs + JAKARTA_OFFSET_MS;
  let slotLocalMs = Math.floor(localMs / periodMs) * periodMs + atMs;
  if (slotLocalMs > localMs) slotLocalMs -= periodMs;
  return slotLocalMs - JAKARTA_OFFSET_MS;
}

/** The next scheduled moment after `nowMs` (strictly), in epoch ms; undefined when off. */
export function nextSlotAfter(schedule: SettlementSchedule, nowMs: number): number | undefined {
  const lastMs = lastSlotAtOrBefore(schedule, nowMs);
  if (lastMs === undefined || schedule.kind === 'off') return undefined;
  return lastMs + cycleOf(schedule).periodMs;
}

/**
 * A slot's stable name, the key of its run: the schedule's kind and the slot's Jakarta time to
 * the minute. Throws a TypeError for an instant that is not a slot of the schedule (two instants
 * in the same minute would otherwise share a name) and for an off schedule, which has none.
 *
 * @example
 * slotName({ kind: 'daily', minuteOfDay: 0 }, Date.parse('2026-11-25T17:00:00Z'));
 * // 'daily 2026-11-26T00:00+07:00'
 */
export function slotName(schedule: SettlementSchedule, slotMs: number): string {
  if (schedule.kind === 'off') throw new TypeError('an off settlement schedule has no slots');
  if (lastSlotAtOrBefore(schedule, slotMs) !== slotMs)
    throw new TypeError(`not a slot of the ${schedule.kind} schedule: ${formatJakartaTimestamp(slotMs)}`);
  return `${schedule.kind} ${formatJakartaTimestamp(slotMs).slice(0, 16)}+07:00`;
}

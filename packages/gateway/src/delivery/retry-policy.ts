// Retries are data plus a pure function: the schedule is the delay before each
// attempt (docs/protocol.md#callbacks, SNAPGATE_RETRY_SCHEDULE), with ±10 % jitter.
export interface RetryInput {
  /** Delay before each attempt, ms: `schedule[0]` before the first. */
  scheduleMs: readonly number[];
  /** Attempts made so far, the failed one included. */
  attemptsMade: number;
  /** From a 429/503 answer's Retry-After, if any. */
  retryAfterMs?: number | undefined;
  /** A number in [0, 1): the jitter's draw. */
  random: number;
}

/** The delay before the next attempt, or `undefined` when the notification is dead. */
export function nextRetryDelayMs(input: RetryInput): number | undefined {
  const { scheduleMs, attemptsMade, retryAfterMs, random } = input;
  const base = scheduleMs[attemptsMade];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (0.9 + 0.2 * random));
  if (retryAfterMs === undefined) return jittered;
  // Honoured within the schedule's bounds: never sooner than planned, never past the longest step.
  const longest = Math.max(...scheduleMs);
  return Math.max(jittered, Math.min(retryAfterMs, longest));
}

/** Parses Retry-After (delta-seconds or an HTTP date) into ms from `nowMs`. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

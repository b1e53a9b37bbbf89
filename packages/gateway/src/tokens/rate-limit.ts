// Per client key, fixed one-minute windows, in this process's memory. With several
// instances each enforces the limit on its own share of the traffic (docs/adr/0003).
export interface RateLimiter {
  /** Counts one request; false when the key is over its limit in this window. */
  take(key: string, nowMs: number): boolean;
}

/** Keys counted in one window at most: past it, a new key is refused until the next minute. */
const MAX_KEYS = 100_000;

export function createRateLimiter(limitPerMin: number | undefined): RateLimiter {
  if (limitPerMin === undefined) return { take: () => true };
  let windowStart = 0;
  let counts = new Map<string, number>();
  return {
    take(key, nowMs) {
      const start = nowMs - (nowMs % 60_000);
      if (start !== windowStart) {
        windowStart = start;
        counts = new Map();
      }
      const seen = counts.get(key);
      // A flood of distinct keys (addresses) cannot grow the map without bound.
      if (seen === undefined && counts.size >= MAX_KEYS) return false;
      const n = (seen ?? 0) + 1;
      counts.set(key, n);
      return n <= limitPerMin;
    },
  };
}

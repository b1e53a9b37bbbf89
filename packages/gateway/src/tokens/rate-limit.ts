// Per client key, fixed one-minute windows, in this process's memory. With several
// instances each enforces the limit on its own share of the traffic (docs/adr/0003).
export interface RateLimiter {
  /** Counts one request; false when the key is over its limit in this window. */
  take(key: string, nowMs: number): boolean;
}

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
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return n <= limitPerMin;
    },
  };
}

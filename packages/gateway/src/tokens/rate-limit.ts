import ipaddr from 'ipaddr.js';

// Per client key, fixed one-minute windows, in this process's memory. With several
// instances each enforces the limit on its own share of the traffic (docs/adr/0003).
export interface RateLimiter {
  /** Counts one request; false when the key is over its limit in this window. */
  take(key: string, nowMs: number): boolean;
}

/**
 * Keys counted in one window at most. Past it a new key goes uncounted until the next minute: a
 * flood of distinct keys (addresses) must neither grow the map without bound nor lock out every
 * client not yet seen, which refusing them would (a per-key limit cannot hold back a client with
 * that many addresses anyway).
 */
export const MAX_KEYS = 100_000;

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
      if (seen === undefined && counts.size >= MAX_KEYS) return true;
      const n = (seen ?? 0) + 1;
      counts.set(key, n);
      return n <= limitPerMin;
    },
  };
}

/**
 * The key a client's address is limited by: an IPv4 address as it is, an IPv6 address by its /64
 * (one subscriber's usual allocation, which it may rotate through freely).
 */
export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const a = ipaddr.process(ip);
  if (a.kind() === 'ipv4') return a.toString();
  return `${(a as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}

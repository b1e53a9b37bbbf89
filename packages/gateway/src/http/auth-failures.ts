import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';

// docs/operations.md#threat-model-and-limits: guessing admin keys costs time. Failed
// authentications (admin API and console sign-in alike) are counted per address and per key prefix
// in one-minute windows; past the limit a failure is answered 429 with Retry-After. A valid key is
// always checked first and accepted, so a flood from an operator's address never locks the
// operator out. Independent of SNAPGATE_RATE_LIMIT (that one guards the SNAP API).

/** Failures allowed per address (and per key prefix) in a window, and the window. */
export const AUTH_FAILURES_PER_WINDOW = 20;
export const AUTH_FAILURE_WINDOW_MS = 60_000;
/** Characters of a presented key that name its prefix (never logged: it may be a near miss of a real key). */
const PREFIX_CHARS = 8;
/** Windows kept at most; past it the expired ones go, then the oldest. */
const MAX_TRACKED = 50_000;

export type AuthDoor = 'admin' | 'console' | 'merchant';

export interface AuthFailureLimiter {
  /**
   * Records a failed authentication from `address` with the key presented (if any). Returns the
   * seconds to wait when this failure is past the limit (answer 429 with Retry-After), else undefined.
   */
  fail(door: AuthDoor, address: string, presentedKey: string | undefined): number | undefined;
  /**
   * Counts an attempt from `address` before it is tried (a password hashed): the seconds to wait
   * when it is past the limit (answer 429, try nothing), else undefined. Attempts at once are each
   * counted, so no more than the limit are ever tried in a window. `forgive` one that succeeded.
   */
  attempt(door: AuthDoor, address: string): number | undefined;
  /** Takes back the count of an attempt that succeeded: only failures count against an address. */
  forgive(address: string): void;
}

export function createAuthFailureLimiter(deps: {
  clock: Clock;
  logger: Logger;
  registry: Registry;
  maxFailures?: number;
  windowMs?: number;
}): AuthFailureLimiter {
  const max = deps.maxFailures ?? AUTH_FAILURES_PER_WINDOW;
  const windowMs = deps.windowMs ?? AUTH_FAILURE_WINDOW_MS;
  const windows = new Map<string, { startMs: number; count: number }>();
  const failures = new Counter({
    name: 'snapgate_auth_failures_total',
    help: 'Failed authentications with an admin key (admin API, console sign-in), by door',
    labelNames: ['door'],
    registers: [deps.registry],
  });
  const limited = new Counter({
    name: 'snapgate_auth_failures_limited_total',
    help: 'Failed authentications answered 429 (too many from one address or for one key prefix), by door',
    labelNames: ['door'],
    registers: [deps.registry],
  });

  function prune(now: number): void {
    if (windows.size < MAX_TRACKED) return;
    for (const [k, w] of windows) if (w.startMs + windowMs <= now) windows.delete(k);
    // Still full: the oldest windows go first (a Map keeps insertion order).
    for (const k of windows.keys()) {
      if (windows.size < MAX_TRACKED * 0.9) break;
      windows.delete(k);
    }
  }

  /** Counts one failure under `key`; the seconds left in its window when it is past the limit. */
  function count(key: string, now: number): number | undefined {
    let w = windows.get(key);
    if (!w || w.startMs + windowMs <= now) {
      prune(now);
      w = { startMs: now, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    return w.count > max ? Math.max(1, Math.ceil((w.startMs + windowMs - now) / 1000)) : undefined;
  }

  return {
    attempt(door, address) {
      const waitSec = count(`a:${address}`, deps.clock.now());
      if (waitSec !== undefined) limited.inc({ door });
      return waitSec;
    },
    forgive(address) {
      const w = windows.get(`a:${address}`);
      if (w && w.count > 0) w.count--;
    },
    fail(door, address, presentedKey) {
      const now = deps.clock.now();
      failures.inc({ door });
      const byAddress = count(`a:${address}`, now);
      const byPrefix =
        presentedKey && presentedKey.length >= PREFIX_CHARS
          ? count(`k:${presentedKey.slice(0, PREFIX_CHARS)}`, now)
          : undefined;
      const waitSec = Math.max(byAddress ?? 0, byPrefix ?? 0) || undefined;
      if (waitSec !== undefined) {
        limited.inc({ door });
        const w = windows.get(`a:${address}`);
        // Logged once per window and address, when it is first exceeded.
        if (byAddress !== undefined && w?.count === max + 1) {
          deps.logger.warn(
            { door, address, failures: w.count, retryAfterSec: waitSec },
            'too many failed admin-key authentications from one address',
          );
        } else if (byAddress === undefined && byPrefix !== undefined) {
          deps.logger.warn({ door, address }, 'too many failed admin-key authentications with one key prefix');
        }
      }
      return waitSec;
    },
  };
}

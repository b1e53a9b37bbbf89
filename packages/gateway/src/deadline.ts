/** One outbound exchange's time bound: `signal` aborts when it runs out. */
export interface Deadline {
  signal: AbortSignal;
  /** The exchange ended: the timer goes at once. */
  clear(): void;
}

/** What AbortSignal.timeout aborts with, so a caller tells a timeout from other failures alike. */
const timeoutReason = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/**
 * A deadline for one exchange, cleared (in a `finally`) as soon as the exchange ends.
 * AbortSignal.timeout keeps its timer for the whole timeout however soon the answer came: at
 * thousands of callbacks a second, that is thousands of live timers per second of timeout.
 */
export function startDeadline(timeoutMs: number, reason: () => unknown = timeoutReason): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), timeoutMs);
  // As AbortSignal.timeout's: a deadline alone does not keep the process alive.
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

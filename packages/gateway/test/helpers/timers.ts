import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';

/**
 * Counts the live timers of one delay (setTimeout and AbortSignal.timeout alike, unref'd ones
 * included), through async_hooks: a timer is live from its creation until it fires or is cleared.
 * Pick a delay nothing else uses.
 */
export function watchTimers(delayMs: number): { live(): number; stop(): void } {
  const live = new Set<number>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === 'Timeout' && (resource as { _idleTimeout?: unknown })._idleTimeout === delayMs) live.add(id);
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return { live: () => live.size, stop: () => hook.disable() };
}

/**
 * For a background job held mid-work: calls its `stop`, checks stop has not resolved a turn of the
 * event loop later, releases the work, and waits for stop to resolve.
 */
export async function stopWaitsForWork(stop: () => Promise<void>, release: () => void): Promise<void> {
  let stopped = false;
  const stopping = stop().then(() => {
    stopped = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stopped, false, 'stop waits for the work in progress');
  release();
  await stopping;
}

/**
 * Runs keyed by a name, shared by the callers that ask at the same time: the first starts it, the
 * others get the same promise, and the key is free again once it settles (a reservation of VA
 * numbers, a renewal of a wallet's customer token). Within one process only.
 */
export function sharedRuns<T>() {
  const running = new Map<string, Promise<T>>();
  return (key: string, run: () => Promise<T>): Promise<T> => {
    const known = running.get(key);
    if (known) return known;
    const started = run();
    running.set(key, started);
    const forget = () => running.delete(key);
    started.then(forget, forget);
    return started;
  };
}

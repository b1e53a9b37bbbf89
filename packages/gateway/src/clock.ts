/** The only source of time in the gateway: injected everywhere, faked in tests. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that moves only when told to; for tests and the sandbox. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(epochMs: number): void;
}

export function createManualClock(startMs: number): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}

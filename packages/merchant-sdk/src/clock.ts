/**
 * The SDK's only source of time: injected into every factory so tests (and replays) can move it.
 *
 * @example
 * const frozen: Clock = { now: () => Date.parse('2024-01-01T03:00:00Z') };
 * createTokenClient({ baseUrl, clientKey, clientSecret, clock: frozen });
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

/**
 * The wall clock; the default of every `clock` option.
 *
 * @example
 * systemClock.now(); // 1704078000000
 */
export const systemClock: Clock = { now: () => Date.now() };

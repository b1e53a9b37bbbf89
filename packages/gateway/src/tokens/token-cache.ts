import type { Clock } from '../clock.ts';

/** A token as its issuer gave it: reused until `reuseUntilMs` (some margin before it expires). */
export interface TakenToken {
  token: string;
  reuseUntilMs: number;
}

export interface TokenCache<T extends TakenToken> {
  /**
   * The issuer's cached token while it is good and was taken with `key`; else the one request in
   * flight for `key`, started with `request` when there is none. `taken` is the request's result,
   * given only to the caller whose call started it. `signal` ends only this caller's wait (it
   * rejects with the signal's reason); the shared request is aborted once every caller waiting for
   * it gave up. A failed request is never cached.
   */
  take(
    issuer: string,
    key: string,
    request: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<{ token: string; taken?: T }>;
  /** The issuer refused this token (a 401): the next take requests a new one. */
  drop(issuer: string, token: string): void;
  /** Drops the issuer's token, and lets no request in flight for it fill the cache. */
  forget(issuer: string): void;
  clear(): void;
}

interface Pending<T> {
  issuer: string;
  slot: string;
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

/**
 * Access tokens the gateway takes from others (an upstream acquirer, a snap-b2b merchant): one
 * per issuer, kept in this process. `key` names what the token was taken with (credentials, URL):
 * a rotated secret or another token URL never gets the token taken with the old one.
 */
export function createTokenCache<T extends TakenToken>(deps: { clock: Clock }): TokenCache<T> {
  const cached = new Map<string, { key: string; taken: T }>();
  /** By issuer and key. */
  const inFlight = new Map<string, Pending<T>>();

  function start(issuer: string, key: string, request: (signal: AbortSignal) => Promise<T>): Pending<T> {
    const slot = `${issuer}\0${key}`;
    const controller = new AbortController();
    const promise = (async () => request(controller.signal))().then(
      (taken) => {
        // Kept only when forget() did not run meanwhile, and only while still good.
        if (inFlight.get(slot) === pending) {
          inFlight.delete(slot);
          if (deps.clock.now() < taken.reuseUntilMs) cached.set(issuer, { key, taken });
        }
        return taken;
      },
      (e: unknown) => {
        if (inFlight.get(slot) === pending) inFlight.delete(slot);
        throw e;
      },
    );
    // Every waiter may have given up before it settles: its failure then has no one to tell.
    promise.catch(() => undefined);
    const pending: Pending<T> = { issuer, slot, promise, controller, waiters: 0 };
    inFlight.set(slot, pending);
    return pending;
  }

  /**
   * Each caller waits only until its own signal; the shared request lives as long as someone still
   * waits for it, so one impatient caller does not fail the others and no socket outlives every
   * deadline. A caller without a signal waits for as long as the request takes.
   */
  function wait(pending: Pending<T>, signal: AbortSignal | undefined): Promise<T> {
    pending.waiters += 1;
    if (!signal) return pending.promise;
    return new Promise<T>((resolve, reject) => {
      const giveUp = () => {
        reject(signal.reason);
        pending.waiters -= 1;
        if (pending.waiters === 0) {
          if (inFlight.get(pending.slot) === pending) inFlight.delete(pending.slot);
          pending.controller.abort();
        }
      };
      if (signal.aborted) return giveUp();
      signal.addEventListener('abort', giveUp, { once: true });
      pending.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', giveUp));
    });
  }

  return {
    async take(issuer, key, request, signal) {
      const hit = cached.get(issuer);
      if (hit) {
        if (deps.clock.now() >= hit.taken.reuseUntilMs) cached.delete(issuer);
        else if (hit.key === key) return { token: hit.taken.token };
      }
      const shared = inFlight.get(`${issuer}\0${key}`);
      const pending = shared ?? start(issuer, key, request);
      const taken = await wait(pending, signal);
      return shared ? { token: taken.token } : { token: taken.token, taken };
    },
    drop(issuer, token) {
      if (cached.get(issuer)?.taken.token === token) cached.delete(issuer);
    },
    forget(issuer) {
      cached.delete(issuer);
      for (const [slot, pending] of inFlight) if (pending.issuer === issuer) inFlight.delete(slot);
    },
    clear() {
      cached.clear();
      inFlight.clear();
    },
  };
}

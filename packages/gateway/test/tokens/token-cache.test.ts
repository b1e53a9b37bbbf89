import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { createTokenCache, type TakenToken } from '../../src/tokens/token-cache.ts';

const T0 = Date.parse('2025-01-06T03:00:00.000Z');

/** An issuer whose token requests the test answers by hand. */
function issuer() {
  const requests: Array<{ signal: AbortSignal; answer(t: TakenToken): void; fail(e: Error): void }> = [];
  const request = (signal: AbortSignal) =>
    new Promise<TakenToken>((answer, fail) => requests.push({ signal, answer, fail }));
  return { requests, request };
}

describe('the token cache', () => {
  it('reuses a token until its reuse time, and takes another for another key', async () => {
    const clock = createManualClock(T0);
    const cache = createTokenCache<TakenToken>({ clock });
    const { requests, request } = issuer();

    const first = cache.take('acq', 'k1', request);
    requests[0]?.answer({ token: 't1', reuseUntilMs: T0 + 1_000 });
    assert.deepEqual(await first, { token: 't1', taken: { token: 't1', reuseUntilMs: T0 + 1_000 } });
    assert.deepEqual(await cache.take('acq', 'k1', request), { token: 't1' });
    const rotated = cache.take('acq', 'k2', request);
    requests[1]?.answer({ token: 't2', reuseUntilMs: T0 + 1_000 });
    assert.equal((await rotated).token, 't2');
    clock.advance(1_000);
    const expired = cache.take('acq', 'k2', request);
    requests[2]?.answer({ token: 't3', reuseUntilMs: T0 + 9_000 });
    assert.equal((await expired).token, 't3');
    assert.equal(requests.length, 3);
  });

  it('shares one request among concurrent callers; only the caller that started it gets what was taken', async () => {
    const cache = createTokenCache<TakenToken>({ clock: createManualClock(T0) });
    const { requests, request } = issuer();

    const takes = [cache.take('m1', 'k', request), cache.take('m1', 'k', request), cache.take('m2', 'k', request)];
    assert.equal(requests.length, 2, 'one request per issuer');
    requests[0]?.answer({ token: 'a', reuseUntilMs: T0 + 1_000 });
    requests[1]?.answer({ token: 'b', reuseUntilMs: T0 + 1_000 });

    assert.deepEqual(await Promise.all(takes), [
      { token: 'a', taken: { token: 'a', reuseUntilMs: T0 + 1_000 } },
      { token: 'a' },
      { token: 'b', taken: { token: 'b', reuseUntilMs: T0 + 1_000 } },
    ]);
  });

  it('drops a refused token only when it is the cached one, and never caches a failure', async () => {
    const cache = createTokenCache<TakenToken>({ clock: createManualClock(T0) });
    const { requests, request } = issuer();

    const failed = cache.take('acq', 'k', request);
    requests[0]?.fail(new Error('refused'));
    await assert.rejects(failed, /refused/);
    const next = cache.take('acq', 'k', request);
    requests[1]?.answer({ token: 't', reuseUntilMs: T0 + 1_000 });
    await next;
    cache.drop('acq', 'an-older-token');
    assert.deepEqual(await cache.take('acq', 'k', request), { token: 't' });
    cache.drop('acq', 't');
    const again = cache.take('acq', 'k', request);
    requests[2]?.answer({ token: 'u', reuseUntilMs: T0 + 1_000 });
    assert.equal((await again).token, 'u');
    assert.equal(requests.length, 3);
  });

  it('does not cache what a request brings back after forget', async () => {
    const cache = createTokenCache<TakenToken>({ clock: createManualClock(T0) });
    const { requests, request } = issuer();

    const taking = cache.take('acq', 'k', request);
    cache.forget('acq');
    requests[0]?.answer({ token: 'old', reuseUntilMs: T0 + 1_000 });
    assert.equal((await taking).token, 'old');
    const fresh = cache.take('acq', 'k', request);
    requests[1]?.answer({ token: 'new', reuseUntilMs: T0 + 1_000 });
    assert.equal((await fresh).token, 'new');
  });

  it('lets a caller give up with its own reason, and aborts the shared request only when the last one does', async () => {
    const cache = createTokenCache<TakenToken>({ clock: createManualClock(T0) });
    const { requests, request } = issuer();
    const [first, second] = [new AbortController(), new AbortController()];

    const impatient = cache.take('acq', 'k', request, first.signal);
    const patient = cache.take('acq', 'k', request, second.signal);
    first.abort(new Error('first deadline'));
    await assert.rejects(impatient, /first deadline/);
    assert.equal(requests[0]?.signal.aborted, false);
    second.abort(new Error('second deadline'));
    await assert.rejects(patient, /second deadline/);
    assert.equal(requests[0]?.signal.aborted, true);

    const after = cache.take('acq', 'k', request);
    assert.equal(requests.length, 2, 'an abandoned request is not shared');
    requests[1]?.answer({ token: 't', reuseUntilMs: T0 + 1_000 });
    assert.equal((await after).token, 't');
  });
});

// The per-key, per-minute limiter (tokens/rate-limit.ts) that the token endpoint, the QR images and
// the hosted checkout use, at its edges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressKey, createRateLimiter, MAX_KEYS } from '../../src/tokens/rate-limit.ts';

describe('the per-key rate limiter', () => {
  const minute = Date.UTC(2026, 10, 26, 8, 0, 0);

  it('refuses a key past its limit in its minute, and takes it again the next minute', () => {
    const limiter = createRateLimiter(3);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => limiter.take('a', minute + 10)),
      [true, true, true, false],
    );
    assert.equal(limiter.take('b', minute + 20), true, 'another key has its own count');
    assert.equal(limiter.take('a', minute + 60_000), true);
  });

  it('never locks out a client not yet seen when a flood of other keys filled its minute', () => {
    const limiter = createRateLimiter(2);
    for (let i = 0; i < MAX_KEYS; i++) limiter.take(`flood-${i}`, minute);
    // Uncounted rather than refused: a fresh payer still gets in.
    assert.equal(limiter.take('203.0.113.7', minute + 1), true);
    assert.equal(limiter.take('203.0.113.7', minute + 2), true);
    // A key counted before the flood keeps its limit.
    assert.equal(limiter.take('flood-1', minute + 3), true);
    assert.equal(limiter.take('flood-1', minute + 4), false);
  });

  it('counts an IPv4 client by its address and an IPv6 client by its /64', () => {
    assert.equal(addressKey('203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('::ffff:203.0.113.7'), '203.0.113.7');
    assert.equal(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(addressKey('2001:db8:1:2:ffff::1'), '2001:db8:1:2::/64');
    assert.equal(addressKey('not an address'), 'not an address');
  });

  it('takes everything when no limit is set', () => {
    const limiter = createRateLimiter(undefined);
    assert.ok(Array.from({ length: 100 }, () => limiter.take('a', minute)).every(Boolean));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextRetryDelayMs, parseRetryAfter } from '../../src/delivery/retry-policy.ts';

const SCHEDULE = [0, 10_000, 60_000, 300_000];

describe('retry policy (pure)', () => {
  const table: Array<[string, Parameters<typeof nextRetryDelayMs>[0], number | undefined]> = [
    ['after attempt 1, the second step', { scheduleMs: SCHEDULE, attemptsMade: 1, random: 0.5 }, 10_000],
    ['after attempt 2, the third step', { scheduleMs: SCHEDULE, attemptsMade: 2, random: 0.5 }, 60_000],
    ['jitter at its low end: -10 %', { scheduleMs: SCHEDULE, attemptsMade: 1, random: 0 }, 9_000],
    ['jitter at its high end: +10 %', { scheduleMs: SCHEDULE, attemptsMade: 1, random: 0.999_999_9 }, 11_000],
    ['after the last step: dead', { scheduleMs: SCHEDULE, attemptsMade: 4, random: 0.5 }, undefined],
    [
      'Retry-After longer than the step is honoured',
      { scheduleMs: SCHEDULE, attemptsMade: 1, random: 0.5, retryAfterMs: 120_000 },
      120_000,
    ],
    [
      'Retry-After shorter than the step does not hurry',
      { scheduleMs: SCHEDULE, attemptsMade: 2, random: 0.5, retryAfterMs: 1_000 },
      60_000,
    ],
    [
      'Retry-After past the longest step is capped by it',
      { scheduleMs: SCHEDULE, attemptsMade: 1, random: 0.5, retryAfterMs: 86_400_000 },
      300_000,
    ],
    [
      'Retry-After after the last step: still dead',
      { scheduleMs: SCHEDULE, attemptsMade: 4, random: 0.5, retryAfterMs: 1_000 },
      undefined,
    ],
    ['a zero step stays zero whatever the jitter', { scheduleMs: [0, 0], attemptsMade: 1, random: 0.9 }, 0],
  ];
  for (const [name, input, expected] of table) {
    it(name, () => assert.equal(nextRetryDelayMs(input), expected));
  }

  it('parses Retry-After as seconds or an HTTP date, and ignores garbage', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 10:01:00 GMT', now), 60_000);
    assert.equal(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now), 0);
    assert.equal(parseRetryAfter('soon', now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
  });
});

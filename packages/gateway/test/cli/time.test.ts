import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDuration, parseSince } from '../../src/cli/time.ts';

describe('--since and --timeout values', () => {
  const now = Date.parse('2026-11-23T03:00:00.000Z');

  it('reads a date alone as midnight in Asia/Jakarta', () => {
    assert.equal(parseSince('2026-11-22', now), '2026-11-21T17:00:00.000Z');
    assert.equal(parseSince('2026-01-01', now), '2025-12-31T17:00:00.000Z');
    assert.equal(parseSince('2026-02-31', now), undefined);
  });

  it('reads a full ISO time, and one without an offset as Jakarta time', () => {
    assert.equal(parseSince('2026-11-21T00:00:00+07:00', now), '2026-11-20T17:00:00.000Z');
    assert.equal(parseSince('2026-11-21T10:30:00Z', now), '2026-11-21T10:30:00.000Z');
    assert.equal(parseSince('2026-11-21T10:30:00.250+0700', now), '2026-11-21T03:30:00.250Z');
    assert.equal(parseSince('2026-11-21T10:30', now), '2026-11-21T03:30:00.000Z');
  });

  it('reads a relative time as that long before now', () => {
    assert.equal(parseSince('2h', now), '2026-11-23T01:00:00.000Z');
    assert.equal(parseSince('30m', now), '2026-11-23T02:30:00.000Z');
    assert.equal(parseSince('7d', now), '2026-11-16T03:00:00.000Z');
    assert.equal(parseSince('1w', now), '2026-11-16T03:00:00.000Z');
  });

  it('refuses anything else', () => {
    for (const bad of ['yesterday', '', '2h ago', '22-11-2026', '2026-11-22T25:00:00Z', '-2h', '12']) {
      assert.equal(parseSince(bad, now), undefined, bad);
    }
  });

  it('reads durations', () => {
    assert.equal(parseDuration('30s'), 30_000);
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('2m'), 120_000);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('45'), 45_000);
    assert.equal(parseDuration('soon'), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatJakartaTimestamp, jakartaDay, parseSnapTimestamp } from '../src/index.ts';

const T = Date.UTC(2024, 0, 1, 3, 0, 0);

describe('parseSnapTimestamp', () => {
  for (const [input, expected] of [
    ['2024-01-01T10:00:00+07:00', T],
    ['2024-01-01T10:00:00+0700', T],
    ['2024-01-01T03:00:00Z', T],
    ['2024-01-01T03:00:00.123Z', T + 123],
    ['2024-01-01T03:00:00.1Z', T + 100],
    ['2024-01-01T03:00:00.123456789Z', T + 123],
    ['2023-12-31T22:00:00-05:00', T],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
    ['2024-12-31T23:59:59Z', Date.UTC(2024, 11, 31, 23, 59, 59)],
  ] as const) {
    it(`accepts ${input}`, () => assert.equal(parseSnapTimestamp(input), expected));
  }

  for (const input of [
    '',
    '2024-01-01',
    '2024-01-01T10:00+07:00',
    '2024-01-01T10:00:00',
    '2024-01-01 10:00:00+07:00',
    '2024-13-01T10:00:00Z',
    '2023-02-29T10:00:00Z',
    '2024-01-32T10:00:00Z',
    '2024-04-31T10:00:00Z',
    '2100-02-29T10:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T10:60:00Z',
    '2024-01-01T10:00:60Z',
    '2024-01-01T10:00:00+15:00',
    '2024-01-01T10:00:00+07:60',
    '2024-01-01T10:00:00.Z',
    '1704078000',
    ' 2024-01-01T10:00:00Z',
    '2024-01-01T10:00:00Z ',
  ]) {
    it(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseSnapTimestamp(input), undefined));
  }
});

describe('Jakarta time', () => {
  it('formats an instant as +07:00 with seconds', () => {
    assert.equal(formatJakartaTimestamp(T), '2024-01-01T10:00:00+07:00');
    assert.equal(formatJakartaTimestamp(T + 999), '2024-01-01T10:00:00+07:00');
  });
  it('formats every instant as the calendar does, whatever was formatted before it', () => {
    // The last second is kept: repeats, neighbours, jumps back and fractions must not leak.
    const reference = (ms: number) => `${new Date(ms + 7 * 3600_000).toISOString().slice(0, 19)}+07:00`;
    const instants = [T, T, T + 999, T + 1000, T - 1, T - 1000.5, -1500, 0, 0.5, T, 4102444799999];
    instants.push(1099488754999.9999, -25200000.5, -25200000, -25199999.5, 8.64e15 - 25200000);
    for (let i = 0; i < 2000; i++) instants.push(Math.floor(Math.random() * 4102444800000), T + (i % 3) * 500);
    for (const ms of instants) assert.equal(formatJakartaTimestamp(ms), reference(ms), String(ms));
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15]) {
      assert.throws(() => formatJakartaTimestamp(bad), RangeError, String(bad));
    }
  });
  it('gives the Jakarta calendar day, which starts at 17:00 UTC', () => {
    assert.equal(jakartaDay(Date.UTC(2024, 0, 1, 16, 59, 59)), '2024-01-01');
    assert.equal(jakartaDay(Date.UTC(2024, 0, 1, 17, 0, 0)), '2024-01-02');
  });
  it('gives the same day as a Date of the instant for any instant, in any order (the last day is kept)', () => {
    const reference = (ms: number) => new Date(ms + 7 * 3600_000).toISOString().slice(0, 10);
    const midnight = Date.UTC(2024, 0, 1, 17); // 2024-01-02T00:00:00+07:00
    const instants = [midnight, midnight - 1, midnight, midnight - 0.5, midnight + 86_399_999, midnight + 86_400_000];
    instants.push(-25200000, -25200000.5, -25200001, -25199999.5, 0, -1, 0.5, 8.64e15 - 25200000, -8.64e15);
    for (let i = 0; i < 2000; i++) instants.push(Math.floor(Math.random() * 4102444800000), midnight + (i % 3) - 1);
    for (const ms of instants) assert.equal(jakartaDay(ms), reference(ms), String(ms));
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 8.64e15]) {
      assert.throws(() => jakartaDay(bad), RangeError, String(bad));
    }
    // The last instant a Date can hold, then the next one: the day kept does not answer for it.
    assert.equal(jakartaDay(8.64e15 - 25200000), reference(8.64e15 - 25200000));
    assert.throws(() => jakartaDay(8.64e15 - 25200000 + 1), RangeError);
  });
});

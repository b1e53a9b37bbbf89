// docs/books.md#settlement: SNAPGATE_SETTLEMENT_SCHEDULE and its slots, in Jakarta time (UTC+07:00).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_SETTLEMENT_SCHEDULE,
  lastSlotAtOrBefore,
  nextSlotAfter,
  parseSettlementSchedule,
  type SettlementSchedule,
  slotName,
} from '../../src/settlement-schedule.ts';

const at = (iso: string) => Date.parse(iso);
const MIDNIGHT: SettlementSchedule = { kind: 'daily', minuteOfDay: 0 };

describe('parseSettlementSchedule', () => {
  it('reads off, daily HH:MM and hourly :MM, trimmed and in any case', () => {
    assert.deepEqual(parseSettlementSchedule('off'), { kind: 'off' });
    assert.deepEqual(parseSettlementSchedule('  OFF \n'), { kind: 'off' });
    assert.deepEqual(parseSettlementSchedule('daily 00:00'), { kind: 'daily', minuteOfDay: 0 });
    assert.deepEqual(parseSettlementSchedule('Daily 23:59'), { kind: 'daily', minuteOfDay: 1439 });
    assert.deepEqual(parseSettlementSchedule(' daily  01:30 '), { kind: 'daily', minuteOfDay: 90 });
    assert.deepEqual(parseSettlementSchedule('hourly :00'), { kind: 'hourly', minute: 0 });
    assert.deepEqual(parseSettlementSchedule('HOURLY :59'), { kind: 'hourly', minute: 59 });
  });

  it('defaults to daily at Jakarta midnight', () => {
    assert.equal(DEFAULT_SETTLEMENT_SCHEDULE, 'daily 00:00');
    assert.deepEqual(parseSettlementSchedule(DEFAULT_SETTLEMENT_SCHEDULE), MIDNIGHT);
  });

  it('refuses anything else with a TypeError naming the accepted forms', () => {
    for (const text of [
      '',
      'on',
      'daily',
      'daily 24:00',
      'daily 12:60',
      'daily 1:00',
      'daily 01:00:00',
      'daily12:00',
      'hourly',
      'hourly 15',
      'hourly :60',
      'hourly :5',
      'weekly 00:00',
      'off please',
    ])
      assert.throws(
        () => parseSettlementSchedule(text),
        (e: unknown) =>
          e instanceof TypeError &&
          /"off", "daily HH:MM" \(00:00 to 23:59, Jakarta time\) or "hourly :MM"/.test(e.message) &&
          e.message.includes(JSON.stringify(text)),
        text,
      );
  });
});

describe('daily slots', () => {
  it('puts 00:00 Jakarta at 17:00 UTC the day before', () => {
    const slotMs = at('2026-11-25T17:00:00Z');
    assert.equal(lastSlotAtOrBefore(MIDNIGHT, slotMs), slotMs, 'a slot is at or before itself');
    assert.equal(lastSlotAtOrBefore(MIDNIGHT, slotMs - 1), at('2026-11-24T17:00:00Z'));
    assert.equal(lastSlotAtOrBefore(MIDNIGHT, at('2026-11-26T16:59:59.999Z')), slotMs);
    assert.equal(nextSlotAfter(MIDNIGHT, slotMs - 1), slotMs);
    assert.equal(nextSlotAfter(MIDNIGHT, slotMs), at('2026-11-26T17:00:00Z'), 'strictly after');
    assert.equal(nextSlotAfter(MIDNIGHT, at('2026-11-25T03:00:00Z')), slotMs);
  });

  it('places a daily time in Jakarta, across the UTC date line', () => {
    const early = parseSettlementSchedule('daily 06:30'); // 23:30 UTC the day before
    assert.equal(lastSlotAtOrBefore(early, at('2026-11-26T00:00:00Z')), at('2026-11-25T23:30:00Z'));
    assert.equal(lastSlotAtOrBefore(early, at('2026-11-25T23:29:59Z')), at('2026-11-24T23:30:00Z'));
    assert.equal(nextSlotAfter(early, at('2026-11-25T23:29:59Z')), at('2026-11-25T23:30:00Z'));
    const late = parseSettlementSchedule('daily 23:59'); // 16:59 UTC the same day
    assert.equal(lastSlotAtOrBefore(late, at('2026-11-26T17:00:00Z')), at('2026-11-26T16:59:00Z'));
    assert.equal(nextSlotAfter(late, at('2026-11-26T16:59:00Z')), at('2026-11-27T16:59:00Z'));
  });

  it('crosses a month and a year end', () => {
    assert.equal(nextSlotAfter(MIDNIGHT, at('2026-12-31T12:00:00+07:00')), at('2027-01-01T00:00:00+07:00'));
    assert.equal(lastSlotAtOrBefore(MIDNIGHT, at('2026-03-01T00:00:00+07:00') - 1), at('2026-02-28T00:00:00+07:00'));
  });
});

describe('hourly slots', () => {
  const quarterPast = parseSettlementSchedule('hourly :15');

  it('runs at the minute every hour, Jakarta midnight included', () => {
    assert.equal(lastSlotAtOrBefore(quarterPast, at('2026-11-25T17:14:59Z')), at('2026-11-25T16:15:00Z'));
    assert.equal(lastSlotAtOrBefore(quarterPast, at('2026-11-25T17:15:00Z')), at('2026-11-25T17:15:00Z'));
    assert.equal(nextSlotAfter(quarterPast, at('2026-11-25T17:15:00Z')), at('2026-11-25T18:15:00Z'));
    assert.equal(nextSlotAfter(quarterPast, at('2026-11-25T16:59:59Z')), at('2026-11-25T17:15:00Z'));
    const onTheHour = parseSettlementSchedule('hourly :00');
    assert.equal(lastSlotAtOrBefore(onTheHour, at('2026-11-25T17:00:00Z')), at('2026-11-25T17:00:00Z'));
    assert.equal(nextSlotAfter(onTheHour, at('2026-11-25T17:00:00Z')), at('2026-11-25T18:00:00Z'));
  });
});

describe('off', () => {
  it('has no slots', () => {
    const off = parseSettlementSchedule('off');
    assert.equal(lastSlotAtOrBefore(off, at('2026-11-25T17:00:00Z')), undefined);
    assert.equal(nextSlotAfter(off, at('2026-11-25T17:00:00Z')), undefined);
    assert.throws(() => slotName(off, at('2026-11-25T17:00:00Z')), TypeError);
  });
});

describe('slotName', () => {
  it('names a slot by its kind and Jakarta time to the minute, the same every time', () => {
    assert.equal(slotName(MIDNIGHT, at('2026-11-25T17:00:00Z')), 'daily 2026-11-26T00:00+07:00');
    assert.equal(slotName(MIDNIGHT, at('2026-11-25T17:00:00Z')), 'daily 2026-11-26T00:00+07:00');
    assert.equal(
      slotName(parseSettlementSchedule('daily 06:30'), at('2026-11-25T23:30:00Z')),
      'daily 2026-11-26T06:30+07:00',
    );
    assert.equal(
      slotName(parseSettlementSchedule('hourly :15'), at('2026-11-25T17:15:00Z')),
      'hourly 2026-11-26T00:15+07:00',
    );
  });

  it('gives consecutive slots different names', () => {
    const names = new Set<string>();
    let slotMs = at('2026-11-25T12:00:00Z');
    const hourly = parseSettlementSchedule('hourly :05');
    for (let i = 0; i < 48; i++) {
      slotMs = nextSlotAfter(hourly, slotMs) as number;
      names.add(slotName(hourly, slotMs));
    }
    assert.equal(names.size, 48);
  });

  it('refuses an instant that is not a slot of the schedule', () => {
    assert.throws(() => slotName(MIDNIGHT, at('2026-11-25T17:00:30Z')), TypeError);
    assert.throws(() => slotName(MIDNIGHT, at('2026-11-25T18:00:00Z')), TypeError);
    assert.throws(() => slotName(MIDNIGHT, Number.NaN), TypeError);
  });

  it('refuses an instant that is not a number', () => {
    assert.throws(() => lastSlotAtOrBefore(MIDNIGHT, Number.NaN), TypeError);
    assert.throws(() => nextSlotAfter(MIDNIGHT, Number.POSITIVE_INFINITY), TypeError);
  });
});

// The warning for status changes the database refused to announce (PostgreSQL): the first at once,
// then at most one a minute, each line counting the refusals it stands for.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { warnOfRefusedAnnouncements } from '../../src/checkout/announce-failures.ts';
import { createManualClock } from '../../src/clock.ts';
import { createLogger } from '../../src/logger.ts';

describe('the warning for refused status announcements', () => {
  it('warns at once, then at most once a minute, counting what it held back', () => {
    const lines: Array<{ level: number; msg: string; reason: string; refused: number }> = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const clock = createManualClock(Date.UTC(2026, 10, 27));
    const warn = warnOfRefusedAnnouncements(createLogger('info', sink), clock);
    const refusal = Object.assign(new Error('permission denied for function pg_notify'), { code: '42501' });

    warn(refusal);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 40, 'a warning');
    assert.match(lines[0]?.msg ?? '', /not announced to the other instances/);
    assert.equal(lines[0]?.reason, '42501: permission denied for function pg_notify');
    assert.equal(lines[0]?.refused, 1);

    // A storm of refusals within the minute: no more lines.
    for (let i = 0; i < 50; i++) {
      clock.advance(1_000);
      warn(refusal);
    }
    assert.equal(lines.length, 1);

    // The first refusal past the minute is logged, standing for the ones held back too.
    clock.advance(10_001);
    warn(refusal);
    assert.equal(lines.length, 2);
    assert.equal(lines[1]?.refused, 51);

    // Quiet for a while, then one more: at once, counting itself alone.
    clock.advance(5 * 60_000);
    warn(refusal);
    assert.equal(lines.length, 3);
    assert.equal(lines[2]?.refused, 1);
  });
});

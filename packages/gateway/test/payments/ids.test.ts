// The random parts of the gateway's ids: references and refund numbers (digits) and checkout ids
// (16 random bytes). Drawn in bulk for speed; these check they are still well formed, uniform and
// never repeat across a refill of the pool.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHECKOUT_ID, newCheckoutId } from '../../src/payments/checkout-link.ts';
import { newRandomId, newReferenceNo, newRefundNo, randomDigits } from '../../src/payments/ids.ts';

describe('random ids', () => {
  it('randomDigits gives exactly n decimal digits, leading zeros kept, past one draw of 12', () => {
    for (const n of [1, 2, 8, 12, 13, 24, 30]) {
      for (let i = 0; i < 200; i++) assert.match(randomDigits(n), new RegExp(`^[0-9]{${n}}$`));
    }
    assert.equal(randomDigits(0), '');
  });

  it('every digit position of randomDigits(12) is uniform (10,000 draws, each digit 10 % ± 2)', () => {
    const draws = 10_000;
    const counts = Array.from({ length: 12 }, () => new Array<number>(10).fill(0));
    for (let i = 0; i < draws; i++) {
      const d = randomDigits(12);
      for (let p = 0; p < 12; p++)
        (counts[p] as number[])[Number(d[p])] = ((counts[p] as number[])[Number(d[p])] ?? 0) + 1;
    }
    for (const [p, row] of counts.entries()) {
      for (const [digit, c] of row.entries()) {
        assert.ok(Math.abs(c / draws - 0.1) < 0.02, `position ${p}, digit ${digit}: ${c} of ${draws}`);
      }
    }
  });

  it('a reference is yyMMdd in Jakarta and 12 digits; a refund number RF, 8 of the time and 8 digits', () => {
    // 2026-11-26T20:00:00Z is already the 27th in Jakarta (UTC+7): 03:00:00.000 there.
    const at = Date.parse('2026-11-26T20:00:00Z');
    assert.match(newReferenceNo(at), /^26112710800000[0-9]{4}$/);
    // In the order they were made: within a millisecond by the counter, then by the millisecond.
    const made = [at, at, at, at + 1, at + 999, at + 60_000].map((ms) => newReferenceNo(ms));
    assert.equal(new Set(made).size, made.length, 'no two alike');
    assert.deepEqual(
      made.slice(3).map((r) => r.slice(6, 14)),
      ['10800001', '10800999', '10860000'],
    );
    assert.ok(
      made.slice(3).every((r, i) => r > (made[i + 2] as string)),
      made.join(' '),
    );
    assert.match(newRefundNo(at), new RegExp(`^RF${String(at).slice(-8)}[0-9]{8}$`));
    // The day is kept between calls: across midnight in Jakarta (17:00 UTC), each call gets its own.
    const midnight = Date.parse('2026-11-27T17:00:00Z');
    for (const [ms, day] of [
      [midnight - 1, '261127'],
      [midnight, '261128'],
      [midnight - 1, '261127'],
      [at, '261127'],
    ] as const) {
      assert.equal(newReferenceNo(ms).slice(0, 6), day, new Date(ms).toISOString());
    }
  });

  it('checkout ids are 22 base64url characters of 16 random bytes, none repeated across pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const id = i % 2 === 0 ? newCheckoutId() : newRandomId();
      assert.match(id, CHECKOUT_ID);
      assert.equal(Buffer.from(id, 'base64url').length, 16);
      seen.add(id);
    }
    assert.equal(seen.size, 2_000);
  });
});

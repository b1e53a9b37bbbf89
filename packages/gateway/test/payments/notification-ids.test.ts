import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newNotificationId, reseedNotificationIds, suffixPermutation } from '../../src/payments/ids.ts';

const NOW = 1_736_132_400_000;
const SUFFIXES = 10_000_000;

describe('notification ids', () => {
  it('draws 200,000 distinct 20-digit ids in one millisecond, none the previous suffix plus one', () => {
    const ids = Array.from({ length: 200_000 }, () => newNotificationId(NOW));

    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, new RegExp(`^${NOW}\\d{7}$`));
    const suffixes = ids.map((id) => Number(id.slice(13)));
    // A counter in the clear steps by one every time; a permuted one by chance (1 in 10^7 a pair).
    const countingSteps = suffixes.slice(1).filter((s, i) => (s - (suffixes[i] as number) + SUFFIXES) % SUFFIXES === 1);
    assert.ok(countingSteps.length < 5, `${countingSteps.length} of ${suffixes.length - 1} steps are +1`);
  });

  it('is ordered by its millisecond prefix', () => {
    const earlier = newNotificationId(NOW);
    const later = newNotificationId(NOW + 1);
    assert.ok(earlier < later);
    assert.equal(newNotificationId(1).slice(0, 13), '0000000000001');
  });

  it('goes on drawing valid, distinct ids after a reseed', () => {
    const before = Array.from({ length: 1_000 }, () => newNotificationId(NOW));
    reseedNotificationIds();
    const after = Array.from({ length: 1_000 }, () => newNotificationId(NOW));
    for (const id of after) assert.match(id, /^\d{20}$/);
    assert.equal(new Set(after).size, after.length);
    assert.notDeepEqual(after, before);
  });

  it('permutes the whole suffix range: 10,000,000 counter values, 10,000,000 distinct suffixes', () => {
    const key = new Uint16Array(8 * 4096).map((_, i) => (i * 2_654_435_761) >>> 20);
    const permute = suffixPermutation(key);
    const seen = new Uint8Array(SUFFIXES);
    for (let n = 0; n < SUFFIXES; n++) {
      const s = permute(n);
      if (!(s >= 0 && s < SUFFIXES) || seen[s] === 1) assert.fail(`counter ${n} gave ${s} twice or out of range`);
      seen[s] = 1;
    }
    // Another key, another order.
    const other = suffixPermutation(key.map((v) => v ^ 1));
    assert.notDeepEqual(
      [0, 1, 2, 3].map((n) => permute(n)),
      [0, 1, 2, 3].map((n) => other(n)),
    );
  });
});

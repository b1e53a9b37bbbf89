import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { feeOf, feeSnapshotOf } from '../../src/payments/fees.ts';
import type { FeeSnapshot } from '../../src/records/records.ts';

const pct = (percent: string, fixed = '0.00'): FeeSnapshot => ({ percent, fixed });
const mdr = (criteria: 'UMI' | 'UKE' | 'UME' | 'UBE'): FeeSnapshot => ({ rule: 'bi-mdr', criteria });

describe('fees', () => {
  it('charges Bank Indonesia’s QRIS MDR by criteria: UMI free up to 500,000.00, then 0.3 % of the whole; others 0.7 %', () => {
    const table: Array<[FeeSnapshot, string, string]> = [
      [mdr('UMI'), '100000.00', '0.00'],
      [mdr('UMI'), '500000.00', '0.00'],
      [mdr('UMI'), '500000.01', '1500.00'],
      [mdr('UMI'), '1000000.00', '3000.00'],
      [mdr('UKE'), '12345.00', '86.00'],
      [mdr('UME'), '1500.00', '11.00'],
      [mdr('UBE'), '100.00', '1.00'],
      [mdr('UBE'), '71.00', '0.00'],
    ];
    for (const [snapshot, amount, fee] of table)
      assert.equal(feeOf(snapshot, amount), fee, `${JSON.stringify(snapshot)} ${amount}`);
  });

  it('rounds half up to the whole rupiah: 86.415 → 86.00, 10.5 → 11.00, 10.4999 → 10.00', () => {
    assert.equal(feeOf(pct('0.70'), '12345.00'), '86.00');
    assert.equal(feeOf(pct('0.70'), '1500.00'), '11.00');
    assert.equal(feeOf(pct('0.70'), '1499.99'), '10.00');
    assert.equal(feeOf(pct('0.70'), '0.01'), '0.00');
    assert.equal(feeOf(pct('1.00'), '50.00'), '1.00');
    assert.equal(feeOf(pct('1.00'), '49.99'), '0.00');
  });

  it('adds the fixed part and never charges more than the amount', () => {
    assert.equal(feeOf(pct('0.00', '2500.00'), '150000.00'), '2500.00');
    assert.equal(feeOf(pct('1.00', '1000.00'), '150000.00'), '2500.00');
    assert.equal(feeOf(pct('0.00', '2500.00'), '1000.00'), '1000.00');
    assert.equal(feeOf(pct('100.00', '5.00'), '10.00'), '10.00');
    assert.equal(feeOf(pct('0.00'), '99999999.99'), '0.00');
  });

  it('keeps a merchant’s settings as a snapshot: Bank Indonesia’s MDR by default, VAs free by default', () => {
    assert.deepEqual(feeSnapshotOf({ fees: null, qrisCriteria: 'UKE' }, 'qris'), mdr('UKE'));
    assert.deepEqual(feeSnapshotOf({ fees: null, qrisCriteria: 'UMI' }, 'va'), pct('0.00'));
    assert.deepEqual(feeSnapshotOf({ fees: { qris: { percent: '0.70' } }, qrisCriteria: 'UMI' }, 'qris'), pct('0.70'));
    assert.deepEqual(
      feeSnapshotOf({ fees: { qris: { rule: 'bi-mdr' }, va: { fixed: '2500.00' } }, qrisCriteria: 'UBE' }, 'va'),
      pct('0.00', '2500.00'),
    );
  });
});

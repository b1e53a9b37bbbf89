import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canChangeStatus,
  compareMoney,
  fromMinorUnits,
  idr,
  isFinalStatus,
  isMoneyValue,
  TRANSACTION_STATUS,
  type TransactionStatus,
  toMinorUnits,
} from '../src/index.ts';

describe('money', () => {
  for (const v of ['0.00', '1.00', '10000.00', '9999999999999999.99']) {
    it(`accepts ${v}`, () => assert.equal(isMoneyValue(v), true));
  }
  for (const v of ['', '1', '1.0', '1.000', '01.00', '-1.00', '1e3', ' 1.00', '10000000000000000.00', 1.5, null]) {
    it(`rejects ${JSON.stringify(v)}`, () => assert.equal(isMoneyValue(v), false));
  }
  it('converts to and from minor units exactly', () => {
    assert.equal(toMinorUnits('9999999999999999.99'), 999999999999999999n);
    assert.equal(fromMinorUnits(999999999999999999n), '9999999999999999.99');
    assert.equal(fromMinorUnits(5n), '0.05');
    assert.equal(fromMinorUnits(toMinorUnits('0.10') + toMinorUnits('0.20')), '0.30');
    assert.equal(compareMoney('10.00', '9.99'), 1);
    assert.equal(compareMoney('10.00', '10.00'), 0);
  });
  it('builds a checked IDR amount, refusing a number or a malformed string', () => {
    assert.deepEqual(idr('10000.00'), { value: '10000.00', currency: 'IDR' });
    assert.deepEqual(idr(fromMinorUnits(1500000n)), { value: '15000.00', currency: 'IDR' });
    assert.throws(() => idr('10000'), /not a money value: "10000"/);
    assert.throws(() => idr(10000 as unknown as string), TypeError);
  });
});

describe('status machine (docs/protocol.md#transaction-statuses)', () => {
  const allowed: Record<TransactionStatus, TransactionStatus[]> = {
    '01': ['02', '03', '00', '05', '06'],
    '02': ['02', '03', '00', '06'],
    '03': ['02', '03', '00', '06'],
    '00': ['04'],
    '04': [],
    '05': [],
    '06': [],
  };
  const all = Object.keys(TRANSACTION_STATUS) as TransactionStatus[];
  for (const from of all) {
    for (const to of all) {
      const ok = allowed[from].includes(to);
      it(`${ok ? 'allows' : 'refuses'} ${from} → ${to}`, () => assert.equal(canChangeStatus(from, to), ok));
    }
  }
  it('calls 04, 05 and 06 final', () => {
    assert.deepEqual(
      all.filter((s) => isFinalStatus(s)),
      ['04', '05', '06'],
    );
  });
});

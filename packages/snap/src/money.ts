// docs/protocol.md#conventions: amounts are decimal strings with exactly two fraction digits and at most
// 16 integer digits. Arithmetic is done in minor units (BigInt), never floats.
const MONEY_VALUE = /^(0|[1-9]\d{0,15})\.\d{2}$/;

/** A SNAP amount object. */
export interface Money {
  value: string;
  currency: string;
}

/**
 * True when `value` is a SNAP money string: `"10000.00"`.
 *
 * @example
 * isMoneyValue('10000.00'); // true
 * isMoneyValue('10000.5');  // false
 */
export function isMoneyValue(value: unknown): value is string {
  return typeof value === 'string' && MONEY_VALUE.test(value);
}

/**
 * A rupiah amount object, checked: `idr('10000.00')` is `{ value: '10000.00', currency: 'IDR' }`.
 * A number is refused: write amounts as strings, or convert minor units with `fromMinorUnits`.
 *
 * @example
 * idr('10000.00');                 // { value: '10000.00', currency: 'IDR' }
 * idr(fromMinorUnits(1500000n));   // { value: '15000.00', currency: 'IDR' }
 */
export function idr(value: string): Money {
  if (!isMoneyValue(value)) throw new TypeError(`not a money value: ${JSON.stringify(value)} (write "10000.00")`);
  return { value, currency: 'IDR' };
}

/**
 * Converts a money string to minor units (cents) as a BigInt.
 *
 * @example
 * toMinorUnits('10000.50'); // 1000050n
 */
export function toMinorUnits(value: string): bigint {
  if (!isMoneyValue(value)) throw new TypeError(`not a money value: ${JSON.stringify(value)}`);
  return BigInt(value.replace('.', ''));
}

/**
 * Formats minor units as a money string.
 *
 * @example
 * fromMinorUnits(1000050n); // '10000.50'
 */
export function fromMinorUnits(minor: bigint): string {
  if (minor < 0n) throw new TypeError('negative amount');
  const s = minor.toString().padStart(3, '0');
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}

/**
 * Compares two money strings: -1, 0 or 1.
 *
 * @example
 * compareMoney('10.00', '9.99'); // 1
 */
export function compareMoney(a: string, b: string): -1 | 0 | 1 {
  const x = toMinorUnits(a);
  const y = toMinorUnits(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

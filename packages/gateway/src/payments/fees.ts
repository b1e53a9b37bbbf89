import { fromMinorUnits, toMinorUnits } from '@snapgate/snap';
import { methodOf } from '../methods/index.ts';
import type { FeeSnapshot, MerchantRecord, TransactionKind } from '../records/records.ts';

// docs/books.md#fees: what the gateway charges per paid transaction. Money is integer sen here,
// never a float: fee = amount × percent / 100 + fixed, rounded half up to the whole rupiah, never
// more than the amount.

/** Bank Indonesia's QRIS MDR above which a micro merchant (UMI) pays it: 500,000.00. */
const UMI_FREE_UP_TO_SEN = 50_000_000n;
/** A percent string with two fraction digits as hundredths of a percent: "0.70" → 70n. */
const hundredthsOf = (percent: string) => toMinorUnits(percent);

/** The fee settings a new transaction of this kind keeps (a later change applies to new ones only). */
export const feeSnapshotOf = (
  merchant: Pick<MerchantRecord, 'fees' | 'qrisCriteria'>,
  kind: TransactionKind,
): FeeSnapshot => methodOf(kind).feeSnapshot(merchant);

/** The percent and fixed part a snapshot charges on an amount (in sen). */
function partsOf(snapshot: FeeSnapshot, amountSen: bigint): { hundredths: bigint; fixedSen: bigint } {
  if ('rule' in snapshot) {
    // Micro merchants: free up to 500,000.00, then 0.3 % of the whole amount; others 0.7 %.
    if (snapshot.criteria === 'UMI') return { hundredths: amountSen > UMI_FREE_UP_TO_SEN ? 30n : 0n, fixedSen: 0n };
    return { hundredths: 70n, fixedSen: 0n };
  }
  return { hundredths: hundredthsOf(snapshot.percent), fixedSen: toMinorUnits(snapshot.fixed) };
}

/**
 * The fee on a paid amount ("12345.00") under a snapshot, as a money string: rounded half up to
 * the whole rupiah, at most the amount.
 *
 * @example
 * feeOf({ percent: '0.70', fixed: '0.00' }, '12345.00'); // '86.00' (86.415)
 * feeOf({ percent: '0.70', fixed: '0.00' }, '1500.00'); // '11.00' (10.5)
 */
export function feeOf(snapshot: FeeSnapshot, amount: string): string {
  const amountSen = toMinorUnits(amount);
  const { hundredths, fixedSen } = partsOf(snapshot, amountSen);
  // In units of 1/10,000 sen: amount × hundredths of a percent, plus the fixed part.
  const scaled = amountSen * hundredths + fixedSen * 10_000n;
  const rupiah = (scaled + 500_000n) / 1_000_000n;
  const feeSen = rupiah * 100n;
  return fromMinorUnits(feeSen < amountSen ? feeSen : amountSen);
}

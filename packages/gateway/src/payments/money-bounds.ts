import { toMinorUnits } from '@snapgate/snap';

// docs/operations.md#money-bounds. SNAP's format allows 16 integer digits, but the books add amounts
// up: these bounds keep every sum they store inside a 64-bit integer on both engines, with room.

/** The largest single amount a transaction, payment or refund may carry: 100 trillion rupiah. */
export const MAX_AMOUNT = '100000000000000.00';
export const MAX_AMOUNT_SEN = toMinorUnits(MAX_AMOUNT);

/**
 * The most one merchant may have unsettled (payments and refunds no settlement has taken yet):
 * 1,000 trillion rupiah. The database holds it (migration 028's `unsettled_within_limit`).
 */
export const MAX_UNSETTLED = '1000000000000000.00';

/** True when the database refused a write for passing MAX_UNSETTLED (either engine, either thread). */
export function isUnsettledLimitError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === '23514') return e.constraint === 'unsettled_within_limit';
  return (
    e.code === 'SQLITE_CONSTRAINT_CHECK' &&
    typeof e.message === 'string' &&
    e.message.includes('unsettled_within_limit')
  );
}

// docs/protocol.md#transaction-statuses: transaction statuses and the changes allowed between them.
export const TRANSACTION_STATUS = {
  '00': 'Success',
  '01': 'Initiated',
  '02': 'Paying',
  '03': 'Pending',
  '04': 'Refunded',
  '05': 'Canceled',
  '06': 'Failed',
} as const;

export type TransactionStatus = keyof typeof TRANSACTION_STATUS;

const ALLOWED: Record<TransactionStatus, readonly TransactionStatus[]> = {
  '01': ['02', '03', '00', '05', '06'],
  '02': ['02', '03', '00', '06'],
  '03': ['02', '03', '00', '06'],
  '00': ['04'],
  '04': [],
  '05': [],
  '06': [],
};

/**
 * True for a two-digit transaction status code.
 *
 * @example
 * isTransactionStatus('00'); // true
 */
export function isTransactionStatus(value: unknown): value is TransactionStatus {
  return typeof value === 'string' && Object.hasOwn(TRANSACTION_STATUS, value);
}

/**
 * True when a transaction may move from `from` to `to` (docs/protocol.md#transaction-statuses).
 *
 * @example
 * canChangeStatus('01', '00'); // true
 * canChangeStatus('00', '01'); // false
 */
export function canChangeStatus(from: TransactionStatus, to: TransactionStatus): boolean {
  return ALLOWED[from].includes(to);
}

/**
 * True for a status no change can leave: Refunded, Canceled, Failed.
 *
 * @example
 * isFinalStatus('06'); // true
 */
export function isFinalStatus(status: TransactionStatus): boolean {
  return ALLOWED[status].length === 0;
}

/**
 * How far along a status is, for a merchant who must never let an older notification
 * overwrite a newer one: Initiated < Paying/Pending < Success/Failed/Canceled < Refunded.
 *
 * @example
 * statusRank('00') > statusRank('03'); // true
 */
export function statusRank(status: TransactionStatus): number {
  switch (status) {
    case '01':
      return 0;
    case '02':
    case '03':
      return 1;
    case '00':
    case '05':
    case '06':
      return 2;
    case '04':
      return 3;
  }
}

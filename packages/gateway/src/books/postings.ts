import { toMinorUnits } from '@snapgate/snap';
import type { LedgerLine, NewLedgerEntry, SettlementRecord } from '../records/book-records.ts';
import type { PayoutRecord } from '../records/payout-records.ts';
import type { RefundRecord, TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';

// docs/books.md#ledger: what each event posts. An entry is stored as its kind, its accounts' owners
// and its amounts; its lines are its kind's posting of them (linesOf), so every entry balances (its
// debits equal its credits) by construction. An event reached twice posts once.

/** The accounts of the books. */
export const account = {
  provider: (providerId: string) => `provider:${providerId}`,
  pending: (merchantId: string) => `merchant:${merchantId}:pending`,
  settling: (merchantId: string) => `merchant:${merchantId}:settling`,
  fees: 'fees',
  cash: 'cash',
  /** Money on its way out: disbursements sent to the bank and not yet paid or returned. */
  transfers: 'transfers',
} as const;

const debit = (acct: string, amountSen: bigint): LedgerLine => ({ account: acct, debitSen: amountSen, creditSen: 0n });
const credit = (acct: string, amountSen: bigint): LedgerLine => ({ account: acct, debitSen: 0n, creditSen: amountSen });

/** What a payment posts: its provider collected the amount; the merchant is owed it less the fee. */
function paymentLines(providerId: string, merchantId: string, amountSen: bigint, feeSen: bigint): LedgerLine[] {
  const lines = [
    debit(account.provider(providerId), amountSen),
    credit(account.pending(merchantId), amountSen - feeSen),
  ];
  if (feeSen > 0n) lines.push(credit(account.fees, feeSen));
  return lines;
}

/** What a refund posts: the merchant owes it back; its provider pays it out. */
const refundLines = (providerId: string, merchantId: string, amountSen: bigint): LedgerLine[] => [
  debit(account.pending(merchantId), amountSen),
  credit(account.provider(providerId), amountSen),
];

/** The cause of a transaction's payment entry. */
export const paymentCause = (referenceNo: string) => `payment:${referenceNo}`;

/**
 * A transaction became 00: its provider collected what was paid; the merchant is owed it less the
 * fee; the fee is revenue.
 */
export function paymentEntry(paid: TransactionRecord, providerId: string, at: number): NewLedgerEntry {
  const amountSen = toMinorUnits(paid.paidAmount ?? (paid.amount as string));
  const feeSen = toMinorUnits(paid.feeAmount);
  return {
    kind: 'payment',
    cause: paymentCause(paid.referenceNo),
    at,
    merchantId: paid.merchantId,
    providerId,
    referenceNo: paid.referenceNo,
    refundNo: null,
    settlementId: null,
    amountSen,
    feeSen,
  };
}

/** A refund: the merchant owes it back; its provider pays it out of what it collected. The fee stays. */
export function refundEntry(refund: RefundRecord, providerId: string, at: number): NewLedgerEntry {
  const amountSen = toMinorUnits(refund.amount);
  return {
    kind: 'refund',
    cause: `refund:${refund.refundNo}`,
    at,
    merchantId: refund.merchantId,
    providerId,
    referenceNo: refund.referenceNo,
    refundNo: refund.refundNo,
    settlementId: null,
    amountSen,
    feeSen: 0n,
  };
}

/** Where a settlement and a payout move a merchant's net: pending → settling → the gateway's cash. */
const MOVES: Record<'settlement' | 'payout', (merchantId: string) => [from: string, to: string]> = {
  settlement: (m) => [account.pending(m), account.settling(m)],
  payout: (m) => [account.settling(m), account.cash],
};

const movedLines = (kind: 'settlement' | 'payout', merchantId: string, netSen: bigint): LedgerLine[] => {
  const [from, to] = MOVES[kind](merchantId);
  return [debit(from, netSen), credit(to, netSen)];
};

/** A settlement or a payout: the settlement's net moves from one account to the next. */
function movedNet(kind: 'settlement' | 'payout', s: SettlementRecord, at: number): NewLedgerEntry {
  return {
    kind,
    cause: `${kind}:${s.id}`,
    at,
    merchantId: s.merchantId,
    providerId: null,
    referenceNo: null,
    refundNo: null,
    settlementId: s.id,
    amountSen: s.netSen,
    feeSen: 0n,
  };
}

/** A settlement takes the merchant's pending net into settling. */
export const settlementEntry = (s: SettlementRecord, at: number) => movedNet('settlement', s, at);

/** A payout: the settlement's net leaves the gateway's bank account for the merchant's. */
export const payoutEntry = (s: SettlementRecord, at: number) => movedNet('payout', s, at);

type DisbursementKind = 'disbursement' | 'disbursement_paid' | 'disbursement_returned';

/**
 * A disbursement's three moments (docs/payouts.md#disbursements). Asked: the merchant's pending pays
 * the amount and the fee; the amount is on its way out, the fee is revenue. Paid: the amount leaves
 * the gateway's bank account. Returned: the amount and the fee go back to the merchant.
 */
function disbursementLines(kind: DisbursementKind, merchantId: string, amountSen: bigint, feeSen: bigint) {
  switch (kind) {
    case 'disbursement':
      return [
        debit(account.pending(merchantId), amountSen + feeSen),
        credit(account.transfers, amountSen),
        ...(feeSen > 0n ? [credit(account.fees, feeSen)] : []),
      ];
    case 'disbursement_paid':
      return [debit(account.transfers, amountSen), credit(account.cash, amountSen)];
    case 'disbursement_returned':
      return [
        debit(account.transfers, amountSen),
        ...(feeSen > 0n ? [debit(account.fees, feeSen)] : []),
        credit(account.pending(merchantId), amountSen + feeSen),
      ];
  }
}

/** The cause of one of a disbursement's entries: its kind and the payout's id. */
export const disbursementCause = (kind: DisbursementKind, payoutId: string) => `${kind}:${payoutId}`;

/** The payout a disbursement entry was posted for (its cause names it). */
export const payoutIdOfCause = (cause: string) => cause.slice(cause.indexOf(':') + 1);

/** One of a disbursement's entries: its amount and fee, under its referenceNo. */
export function disbursementEntry(kind: DisbursementKind, p: PayoutRecord, at: number): NewLedgerEntry {
  return {
    kind,
    cause: disbursementCause(kind, p.id),
    at,
    merchantId: p.merchantId,
    providerId: null,
    referenceNo: p.referenceNo,
    refundNo: null,
    settlementId: null,
    amountSen: p.amountSen,
    feeSen: kind === 'disbursement_paid' ? 0n : p.feeSen,
  };
}

/**
 * An entry's lines: its kind's posting of its amount and fee. A payment or a refund names its
 * provider; one that does not (only a row written behind the gateway's back) has no lines, and
 * verification reports it.
 */
export function linesOf(e: NewLedgerEntry): LedgerLine[] {
  switch (e.kind) {
    case 'payment':
      return e.providerId === null ? [] : paymentLines(e.providerId, e.merchantId, e.amountSen, e.feeSen);
    case 'refund':
      return e.providerId === null ? [] : refundLines(e.providerId, e.merchantId, e.amountSen);
    case 'settlement':
    case 'payout':
      return movedLines(e.kind, e.merchantId, e.amountSen);
    case 'disbursement':
    case 'disbursement_paid':
    case 'disbursement_returned':
      return disbursementLines(e.kind, e.merchantId, e.amountSen, e.feeSen);
  }
}

/**
 * A refund's entry: credited to the provider that collected the payment. A transaction paid before
 * the ledger began has no payment entry, and its refund none either.
 */
export async function refundPosting(
  store: Pick<Store, 'findPaymentEntry'>,
  refund: RefundRecord,
  at: number,
): Promise<NewLedgerEntry | undefined> {
  const payment = await store.findPaymentEntry(refund.referenceNo);
  return payment?.providerId ? refundEntry(refund, payment.providerId, at) : undefined;
}

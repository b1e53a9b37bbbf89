// The books as stored (docs/books.md): ledger entries, settlements, reconciliation runs. Money is
// integer sen (bigint) here; the doors write it as decimal strings.

/** Every kind of ledger entry (docs/books.md#ledger, docs/payouts.md#disbursements). */
export const LEDGER_KINDS = [
  'payment',
  'refund',
  'settlement',
  'payout',
  'disbursement',
  'disbursement_paid',
  'disbursement_returned',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** One line of an entry: one side is zero. */
export interface LedgerLine {
  account: string;
  debitSen: bigint;
  creditSen: bigint;
}

/** An entry to post, with the status change or action that causes it. */
export interface NewLedgerEntry {
  kind: LedgerKind;
  /** What posted it (`payment:<referenceNo>`, `refund:<refundNo>`, …): posted once, ever. */
  cause: string;
  at: number;
  merchantId: string;
  providerId: string | null;
  referenceNo: string | null;
  refundNo: string | null;
  settlementId: string | null;
  /** payment: what was paid; refund: the refund; settlement and payout: the net. */
  amountSen: bigint;
  /** payment: the fee charged; else 0. Its lines follow from its kind and these (books/postings.ts). */
  feeSen: bigint;
}

export interface LedgerEntry extends NewLedgerEntry {
  /** Increasing in the order entries were written (not always the order they committed). */
  id: string;
}

export interface LedgerFilter {
  merchantId?: string | undefined;
  referenceNo?: string | undefined;
  kind?: LedgerKind | undefined;
  /** at >= since (epoch ms). */
  since?: number | undefined;
  /** at < until (epoch ms). */
  until?: number | undefined;
  /** Payments collected by this provider. */
  providerId?: string | undefined;
}

/**
 * Where a clean verification got to (migration 035): the last entry it covers, how many entries
 * that is, until when paid transactions were checked, and the sums carried forward (sen): every
 * account's balance (debits − credits), each merchant's paid out and fees.
 */
export interface LedgerCheckpoint {
  throughEntryId: number;
  entries: number;
  paidThrough: number;
  accounts: Map<string, bigint>;
  merchants: Map<string, { paidOutSen: bigint; feesSen: bigint }>;
  at: number;
}

/** A merchant's balance in sen, as its running totals keep it (migration 033). */
export interface RunningTotals {
  pendingSen: bigint;
  settlingSen: bigint;
  paidOutSen: bigint;
  feesSen: bigint;
}

/** A merchant's entries summed by kind (its balance is made of these). */
export type LedgerTotals = Record<LedgerKind, { count: number; amountSen: bigint; feeSen: bigint }>;

/** `paying`: a payout through the bank is under way (docs/payouts.md#paying-a-settlement). */
export type SettlementStatus = 'open' | 'paying' | 'paid';

export interface SettlementRecord {
  id: string;
  merchantId: string;
  cutoff: number;
  status: SettlementStatus;
  /** Payments in it. */
  count: number;
  grossSen: bigint;
  feesSen: bigint;
  refundsSen: bigint;
  /** Disbursements it took (amounts and fees), and those returned (docs/payouts.md#disbursements). */
  disbursedSen: bigint;
  returnedSen: bigint;
  netSen: bigint;
  createdAt: number;
  paidAt: number | null;
  bankReference: string | null;
  /** The scheduled run that made it; null when made on demand. */
  slot: string | null;
  /** Its latest payout through the bank, if any. */
  payoutId: string | null;
  /** Why its latest payout failed, when it did. */
  lastPayoutError: string | null;
}

export interface SettlementFilter {
  merchantId?: string | undefined;
  status?: SettlementStatus | undefined;
}

/** What a settlement run asks the store to do for one merchant. */
export interface SettlementRun {
  id: string;
  merchantId: string;
  cutoff: number;
  at: number;
  slot: string | null;
}

/** What a payout does to a settlement, or why it did nothing. */
export type PayoutOutcome =
  | { outcome: 'paid'; settlement: SettlementRecord }
  | { outcome: 'already-paid'; settlement: SettlementRecord }
  | { outcome: 'not-found' };

export interface ReconciliationProblem {
  line: number | null;
  type: 'missing_at_gateway' | 'missing_at_provider' | 'amount_mismatch' | 'status_mismatch' | 'duplicate';
  referenceNo?: string;
  expected?: string;
  actual?: string;
}

/** A problem as its run keeps it (docs/books.md#runs). */
export interface StoredReconciliationProblem extends ReconciliationProblem {
  /** Its place in the run: 1, 2, … (line order, `missing_at_provider` last). */
  seq: number;
  /** What its line reported, kept to apply it later; absent for `missing_at_provider`. */
  reported?: { amount: string; providerReference: string | null };
  /** When it was applied (epoch ms), as read back; absent while it is not. */
  resolvedAt?: number;
}

export interface ReconciliationRecord {
  id: string;
  providerId: string;
  createdAt: number;
  /** The Jakarta calendar days the report covers (YYYY-MM-DD). */
  from: string;
  to: string;
  lines: number;
  matched: number;
  /** How many problems it found: they are read a page at a time. */
  problemCount: number;
}

/** A problem applied: the line of a run, once. */
export interface ReconciliationResolution {
  reconciliationId: string;
  line: number;
  referenceNo: string;
  resolvedAt: number;
}

/** Who applied a payment from a provider's report, and from which run and line (docs/books.md#apply). */
export interface AppliedFromReport {
  /** How the history names who applied it: `admin key ops`. */
  by: string;
  reconciliationId: string;
  line: number;
}

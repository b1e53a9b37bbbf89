import { toMinorUnits } from '@snapgate/snap';
import { notFound } from '../domain-error.ts';
import { type Caller, ownerOf, reaches } from '../operators/caller.ts';
import type {
  BooksStore,
  ClientStore,
  LedgerEntry,
  LedgerFilter,
  LedgerLine,
  LedgerTotals,
  Page,
  PageRequest,
  PaidTransaction,
} from '../store/store.ts';
import { account, linesOf, payoutIdOfCause } from './postings.ts';
import { signedMoney } from './settlement-report.ts';

// docs/books.md#ledger: balances, the journal as operators read it, and its verification.

/** Money as the doors write it: a decimal string, signed when negative (the report's own writer). */
export const money = signedMoney;

export interface Balance {
  merchantId: string;
  currency: 'IDR';
  pending: string;
  settling: string;
  paidOut: string;
  fees: string;
}

/** What a merchant's disbursements took from it (amounts and fees), less what came back. */
const disbursedOf = (t: LedgerTotals) =>
  t.disbursement.amountSen + t.disbursement.feeSen - t.disbursement_returned.amountSen - t.disbursement_returned.feeSen;

/** A merchant's balance in sen, from its entries summed by kind. */
export function balanceOf(t: LedgerTotals) {
  const owed = t.payment.amountSen - t.payment.feeSen - t.refund.amountSen - disbursedOf(t);
  return {
    pendingSen: owed - t.settlement.amountSen,
    settlingSen: t.settlement.amountSen - t.payout.amountSen,
    paidOutSen: t.payout.amountSen,
    feesSen: t.payment.feeSen + t.disbursement.feeSen - t.disbursement_returned.feeSen,
  };
}

export interface LedgerEntryView {
  id: string;
  at: string;
  kind: LedgerEntry['kind'];
  merchantId: string;
  providerId?: string;
  referenceNo?: string;
  refundNo?: string;
  settlementId?: string;
  lines: Array<{ account: string; debit: string; credit: string }>;
}

export function ledgerEntryView(e: LedgerEntry): LedgerEntryView {
  return {
    id: e.id,
    at: new Date(e.at).toISOString(),
    kind: e.kind,
    merchantId: e.merchantId,
    ...(e.providerId === null ? {} : { providerId: e.providerId }),
    ...(e.referenceNo === null ? {} : { referenceNo: e.referenceNo }),
    ...(e.refundNo === null ? {} : { refundNo: e.refundNo }),
    ...(e.settlementId === null ? {} : { settlementId: e.settlementId }),
    lines: linesOf(e).map((l) => ({ account: l.account, debit: money(l.debitSen), credit: money(l.creditSen) })),
  };
}

export interface LedgerProblem {
  type:
    | 'unbalanced'
    | 'wrong_lines'
    | 'missing_payment'
    | 'duplicate_payment'
    | 'payment_mismatch'
    | 'no_cause'
    | 'account_balance'
    | 'running_totals'
    | 'merchant_balance';
  message: string;
  entryId?: string;
  referenceNo?: string;
  merchantId?: string;
}

export interface Verification {
  ok: boolean;
  entries: number;
  problems: LedgerProblem[];
}

type LedgerStore = Pick<ClientStore, 'findMerchantById'> & BooksStore;

export function createLedgerService({ store }: { store: LedgerStore }) {
  return {
    /** From the running totals (one row), whatever the size of the merchant's history. */
    async balance(caller: Caller, merchantId: string): Promise<Balance> {
      if (!reaches(caller, merchantId) || !(await store.findMerchantById(merchantId))) throw notFound('merchant');
      const b = await store.runningTotals(merchantId);
      return {
        merchantId,
        currency: 'IDR',
        pending: money(b.pendingSen),
        settling: money(b.settlingSen),
        paidOut: money(b.paidOutSen),
        fees: money(b.feesSen),
      };
    },

    /** Newest first; a merchant sees its own entries only. */
    entries(caller: Caller, filter: LedgerFilter, page: PageRequest): Promise<Page<LedgerEntry>> {
      const owner = ownerOf(caller);
      return store.listLedgerEntries(owner === undefined ? filter : { ...filter, merchantId: owner }, page);
    },

    /** Every invariant of docs/books.md#verification, over the whole journal. */
    verify: () => verifyLedger(store),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;

const PAGE = 1000;

async function verifyLedger(store: BooksStore): Promise<Verification> {
  const problems: LedgerProblem[] = [];
  const startedAt = await store.ledgerStartedAt();
  const paid = new Map<string, PaidTransaction>();
  for (let after = ''; ; ) {
    const page = await store.paidTransactionsSince(startedAt, after, PAGE);
    for (const t of page) paid.set(t.referenceNo, t);
    if (page.length < PAGE) break;
    after = (page[page.length - 1] as PaidTransaction).referenceNo;
  }
  const causes = await store.knownCauses();
  const disbursements = await store.disbursementFacts();
  const payments = new Map<string, LedgerEntry[]>();
  /** Each account's balance (debit − credit), from the entries' lines. */
  const fromLines = new Map<string, bigint>();
  const add = (m: Map<string, bigint>, key: string, v: bigint) => m.set(key, (m.get(key) ?? 0n) + v);
  let count = 0;
  for (let after = 0; ; ) {
    const page = await store.scanLedger(after, PAGE);
    for (const e of page) {
      count++;
      for (const l of checkEntry(e, problems)) add(fromLines, l.account, l.debitSen - l.creditSen);
      if (e.kind === 'payment') {
        const key = e.referenceNo ?? '';
        payments.set(key, [...(payments.get(key) ?? []), e]);
      }
      const why = causeProblem(e, paid, causes, disbursements.states);
      if (why) problems.push({ type: 'no_cause', message: why, entryId: e.id, merchantId: e.merchantId });
    }
    if (page.length < PAGE) break;
    after = Number((page[page.length - 1] as LedgerEntry).id);
  }
  const owedByTransactions = new Map<string, bigint>();
  for (const t of paid.values()) {
    const entries = payments.get(t.referenceNo) ?? [];
    const amountSen = toMinorUnits(t.paidAmount ?? t.amount ?? '0.00');
    const feeSen = toMinorUnits(t.feeAmount);
    owedByTransactions.set(t.merchantId, (owedByTransactions.get(t.merchantId) ?? 0n) + amountSen - feeSen);
    const base = { referenceNo: t.referenceNo, merchantId: t.merchantId };
    if (entries.length === 0) {
      problems.push({ ...base, type: 'missing_payment', message: `${t.referenceNo} is paid but has no payment entry` });
    } else if (entries.length > 1) {
      problems.push({
        ...base,
        type: 'duplicate_payment',
        message: `${t.referenceNo} has ${entries.length} payment entries`,
      });
    } else {
      const e = entries[0] as LedgerEntry;
      if (t.paymentEntryId !== e.id) {
        // A refund finds its provider through this link: without it, a refund would post nothing.
        problems.push({
          ...base,
          type: 'payment_mismatch',
          entryId: e.id,
          message: `${t.referenceNo}: names ${t.paymentEntryId === null ? 'no payment entry' : `entry ${t.paymentEntryId}`} as its payment, not entry ${e.id}`,
        });
      }
      if (e.amountSen !== amountSen || e.feeSen !== feeSen) {
        problems.push({
          ...base,
          type: 'payment_mismatch',
          entryId: e.id,
          message: `${t.referenceNo}: paid ${money(amountSen)} with fee ${money(feeSen)}, posted ${money(e.amountSen)} with fee ${money(e.feeSen)}`,
        });
      }
    }
  }
  const refunds = await store.refundsSince(startedAt);
  const merchants = new Set([...(await store.ledgerMerchants()), ...owedByTransactions.keys()]);
  for (const merchantId of merchants) {
    const b = balanceOf(await store.ledgerTotals(merchantId));
    const booked = b.pendingSen + b.settlingSen + b.paidOutSen;
    const owed =
      (owedByTransactions.get(merchantId) ?? 0n) -
      (refunds.get(merchantId) ?? 0n) -
      (disbursements.spentByMerchant.get(merchantId) ?? 0n);
    const pending = -(fromLines.get(account.pending(merchantId)) ?? 0n);
    const settling = -(fromLines.get(account.settling(merchantId)) ?? 0n);
    if (booked !== owed) {
      problems.push({
        type: 'merchant_balance',
        merchantId,
        message: `merchant ${merchantId}: pending + settling + paid out is ${money(booked)}, its payments less fees, refunds and disbursements ${money(owed)}`,
      });
    }
    if (pending !== b.pendingSen || settling !== b.settlingSen) {
      problems.push({
        type: 'account_balance',
        merchantId,
        message: `merchant ${merchantId}: its balance (pending ${money(b.pendingSen)}, settling ${money(b.settlingSen)}) is not its accounts' lines (${money(pending)}, ${money(settling)})`,
      });
    }
    const kept = await store.runningTotals(merchantId);
    if (
      kept.pendingSen !== b.pendingSen ||
      kept.settlingSen !== b.settlingSen ||
      kept.paidOutSen !== b.paidOutSen ||
      kept.feesSen !== b.feesSen
    ) {
      const said = (t: typeof kept) =>
        `pending ${money(t.pendingSen)}, settling ${money(t.settlingSen)}, paid out ${money(t.paidOutSen)}, fees ${money(t.feesSen)}`;
      problems.push({
        type: 'running_totals',
        merchantId,
        message: `merchant ${merchantId}: its running totals (${said(kept)}) are not its entries' (${said(b)})`,
      });
    }
  }
  const transfers = fromLines.get(account.transfers) ?? 0n;
  if (-transfers !== disbursements.inFlightSen) {
    problems.push({
      type: 'account_balance',
      message: `transfers holds ${money(-transfers)}, the disbursements on their way out ${money(disbursements.inFlightSen)}`,
    });
  }
  return { ok: problems.length === 0, entries: count, problems };
}

/**
 * An entry's lines (its kind's posting of its amounts): a payment or a refund names its provider,
 * and no line is negative (a fee above the amount paid would credit the merchant less than nothing).
 */
function checkEntry(e: LedgerEntry, problems: LedgerProblem[]): LedgerLine[] {
  const lines = linesOf(e);
  const where = { entryId: e.id, merchantId: e.merchantId };
  if (lines.length === 0) {
    problems.push({ type: 'wrong_lines', ...where, message: `entry ${e.id} (${e.kind}): it names no provider` });
  }
  let debits = 0n;
  let credits = 0n;
  for (const l of lines) {
    debits += l.debitSen;
    credits += l.creditSen;
  }
  if (debits !== credits || lines.some((l) => l.debitSen < 0n || l.creditSen < 0n)) {
    problems.push({
      type: 'unbalanced',
      ...where,
      message: `entry ${e.id} (${e.kind}): a line is negative (amount ${money(e.amountSen)}, fee ${money(e.feeSen)})`,
    });
  }
  return lines;
}

/** The payout state a disbursement entry's cause must be in: any (asked), paid, failed (returned). */
const DISBURSEMENT_STATES: Record<'disbursement' | 'disbursement_paid' | 'disbursement_returned', string | null> = {
  disbursement: null,
  disbursement_paid: 'paid',
  disbursement_returned: 'failed',
};

function causeProblem(
  e: LedgerEntry,
  paid: Map<string, PaidTransaction>,
  causes: { refunds: Set<string>; settlements: Map<string, string> },
  disbursements: Map<string, string>,
): string | undefined {
  switch (e.kind) {
    case 'payment': {
      const t = e.referenceNo === null ? undefined : paid.get(e.referenceNo);
      return t && t.merchantId === e.merchantId
        ? undefined
        : `payment entry ${e.id}: ${e.referenceNo} is not a paid transaction`;
    }
    case 'refund':
      return e.refundNo !== null && causes.refunds.has(e.refundNo)
        ? undefined
        : `refund entry ${e.id}: no refund ${e.refundNo}`;
    case 'settlement':
      return e.settlementId !== null && causes.settlements.has(e.settlementId)
        ? undefined
        : `settlement entry ${e.id}: no settlement ${e.settlementId}`;
    case 'payout':
      return e.settlementId !== null && causes.settlements.get(e.settlementId) === 'paid'
        ? undefined
        : `payout entry ${e.id}: settlement ${e.settlementId} is not paid out`;
    case 'disbursement':
    case 'disbursement_paid':
    case 'disbursement_returned': {
      const payoutId = payoutIdOfCause(e.cause);
      const state = disbursements.get(payoutId);
      const wanted = DISBURSEMENT_STATES[e.kind];
      return state !== undefined && (wanted === null || state === wanted)
        ? undefined
        : `${e.kind} entry ${e.id}: disbursement ${payoutId} is ${state ?? 'unknown'}`;
    }
  }
}

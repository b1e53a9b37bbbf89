import { randomUUID } from 'node:crypto';
import { toMinorUnits } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { notFound } from '../domain-error.ts';
import { type Caller, ownerOf, reaches } from '../operators/caller.ts';
import type { LedgerCheckpoint, LedgerEntry, LedgerFilter, LedgerLine, LedgerTotals } from '../records/book-records.ts';
import type { Page, PageRequest, PaidTransaction } from '../records/records.ts';
import type { BooksStore, ClientStore } from '../store/store.ts';
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
    | 'unsettled_queue'
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
  /** `incremental`: what was written since the last clean verification; `full`: the whole journal. */
  mode?: 'incremental' | 'full';
  /** Incremental: the entries read this time (after entry `since`). */
  read?: number;
  since?: string;
}

type LedgerStore = Pick<ClientStore, 'findMerchantById'> & BooksStore;

/** A full verification run in the background (docs/books.md#verification), as its instance keeps it. */
export interface VerificationJob {
  id: string;
  state: 'running' | 'done' | 'failed';
  startedAt: string;
  finishedAt: string | null;
  /** Entries read so far. */
  entriesRead: number;
  /** When done: what the full verification found. */
  result: Verification | null;
  error: string | null;
}

/** Jobs an instance keeps (the newest), to be asked about. */
const KEPT_JOBS = 10;

export function createLedgerService({ store, clock }: { store: LedgerStore; clock?: Pick<Clock, 'now'> }) {
  const now = () => clock?.now() ?? Date.now();
  const jobs = new Map<string, VerificationJob>();
  return {
    /** From the running totals (at most 16 rows), whatever the size of the merchant's history. */
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
    verifyFull: async (): Promise<Verification> => ({ ...(await verifyLedger(store)), mode: 'full' }),

    /**
     * The full verification as a background job of this instance, asked about with `job(id)`; a job
     * already running is answered instead of a second one.
     */
    startFull(): VerificationJob {
      const running = [...jobs.values()].find((j) => j.state === 'running');
      if (running) return { ...running };
      const job: VerificationJob = {
        id: `ver_${randomUUID().replaceAll('-', '')}`,
        state: 'running',
        startedAt: new Date(now()).toISOString(),
        finishedAt: null,
        entriesRead: 0,
        result: null,
        error: null,
      };
      jobs.set(job.id, job);
      for (const old of [...jobs.keys()].slice(0, Math.max(0, jobs.size - KEPT_JOBS))) jobs.delete(old);
      verifyLedger(store, (read) => {
        job.entriesRead = read;
      })
        .then((v) => {
          Object.assign(job, { state: 'done', result: { ...v, mode: 'full' }, entriesRead: v.entries });
        })
        .catch((err: unknown) => {
          Object.assign(job, { state: 'failed', error: err instanceof Error ? err.message : String(err) });
        })
        .finally(() => {
          job.finishedAt = new Date(now()).toISOString();
        });
      return { ...job };
    },

    /** A background verification of this instance, if it knows it. */
    job(id: string): VerificationJob | undefined {
      const j = jobs.get(id);
      return j ? { ...j } : undefined;
    },

    /** docs/books.md#verification: what was written since the last clean verification. */
    verify: () => verifyIncrementally(store, clock?.now() ?? Date.now()),
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;

const PAGE = 1000;

/** Every transaction paid at or after `since`, read a page at a time. */
async function* paidTransactions(store: BooksStore, since: number): AsyncGenerator<PaidTransaction> {
  let cursor: string | undefined;
  do {
    const page = await store.paidTransactionsSince(since, { limit: PAGE, cursor });
    yield* page.items;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

async function verifyLedger(store: BooksStore, onProgress?: (entriesRead: number) => void): Promise<Verification> {
  const problems: LedgerProblem[] = [];
  const startedAt = await store.ledgerStartedAt();
  const paid = new Map<string, PaidTransaction>();
  for await (const t of paidTransactions(store, startedAt)) paid.set(t.referenceNo, t);
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
    onProgress?.(count);
    if (page.length < PAGE) break;
    after = Number((page[page.length - 1] as LedgerEntry).id);
  }
  const owedByTransactions = new Map<string, bigint>();
  for (const t of paid.values()) {
    const amountSen = toMinorUnits(t.paidAmount ?? t.amount ?? '0.00');
    const feeSen = toMinorUnits(t.feeAmount);
    owedByTransactions.set(t.merchantId, (owedByTransactions.get(t.merchantId) ?? 0n) + amountSen - feeSen);
    paymentProblems(t, payments.get(t.referenceNo) ?? [], problems);
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
    const drift = runningTotalsProblem(merchantId, await store.runningTotals(merchantId), b);
    if (drift) problems.push(drift);
  }
  for (const q of await store.unsettledQueueProblems(100)) {
    problems.push({
      type: 'unsettled_queue',
      entryId: q.entryId,
      merchantId: q.merchantId,
      message:
        q.problem === 'missing'
          ? `entry ${q.entryId}: in no settlement and not in the unsettled queue (no settlement would take it)`
          : `entry ${q.entryId}: in a settlement and still in the unsettled queue`,
    });
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

/**
 * How long a verification waits before it keeps an entry in its checkpoint: an entry is written with
 * the time of its transaction, which commits within a statement timeout, so one older than this has
 * committed (or never will) and no entry with a lower id can still appear (PostgreSQL hands ids out
 * before commit).
 */
const SETTLE_MS = 60_000;

/** The sums verification carries forward: every account's balance, each merchant's paid out and fees. */
interface Sums {
  accounts: Map<string, bigint>;
  merchants: Map<string, { paidOutSen: bigint; feesSen: bigint }>;
}

/** The checkpoint's sums, as a copy to add to. */
function sumsOf(cp: LedgerCheckpoint | undefined): Sums {
  return {
    accounts: new Map<string, bigint>(cp?.accounts ?? []),
    merchants: new Map([...(cp?.merchants ?? [])].map(([k, v]) => [k, { ...v }] as const)),
  };
}

/** An entry's lines and its merchant's paid out and fees, added to the sums. */
function addEntry(sums: Sums, e: LedgerEntry, lines: LedgerLine[]): void {
  for (const l of lines) sums.accounts.set(l.account, (sums.accounts.get(l.account) ?? 0n) + l.debitSen - l.creditSen);
  const m = sums.merchants.get(e.merchantId) ?? { paidOutSen: 0n, feesSen: 0n };
  if (e.kind === 'payout') m.paidOutSen += e.amountSen;
  if (e.kind === 'payment' || e.kind === 'disbursement') m.feesSen += e.feeSen;
  if (e.kind === 'disbursement_returned') m.feesSen -= e.feeSen;
  sums.merchants.set(e.merchantId, m);
}

/** A merchant's balance as the sums say it. */
function balanceFromSums(sums: Sums, merchantId: string) {
  const m = sums.merchants.get(merchantId) ?? { paidOutSen: 0n, feesSen: 0n };
  return {
    pendingSen: -(sums.accounts.get(account.pending(merchantId)) ?? 0n),
    settlingSen: -(sums.accounts.get(account.settling(merchantId)) ?? 0n),
    paidOutSen: m.paidOutSen,
    feesSen: m.feesSen,
  };
}

const sameBalance = (a: ReturnType<typeof balanceOf>, b: ReturnType<typeof balanceOf>) =>
  a.pendingSen === b.pendingSen &&
  a.settlingSen === b.settlingSen &&
  a.paidOutSen === b.paidOutSen &&
  a.feesSen === b.feesSen;

const saidBalance = (t: ReturnType<typeof balanceOf>) =>
  `pending ${money(t.pendingSen)}, settling ${money(t.settlingSen)}, paid out ${money(t.paidOutSen)}, fees ${money(t.feesSen)}`;

/** A merchant's running totals that are not its entries summed, as a problem; none when they agree. */
function runningTotalsProblem(
  merchantId: string,
  totals: ReturnType<typeof balanceOf>,
  summed: ReturnType<typeof balanceOf>,
): LedgerProblem | undefined {
  if (sameBalance(totals, summed)) return undefined;
  return {
    type: 'running_totals',
    merchantId,
    message: `merchant ${merchantId}: its running totals (${saidBalance(totals)}) are not its entries' (${saidBalance(summed)})`,
  };
}

/**
 * docs/books.md#verification: the invariants over what was written since the last clean
 * verification (its checkpoint), so it answers in time with the new entries, not the journal's age.
 * Each new entry balances and has its cause; each payment entry is its transaction's, with its
 * amount and fee; every transaction paid since has its entry; each merchant touched has running
 * totals equal to its sums (carried forward from the checkpoint). A clean run keeps a new checkpoint
 * (entries older than SETTLE_MS only). The invariants no checkpoint can carry (each merchant's
 * balance against its transactions and refunds, `transfers` against transfers in flight) are the
 * full verification's.
 */
async function verifyIncrementally(store: BooksStore, now: number): Promise<Verification> {
  const problems: LedgerProblem[] = [];
  const cp = await store.latestLedgerCheckpoint();
  const startedAt = await store.ledgerStartedAt();
  const through = cp?.throughEntryId ?? 0;
  const horizon = now - SETTLE_MS;
  /** Everything read; and the part kept for the next checkpoint (the entries older than the horizon). */
  const all = sumsOf(cp);
  const kept = sumsOf(cp);
  let keptThrough = through;
  let keptCount = cp?.entries ?? 0;
  let isKeeping = true;
  let read = 0;
  const touched = new Set<string>();
  for (let after = through; ; ) {
    const page = await store.scanLedger(after, PAGE);
    const payments = page.filter((e) => e.kind === 'payment' && e.referenceNo !== null);
    const paid = new Map(
      (await store.paidTransactionsByReference(payments.map((e) => e.referenceNo as string))).map(
        (t) => [t.referenceNo, t] as const,
      ),
    );
    const causes = {
      refunds: await store.knownRefunds(page.flatMap((e) => (e.kind === 'refund' && e.refundNo ? [e.refundNo] : []))),
      settlements: await store.settlementStatuses([
        ...new Set(page.flatMap((e) => (e.settlementId === null ? [] : [e.settlementId]))),
      ]),
    };
    const disbursements = await store.payoutStates(
      page.flatMap((e) => (e.kind.startsWith('disbursement') ? [payoutIdOfCause(e.cause)] : [])),
    );
    for (const e of page) {
      read++;
      touched.add(e.merchantId);
      const lines = checkEntry(e, problems);
      addEntry(all, e, lines);
      if (isKeeping && e.at < horizon) {
        addEntry(kept, e, lines);
        keptThrough = Number(e.id);
        keptCount++;
      } else isKeeping = false;
      const why = causeProblem(e, paid, causes, disbursements);
      if (why) problems.push({ type: 'no_cause', message: why, entryId: e.id, merchantId: e.merchantId });
      const t = e.kind === 'payment' && e.referenceNo !== null ? paid.get(e.referenceNo) : undefined;
      if (t) paymentProblems(t, [e], problems);
    }
    if (page.length < PAGE) break;
    after = Number((page[page.length - 1] as LedgerEntry).id);
  }
  // Every transaction paid since the last check has its payment entry.
  const paidSince = cp?.paidThrough ?? startedAt;
  for await (const t of paidTransactions(store, paidSince)) {
    if (t.paymentEntryId === null) {
      touched.add(t.merchantId);
      problems.push({
        referenceNo: t.referenceNo,
        merchantId: t.merchantId,
        type: 'missing_payment',
        message: `${t.referenceNo} is paid but has no payment entry`,
      });
    }
  }
  // Each merchant touched: its running totals against its sums. One that differs (or that a commit
  // meanwhile moved) is read again in one snapshot with its entries, which settles it.
  for (const merchantId of touched) {
    if (sameBalance(await store.runningTotals(merchantId), balanceFromSums(all, merchantId))) continue;
    const { totals, entries } = await store.totalsAgainstEntries(merchantId);
    const drift = runningTotalsProblem(merchantId, totals, balanceOf(entries));
    if (drift) problems.push(drift);
  }
  const entries = (cp?.entries ?? 0) + read;
  if (problems.length === 0 && (keptThrough > through || cp === undefined)) {
    await store.saveLedgerCheckpoint({
      throughEntryId: keptThrough,
      entries: keptCount,
      paidThrough: Math.max(paidSince, Math.min(horizon, now)),
      accounts: kept.accounts,
      merchants: kept.merchants,
      at: now,
    });
  }
  return { ok: problems.length === 0, entries, problems, mode: 'incremental', read, since: String(through) };
}

/** A paid transaction against its payment entries: exactly one, named by it, with its amount and fee. */
function paymentProblems(t: PaidTransaction, entries: LedgerEntry[], problems: LedgerProblem[]): void {
  const amountSen = toMinorUnits(t.paidAmount ?? t.amount ?? '0.00');
  const feeSen = toMinorUnits(t.feeAmount);
  const base = { referenceNo: t.referenceNo, merchantId: t.merchantId };
  if (entries.length === 0) {
    problems.push({ ...base, type: 'missing_payment', message: `${t.referenceNo} is paid but has no payment entry` });
    return;
  }
  if (entries.length > 1) {
    problems.push({
      ...base,
      type: 'duplicate_payment',
      message: `${t.referenceNo} has ${entries.length} payment entries`,
    });
    return;
  }
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

import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { compareMoney, type TransactionStatus } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import { auditorOf, type Caller } from '../operators/caller.ts';
import type {
  AppliedFromReport,
  ReconciliationRecord,
  ReconciliationResolution,
  StoredReconciliationProblem,
} from '../records/book-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { Page, PaidTransaction, TransactionRecord } from '../records/records.ts';
import { encodeCursor } from '../store/cursor.ts';
import type { BooksStore, ClientStore, TransactionStore } from '../store/store.ts';
import {
  classifyReportInSlices,
  type GatewayPayment,
  type GatewayView,
  jakartaDay,
  jakartaDayStartMs,
  type Problem,
  ReportError,
  type ReportItem,
} from './reconciliation-report.ts';
import { createReportReader, type ReportFormat } from './report-reader.ts';

// docs/books.md#reconciliation: a provider's report set against the gateway's records; every run
// is kept, and a payment the gateway missed is applied through the provider's own door.

/** How a missed payment is applied: the provider door (providers/reported-payment.ts), given by the composition root. */
export type ApplyReportedPayment = (
  provider: ProviderRecord,
  txn: TransactionRecord,
  reported: { amount: string; providerReference: string | null; source: string },
  at: { now: number; requestId: string; applied: AppliedFromReport },
) => Promise<{ applied: true } | { applied: false; responseCode: string; responseMessage: string }>;

type ReconciliationStore = Pick<ClientStore, 'findProviderById'> &
  Pick<TransactionStore, 'findTransaction'> &
  BooksStore;

/** A problem as the doors show it: as found, and when it was applied. */
export type ProblemView = Omit<StoredReconciliationProblem, 'seq' | 'reported'>;

/** A page of a run's problems; `prevCursor`: the page before ('' for the first), null on the first. */
export interface ProblemPage {
  items: ProblemView[];
  nextCursor: string | null;
  prevCursor: string | null;
}

const DAY_MS = 86_400_000;
const newRunId = () => `rec_${randomUUID().replaceAll('-', '')}`;
/** The problems a run is answered with and shown with; the rest are read a page at a time. */
export const FIRST_PROBLEMS = 100;
/** How many lines are gone through between two turns of the event loop. */
const ITEMS_PER_TURN = 10_000;
/** How many references one lookup asks the store for (a few milliseconds, then the loop turns). */
const REFERENCES_PER_LOOKUP = 1_000;
/** How many of a provider's payments one read takes. */
const PAYMENTS_PER_READ = 2_000;
/** How many problems one statement stores. */
const PROBLEMS_PER_WRITE = 500;

function gatewayPaymentOf(t: PaidTransaction): GatewayPayment {
  return {
    referenceNo: t.referenceNo,
    providerReference: t.providerReference,
    status: t.status as GatewayPayment['status'],
    amount: t.paidAmount ?? t.amount,
    paidAtMs: t.paidAt,
  };
}

export function createReconciliationService(deps: {
  store: ReconciliationStore;
  clock: Clock;
  applyReportedPayment: ApplyReportedPayment;
  /** How reports are read: `inlineBytes`, up to which one is read on the event loop (tests). */
  reportReader?: { inlineBytes?: number };
}) {
  const { store, clock } = deps;
  const reader = createReportReader(deps.reportReader);

  async function provider(id: string): Promise<ProviderRecord> {
    const p = await store.findProviderById(id);
    if (!p) throw notFound('provider');
    return p;
  }

  /**
   * The gateway's side of a report: its transactions by reference, and what the provider collected
   * in its days. Read a batch at a time, the event loop turning between: a report of 100,000 lines
   * names as many transactions, and a busy provider collects as many in a day.
   */
  async function gatewayViewOf(providerId: string, items: ReportItem[]): Promise<GatewayView> {
    if (items.length === 0) throw new ReportError('the report has no lines');
    const named = new Set<string>();
    let earliestMs = Number.POSITIVE_INFINITY;
    let latestMs = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % ITEMS_PER_TURN === 0) await nextTurn();
      const { referenceNo, paidAtMs } = items[i] as ReportItem;
      if (referenceNo !== null) named.add(referenceNo);
      if (paidAtMs < earliestMs) earliestMs = paidAtMs;
      if (paidAtMs > latestMs) latestMs = paidAtMs;
    }
    const referenceNos = [...named];
    const byReference = new Map<string, GatewayPayment>();
    for (let i = 0; i < referenceNos.length; i += REFERENCES_PER_LOOKUP) {
      const found = await store.paidTransactionsByReference(referenceNos.slice(i, i + REFERENCES_PER_LOOKUP));
      for (const t of found) byReference.set(t.referenceNo, gatewayPaymentOf(t));
      await nextTurn();
    }
    // A day either side: a payment the gateway recorded a little later than the provider still matches.
    const since = jakartaDayStartMs(jakartaDay(earliestMs)) - DAY_MS;
    const until = jakartaDayStartMs(jakartaDay(latestMs)) + 2 * DAY_MS;
    const collected: GatewayPayment[] = [];
    let page: Page<PaidTransaction> = { items: [], nextCursor: null };
    do {
      page = await store.paidTransactionsOfProvider(providerId, since, until, {
        limit: PAYMENTS_PER_READ,
        cursor: page.nextCursor ?? undefined,
      });
      for (const t of page.items) collected.push(gatewayPaymentOf(t));
      await nextTurn();
    } while (page.nextCursor !== null);
    const byProviderReference = new Map<string, GatewayPayment>();
    let seen = 0;
    for (const g of [...collected, ...byReference.values()]) {
      if (++seen % ITEMS_PER_TURN === 0) await nextTurn();
      byReference.set(g.referenceNo, byReference.get(g.referenceNo) ?? g);
      if (g.providerReference) byProviderReference.set(g.providerReference, g);
    }
    return {
      byReferenceNo: (r: string) => byReference.get(r),
      byProviderReference: (r: string) => byProviderReference.get(r),
      paidBetween: (fromMs: number, untilMs: number) =>
        collected.filter((g) => g.paidAtMs !== null && g.paidAtMs >= fromMs && g.paidAtMs < untilMs),
    };
  }

  /** Stores a run's problems a batch at a time, the event loop turning between, then the run. */
  async function keep(run: ReconciliationRecord, problems: Problem[], items: ReportItem[]): Promise<void> {
    for (let from = 0; from < problems.length; from += PROBLEMS_PER_WRITE) {
      const batch = problems.slice(from, from + PROBLEMS_PER_WRITE).map((x, i) => ({
        ...x,
        seq: from + i + 1,
        ...reportedOf(items, x.line),
      }));
      await store.insertReconciliationProblems(run.id, batch);
      await nextTurn();
    }
    await store.insertReconciliation(run);
  }

  /** A page of a run's problems, as the doors show them. */
  async function problemPage(id: string, page: { cursor?: string | undefined; limit: number }): Promise<ProblemPage> {
    const found = await store.reconciliationProblems(id, page);
    const first = found.items[0]?.seq;
    // Problems are numbered 1, 2, … without gaps: the page before starts `limit` earlier.
    const before = first === undefined || first === 1 ? undefined : Math.max(0, first - 1 - page.limit);
    return {
      items: found.items.map(({ seq: _seq, reported: _reported, ...rest }) => rest),
      nextCursor: found.nextCursor,
      // The store's own cursor: after the `before`-th problem.
      prevCursor: before === undefined ? null : before === 0 ? '' : encodeCursor([before, '']),
    };
  }

  return {
    /**
     * Reads a report (its bytes, CSV or JSON), classifies it and keeps the run; answers the run with
     * its first page of problems. The event loop is never held for long: a large report is read on
     * a thread of its own, and matching and storing go a slice at a time.
     */
    async run(
      providerId: string,
      report: { bytes: Uint8Array; format: ReportFormat },
    ): Promise<{ run: ReconciliationRecord; problems: ProblemPage }> {
      const p = await provider(providerId);
      try {
        const items = await reader.read(report.bytes, report.format);
        const c = await classifyReportInSlices(items, await gatewayViewOf(p.id, items), () => nextTurn());
        const { problems, ...counts } = c;
        const run: ReconciliationRecord = {
          id: newRunId(),
          providerId: p.id,
          createdAt: clock.now(),
          ...counts,
          problemCount: problems.length,
        };
        await keep(run, problems, items);
        return { run, problems: await problemPage(run.id, { limit: FIRST_PROBLEMS }) };
      } catch (e) {
        if (e instanceof ReportError) throw invalid(`invalid report: ${e.message}`, [e.message]);
        throw e;
      }
    },

    /** A provider's runs, newest first, without their problems (problemCount says how many). */
    async list(providerId: string, limit: number): Promise<ReconciliationRecord[]> {
      await provider(providerId);
      return store.listReconciliations(providerId, limit);
    },

    /** A run and a page of its problems (the first, unless a cursor says which). */
    async show(
      id: string,
      page: { cursor?: string | undefined; limit: number } = { limit: FIRST_PROBLEMS },
    ): Promise<{ run: ReconciliationRecord; problems: ProblemPage }> {
      const run = await store.findReconciliation(id);
      if (!run) throw notFound('reconciliation');
      return { run, problems: await problemPage(id, page) };
    },

    /** A page of a run's problems, after the cursor of the page before. */
    async problems(id: string, page: { cursor?: string | undefined; limit: number }): Promise<ProblemPage> {
      if (!(await store.findReconciliation(id))) throw notFound('reconciliation');
      return problemPage(id, page);
    },

    /**
     * Applies a `missing_at_gateway` problem on a transaction the gateway knows, still open with the
     * reported amount, as the provider would have: status 00, its ledger entry, the merchant's
     * callback. Anything else, or a problem applied already, is a conflict.
     */
    async apply(caller: Caller, id: string, line: number, requestId: string): Promise<ReconciliationResolution> {
      const run = await store.findReconciliation(id);
      if (!run) throw notFound('reconciliation');
      const problem = await store.findReconciliationProblem(id, line);
      if (!problem) throw notFound('problem');
      if (problem.type !== 'missing_at_gateway') {
        throw conflict(`line ${line} is ${problem.type}: only a payment missing at the gateway can be applied`);
      }
      // Read with the problem: a run may have 100,000 problems applied, never all read.
      if (problem.resolvedAt !== undefined) throw conflict(`line ${line} was applied already`);
      const reported = problem.reported;
      const txn = problem.referenceNo ? await store.findTransaction(problem.referenceNo) : undefined;
      if (!txn || !reported)
        throw conflict(`line ${line}: the gateway knows no transaction ${problem.referenceNo ?? ''}`.trim());
      if (!(['01', '02', '03'] as TransactionStatus[]).includes(txn.status)) {
        throw conflict(`line ${line}: ${txn.referenceNo} is no longer open (status ${txn.status})`);
      }
      if (txn.amount !== null && compareMoney(txn.amount, reported.amount) !== 0) {
        throw conflict(`line ${line}: the report says ${reported.amount}, ${txn.referenceNo} is for ${txn.amount}`);
      }
      const p = await provider(run.providerId);
      const now = clock.now();
      const outcome = await deps.applyReportedPayment(
        p,
        txn,
        // A colon no provider's X-EXTERNAL-ID may hold: never a provider's own idempotency key.
        { ...reported, source: `reconciliation:${id.slice(4, 24)}-${line}` },
        { now, requestId, applied: { by: `admin key ${auditorOf(caller).keyName}`, reconciliationId: id, line } },
      );
      if (!outcome.applied) {
        throw conflict(
          `line ${line}: the provider door refused it: ${outcome.responseCode} ${outcome.responseMessage}`,
        );
      }
      const resolution = { reconciliationId: id, line, referenceNo: txn.referenceNo, resolvedAt: now };
      if (!(await store.resolveProblem(resolution))) throw conflict(`line ${line} was applied already`);
      return resolution;
    },
  };
}

export type ReconciliationService = ReturnType<typeof createReconciliationService>;

/** What a line reported, kept with its problem so it can be applied later. */
function reportedOf(items: ReportItem[], line: number | null) {
  const item = line === null ? undefined : items[line - 1];
  return item?.line === line && item
    ? { reported: { amount: item.amount, providerReference: item.providerReference } }
    : {};
}

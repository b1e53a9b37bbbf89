import { randomUUID } from 'node:crypto';
import { compareMoney, type TransactionStatus } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import type {
  BooksStore,
  ClientStore,
  PaidTransaction,
  ProviderRecord,
  ReconciliationRecord,
  ReconciliationResolution,
  TransactionRecord,
  TransactionStore,
} from '../store/store.ts';
import {
  classifyReport,
  type GatewayPayment,
  jakartaDay,
  jakartaDayStartMs,
  parseReportCsv,
  parseReportJson,
  ReportError,
  type ReportItem,
} from './reconciliation-report.ts';

// docs/books.md#reconciliation: a provider's report set against the gateway's records; every run
// is kept, and a payment the gateway missed is applied through the provider's own door.

/** How a missed payment is applied: the provider door (providers/reported-payment.ts), given by the composition root. */
export type ApplyReportedPayment = (
  provider: ProviderRecord,
  txn: TransactionRecord,
  reported: { amount: string; providerReference: string | null; source: string },
  at: { now: number; requestId: string },
) => Promise<{ applied: true } | { applied: false; responseCode: string; responseMessage: string }>;

type ReconciliationStore = Pick<ClientStore, 'findProviderById'> &
  Pick<TransactionStore, 'findTransaction'> &
  BooksStore;

/** The report as stored with the run, so a problem can be applied later from its own line. */
interface StoredRun extends ReconciliationRecord {
  items?: ReportItem[];
}

const DAY_MS = 86_400_000;
const newRunId = () => `rec_${randomUUID().replaceAll('-', '')}`;

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
}) {
  const { store, clock } = deps;

  async function provider(id: string): Promise<ProviderRecord> {
    const p = await store.findProviderById(id);
    if (!p) throw notFound('provider');
    return p;
  }

  /** The gateway's side of a report: its transactions by reference, and what the provider collected in its days. */
  async function gatewayViewOf(providerId: string, items: ReportItem[]) {
    if (items.length === 0) throw new ReportError('the report has no lines');
    const referenceNos = [...new Set(items.flatMap((i) => (i.referenceNo ? [i.referenceNo] : [])))];
    const byReference = new Map(
      (await store.paidTransactionsByReference(referenceNos)).map((t) => [t.referenceNo, gatewayPaymentOf(t)] as const),
    );
    const times = items.map((i) => i.paidAtMs);
    // A day either side: a payment the gateway recorded a little later than the provider still matches.
    const since = jakartaDayStartMs(jakartaDay(Math.min(...times))) - DAY_MS;
    const until = jakartaDayStartMs(jakartaDay(Math.max(...times))) + 2 * DAY_MS;
    const collected = (await store.paidTransactionsOfProvider(providerId, since, until)).map(gatewayPaymentOf);
    const byProviderReference = new Map<string, GatewayPayment>();
    for (const g of [...collected, ...byReference.values()]) {
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

  return {
    /** Reads a report (CSV text or a parsed JSON body), classifies it and keeps the run. */
    async run(providerId: string, report: { csv: string } | { json: unknown }): Promise<ReconciliationRecord> {
      const p = await provider(providerId);
      let items: ReportItem[];
      try {
        items = 'csv' in report ? parseReportCsv(report.csv) : parseReportJson(report.json);
        const c = classifyReport(items, await gatewayViewOf(p.id, items));
        const run: StoredRun = { id: newRunId(), providerId: p.id, createdAt: clock.now(), ...c };
        await store.insertReconciliation({
          ...run,
          problems: c.problems.map((x) => ({ ...x, ...reportedOf(items, x.line) })),
        });
        return run;
      } catch (e) {
        if (e instanceof ReportError) throw invalid(`invalid report: ${e.message}`, [e.message]);
        throw e;
      }
    },

    async list(providerId: string, limit: number): Promise<ReconciliationRecord[]> {
      await provider(providerId);
      return (await store.listReconciliations(providerId, limit)).map(publicRun);
    },

    async show(id: string): Promise<{ run: ReconciliationRecord; resolutions: ReconciliationResolution[] }> {
      const run = await store.findReconciliation(id);
      if (!run) throw notFound('reconciliation');
      return { run: publicRun(run), resolutions: await store.resolutionsOf(id) };
    },

    /**
     * Applies a `missing_at_gateway` problem on a transaction the gateway knows, still open with the
     * reported amount, as the provider would have: status 00, its ledger entry, the merchant's
     * callback. Anything else, or a problem applied already, is a conflict.
     */
    async apply(id: string, line: number, requestId: string): Promise<ReconciliationResolution> {
      const run = await store.findReconciliation(id);
      if (!run) throw notFound('reconciliation');
      const problem = run.problems.find((x) => x.line === line);
      if (!problem) throw notFound('problem');
      if (problem.type !== 'missing_at_gateway') {
        throw conflict(`line ${line} is ${problem.type}: only a payment missing at the gateway can be applied`);
      }
      if ((await store.resolutionsOf(id)).some((r) => r.line === line)) {
        throw conflict(`line ${line} was applied already`);
      }
      const reported = (problem as { reported?: { amount: string; providerReference: string | null } }).reported;
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
        { now, requestId },
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

/** A run as the admin API shows it: its problems as found, without what was kept to apply them. */
function publicRun(run: ReconciliationRecord): ReconciliationRecord {
  return {
    ...run,
    problems: run.problems.map(
      ({ reported: _r, ...rest }: { reported?: unknown } & ReconciliationRecord['problems'][number]) => rest,
    ),
  };
}

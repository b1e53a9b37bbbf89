import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import type { Logger } from '../logger.ts';
import { type Caller, ownerOf, reaches } from '../operators/caller.ts';
import type { LedgerEntry, SettlementFilter, SettlementRecord, SettlementStatus } from '../records/book-records.ts';
import type { PayoutRecord } from '../records/payout-records.ts';
import type { BooksStore, ClientStore, Store } from '../store/store.ts';
import { type LedgerEntryView, ledgerEntryView, money } from './ledger-service.ts';
import { payoutEntry, settlementEntry } from './postings.ts';
import {
  type ReportLayout,
  type ReportRow,
  SETTLEMENT_CSV_HEAD,
  settlementCsvLines,
  spreadsheetSummary,
} from './settlement-report.ts';

// docs/books.md#settlements: what a merchant is owed up to a cutoff, taken out of pending into a
// settlement, reported, and paid out with the bank's reference.

export interface SettlementView {
  id: string;
  merchantId: string;
  cutoff: string;
  status: SettlementStatus;
  count: number;
  gross: string;
  fees: string;
  refunds: string;
  /** Disbursements it took (amounts and fees), and those returned to the merchant. */
  disbursed: string;
  returned: string;
  net: string;
  createdAt: string;
  paidAt: string | null;
  bankReference: string | null;
  /** Its latest payout through the bank (docs/payouts.md), and why it failed when it did. */
  payoutId: string | null;
  lastPayoutError: string | null;
}

export function settlementView(s: SettlementRecord): SettlementView {
  return {
    id: s.id,
    merchantId: s.merchantId,
    cutoff: new Date(s.cutoff).toISOString(),
    status: s.status,
    count: s.count,
    gross: money(s.grossSen),
    fees: money(s.feesSen),
    refunds: money(s.refundsSen),
    disbursed: money(s.disbursedSen),
    returned: money(s.returnedSen),
    net: money(s.netSen),
    createdAt: new Date(s.createdAt).toISOString(),
    paidAt: s.paidAt === null ? null : new Date(s.paidAt).toISOString(),
    bankReference: s.bankReference,
    payoutId: s.payoutId,
    lastPayoutError: s.lastPayoutError,
  };
}

type SettlementStore = Pick<ClientStore, 'findMerchantById' | 'findProviderById'> &
  Pick<Store, 'findDisbursement'> &
  BooksStore;

const newSettlementId = () => `stl_${randomUUID().replaceAll('-', '')}`;

export function createSettlementService({
  store,
  clock,
  logger,
}: {
  store: SettlementStore;
  clock: Clock;
  logger: Pick<Logger, 'error'>;
}) {
  async function mine(caller: Caller, id: string): Promise<SettlementRecord> {
    const s = await store.findSettlement(id);
    if (!s || !reaches(caller, s.merchantId)) throw notFound('settlement');
    return s;
  }

  return {
    /**
     * Settles each merchant (or the one named) whose unsettled entries before the cutoff add up to
     * more than zero. `slot` names a scheduled run: each merchant is settled at most once per slot.
     */
    async run(input: { merchantId?: string | undefined; cutoff?: number | undefined; slot?: string }) {
      const now = clock.now();
      // By default every entry committed before the request is in it, also one of this very millisecond.
      const cutoff = input.cutoff ?? now + 1;
      if (input.cutoff !== undefined && input.cutoff > now)
        throw invalid('cutoff: in the future', ['cutoff: must not be later than now']);
      if (input.merchantId !== undefined && !(await store.findMerchantById(input.merchantId))) {
        throw notFound('merchant');
      }
      const merchants =
        input.merchantId === undefined ? await store.merchantsWithUnsettled(cutoff) : [input.merchantId];
      const items: SettlementRecord[] = [];
      for (const merchantId of merchants) {
        const settle = store.settleMerchant(
          { id: newSettlementId(), merchantId, cutoff, at: now, slot: input.slot ?? null },
          (settlement) => settlementEntry(settlement, now),
        );
        // One merchant's failure (its settlement rolled back whole) costs no other merchant its
        // settlement; a run for one named merchant answers that merchant's failure.
        try {
          const s = await settle;
          if (s) items.push(s);
        } catch (err) {
          if (input.merchantId !== undefined) throw err;
          logger.error({ err, merchantId }, 'settlement of one merchant failed; the run goes on');
        }
      }
      return items;
    },

    list(caller: Caller, filter: SettlementFilter, limit: number): Promise<SettlementRecord[]> {
      const owner = ownerOf(caller);
      return store.listSettlements(owner === undefined ? filter : { ...filter, merchantId: owner }, limit);
    },

    async show(caller: Caller, id: string): Promise<{ settlement: SettlementRecord; entries: LedgerEntry[] }> {
      const settlement = await mine(caller, id);
      return { settlement, entries: await store.settlementEntries(id) };
    },

    /**
     * The report: one row per payment, refund and disbursement; its sums are the settlement's. Read
     * and written a page at a time (keyset on the entry), so a settlement of any size streams: the
     * settlement is found (or not) before the first byte, then the CSV comes as it is read. The
     * spreadsheet layout puts a summary above the table (settlement-report.ts#ReportLayout).
     */
    async report(
      caller: Caller,
      id: string,
      layout: ReportLayout = 'data',
    ): Promise<{ settlement: SettlementRecord; csv: AsyncIterable<string> }> {
      const settlement = await mine(caller, id);
      const top =
        layout === 'spreadsheet'
          ? spreadsheetSummary({
              ...settlement,
              merchantName: (await store.findMerchantById(settlement.merchantId))?.merchantName ?? '',
            })
          : '';
      // Which provider collected a payment is the operator's business: a merchant's copy names none.
      return { settlement, csv: reportLines(store, settlement, caller.kind === 'operator', layout, top) };
    },

    /** Marks an open settlement paid; a settlement paid already is a conflict. */
    async payout(id: string, bankReference: string): Promise<SettlementRecord> {
      const now = clock.now();
      const r = await store.payOut(id, bankReference, now, (s) => payoutEntry(s, now));
      if (r.outcome === 'not-found') throw notFound('settlement');
      if (r.outcome === 'already-paid' && r.settlement.status === 'paying') {
        throw conflict(`settlement ${id} is being paid out through the bank (payout ${r.settlement.payoutId})`);
      }
      if (r.outcome === 'already-paid') {
        throw conflict(`settlement ${id} was paid out already (bank reference ${r.settlement.bankReference})`);
      }
      return r.settlement;
    },
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;

/** Entries read per page of a report. */
const REPORT_PAGE = 1000;

const isDisbursement = (e: LedgerEntry) => e.kind === 'disbursement' || e.kind === 'disbursement_returned';

/** A settlement's report as CSV text, the header first, then a page of rows at a time. */
async function* reportLines(
  store: SettlementStore,
  settlement: SettlementRecord,
  namesProviders: boolean,
  layout: ReportLayout,
  top: string,
): AsyncGenerator<string> {
  yield top + SETTLEMENT_CSV_HEAD;
  // A report names a handful of providers, whatever its size: each read once.
  const names = new Map<string, string>();
  for (let after = 0; ; ) {
    const entries = await store.settlementEntriesPage(settlement.id, after, REPORT_PAGE);
    if (entries.length === 0) return;
    if (namesProviders) {
      for (const id of new Set(entries.filter((e) => !isDisbursement(e)).map((e) => e.providerId ?? ''))) {
        if (id !== '' && !names.has(id)) names.set(id, (await store.findProviderById(id))?.name ?? '');
      }
    }
    yield settlementCsvLines(await reportRows(store, settlement, entries, names), layout);
    if (entries.length < REPORT_PAGE) return;
    after = Number((entries[entries.length - 1] as LedgerEntry).id);
  }
}

/** The report's rows of some of a settlement's entries: their transactions' and transfers' references. */
async function reportRows(
  store: SettlementStore,
  settlement: SettlementRecord,
  entries: LedgerEntry[],
  providerNames: ReadonlyMap<string, string>,
): Promise<ReportRow[]> {
  const txns = new Map(
    (
      await store.paidTransactionsByReference([
        ...new Set(entries.filter((e) => !isDisbursement(e)).map((e) => e.referenceNo ?? '')),
      ])
    ).map((t) => [t.referenceNo, t] as const),
  );
  const transfers = new Map<string, PayoutRecord>();
  for (const e of entries) {
    if (!isDisbursement(e) || e.referenceNo === null || transfers.has(e.referenceNo)) continue;
    const p = await store.findDisbursement(settlement.merchantId, { referenceNo: e.referenceNo });
    if (p) transfers.set(e.referenceNo, p);
  }
  return entries.map((e) => {
    if (isDisbursement(e)) {
      const p = transfers.get(e.referenceNo ?? '');
      return {
        referenceNo: e.referenceNo ?? '',
        partnerReferenceNo: p?.merchantReferenceNo ?? '',
        kind: e.kind as 'disbursement' | 'disbursement_returned',
        paidAtMs: e.at,
        amountSen: e.amountSen,
        feeSen: e.feeSen,
        providerId: '',
        providerReference: p?.bankReference ?? null,
        refundNo: null,
        method: '',
        providerName: '',
      };
    }
    const t = txns.get(e.referenceNo ?? '');
    return {
      referenceNo: e.referenceNo ?? '',
      partnerReferenceNo: t?.partnerReferenceNo ?? '',
      kind: e.kind === 'refund' ? 'refund' : 'payment',
      paidAtMs: e.at,
      amountSen: e.amountSen,
      feeSen: e.kind === 'refund' ? 0n : e.feeSen,
      providerId: e.providerId ?? '',
      providerReference: e.kind === 'refund' ? null : (t?.providerReference ?? null),
      refundNo: e.kind === 'refund' ? e.refundNo : null,
      method: t?.kind ?? '',
      providerName: providerNames.get(e.providerId ?? '') ?? '',
    };
  });
}

export const settlementEntriesView = (entries: LedgerEntry[]): LedgerEntryView[] => entries.map(ledgerEntryView);

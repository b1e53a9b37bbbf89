import { randomUUID } from 'node:crypto';
import { fromMinorUnits, parseSnapTimestamp } from '@snapgate/snap';
import { disbursementEntry, payoutEntry } from '../books/postings.ts';
import type { Clock } from '../clock.ts';
import { conflict, forbidden, notFound } from '../domain-error.ts';
import type { Logger } from '../logger.ts';
import { type Caller, ownerOf, reaches } from '../operators/caller.ts';
import { newNotificationId } from '../payments/ids.ts';
import type { BankExchange, PayoutBank, PayoutBankClient, TransferOutcome } from '../providers/payout-bank.ts';
import { transferServiceFor } from '../providers/transfer-credit.ts';
import type { SettlementRecord } from '../records/book-records.ts';
import type { PayoutChange, PayoutExchangeRecord, PayoutFilter, PayoutRecord } from '../records/payout-records.ts';
import { type MerchantRecord, UniqueViolation } from '../records/records.ts';
import type { PayoutPostings, Store } from '../store/store.ts';
import { transferNoticeBody } from './transfer-notice.ts';

// docs/payouts.md#paying-a-settlement: a settlement's net sent to the merchant's verified bank
// account through the payout bank. The payout row commits (`sending`) before the bank is called, so
// a transfer is never sent twice: one without a clear answer (a timeout, a 5xx, a crash in between)
// is asked about with the status query (36) on a schedule, never sent again.

export interface PayoutView {
  id: string;
  kind: PayoutRecord['kind'];
  merchantId: string;
  settlementId?: string;
  referenceNo?: string;
  amount: string;
  fee: string;
  beneficiary: { bankCode: string; accountNo: string; name: string };
  state: PayoutRecord['state'];
  partnerReferenceNo: string;
  requestedBy: string;
  approvedBy: string | null;
  bankReference: string | null;
  error: string | null;
  nextCheckAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function payoutView(p: PayoutRecord): PayoutView {
  return {
    id: p.id,
    kind: p.kind,
    merchantId: p.merchantId,
    ...(p.settlementId === null ? {} : { settlementId: p.settlementId }),
    ...(p.referenceNo === null ? {} : { referenceNo: p.referenceNo }),
    amount: fromMinorUnits(p.amountSen),
    fee: fromMinorUnits(p.feeSen),
    beneficiary: p.beneficiary,
    state: p.state,
    partnerReferenceNo: p.partnerReferenceNo,
    requestedBy: p.requestedBy,
    approvedBy: p.approvedBy,
    bankReference: p.bankReference,
    error: p.error,
    nextCheckAt: p.nextCheckAt === null ? null : new Date(p.nextCheckAt).toISOString(),
    createdAt: new Date(p.createdAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  };
}

export const exchangeView = (e: PayoutExchangeRecord) => ({ ...e, at: new Date(e.at).toISOString() });

/** Names compared as people write them: case and spaces aside. */
const sameName = (a: string, b: string) =>
  a.replace(/\s+/g, ' ').trim().toLowerCase() === b.replace(/\s+/g, ' ').trim().toLowerCase();

/** Who asks for the payouts `payoutSchedule: auto` makes. */
export const SCHEDULE = 'schedule';

export const newPayoutId = () => `po_${randomUUID().replaceAll('-', '')}`;
/** The transfer's partnerReferenceNo: the payout's id, as banks take references (letters and digits). */
export const partnerReferenceOf = (payoutId: string) => payoutId.replace(/^po_/, 'PO').toUpperCase();

const exchangeRecord = (e: BankExchange): PayoutExchangeRecord => ({
  at: e.at,
  service: e.service,
  request: e.request,
  status: e.status,
  response: e.response,
  ...(e.error === undefined ? {} : { error: e.error }),
});

const said = (code: string | undefined, message: string | undefined) =>
  [code, message].filter((s) => s !== undefined && s !== '').join(' ');

export interface PayoutServiceDeps {
  store: Store;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'info'>;
  bank: PayoutBankClient;
  /** SNAPGATE_TRANSFER_STATUS_SCHEDULE: the delay before each status query. */
  statusScheduleMs: readonly number[];
  /** SNAPGATE_PAYOUT_APPROVAL_ABOVE in sen. */
  approvalAboveSen: bigint;
  /** Bounds one exchange with the bank: a transfer under way holds its payout this long, and more. */
  timeoutMs: number;
  /** Called after a transfer callback was written into the outbox (wakes the dispatcher). */
  onNotified?: () => void;
}

export function createPayoutService(deps: PayoutServiceDeps) {
  const { store, clock, logger, bank, statusScheduleMs } = deps;
  const instance = `payouts:${randomUUID()}`;
  // A transfer or status query in flight holds its payout past its longest exchange (a token and the
  // call), so no one asks about it while the answer may still come.
  const leaseMs = 2 * deps.timeoutMs + 5_000;
  const entryFor = (at: number, merchant?: MerchantRecord): PayoutPostings => ({
    settlementPaid: (s) => payoutEntry(s, at),
    disbursementEnded: (p, state) =>
      disbursementEntry(state === 'paid' ? 'disbursement_paid' : 'disbursement_returned', p, at),
    // Asked about after its answer (pending, or none): the merchant is told how it ended.
    ...(merchant
      ? {
          transferNotice: (p: PayoutRecord, state: 'paid' | 'failed') => ({
            id: newNotificationId(at),
            body: transferNoticeBody(p, state === 'paid' ? '00' : '06', merchant.callbackJson),
            at,
          }),
        }
      : {}),
  });

  async function payoutBankOrConflict(): Promise<PayoutBank> {
    const at = await bank.current();
    if (!at) throw conflict('there is no active payout bank to pay through: make a bank provider the payout bank');
    return at;
  }

  /**
   * Sends a payout's transfer (its row committed `sending`, claimed by this instance) and records the
   * answer: the payout as it is after, and what the bank answered (none when the call broke).
   */
  async function sendAndTell(
    p: PayoutRecord,
    at: PayoutBank,
    remark?: string,
  ): Promise<{ payout: PayoutRecord; answer?: TransferOutcome }> {
    let r: TransferOutcome;
    try {
      r = await bank.transfer(at, {
        partnerReferenceNo: p.partnerReferenceNo,
        amount: fromMinorUnits(p.amountSen),
        beneficiary: p.beneficiary,
        remark: remark ?? (p.settlementId === null ? 'snapgate payout' : `settlement ${p.settlementId}`.slice(0, 50)),
      });
    } catch (err) {
      // Nothing is known of the transfer: it stays `sending`, asked about once its claim ends.
      logger.error({ err, payoutId: p.id }, 'a payout transfer failed before an answer; its status will be asked');
      return { payout: p };
    }
    const now = clock.now();
    const change: PayoutChange =
      r.outcome === 'success'
        ? { state: 'paid', bankReference: r.referenceNo ?? null, transactionDate: r.transactionDate }
        : r.outcome === 'refused'
          ? {
              state: 'failed',
              error: `the bank refused the transfer (${r.service}): ${said(r.responseCode, r.responseMessage)}`,
              transactionDate: r.transactionDate,
            }
          : {
              state: 'pending',
              bankReference: r.referenceNo ?? null,
              error:
                r.outcome === 'pending'
                  ? null
                  : `no clear answer to the transfer (${r.service}): ${r.exchange.error ?? `HTTP ${r.exchange.status}`}; its status will be asked`,
              nextCheckAt: now + (statusScheduleMs[0] ?? 0),
              checks: 0,
              transactionDate: r.transactionDate,
            };
    const payout = (await store.recordPayoutAnswer(p.id, change, exchangeRecord(r.exchange), now, entryFor(now))) ?? p;
    return { payout, answer: r };
  }

  const send = async (p: PayoutRecord, at: PayoutBank) => (await sendAndTell(p, at)).payout;

  /** A payout not yet known paid or failed, asked about now (unless another instance is asking). */
  async function refreshed(payout: PayoutRecord): Promise<PayoutRecord> {
    if (payout.state !== 'sending' && payout.state !== 'pending') return payout;
    const now = clock.now();
    const claimed = await store.claimPayout(payout.id, now, instance, now + leaseMs);
    return claimed ? check(claimed) : payout;
  }

  /** When a payout's transfer was sent: its transactionDate as sent, else its row's last change. */
  const sentAt = (p: PayoutRecord) =>
    (p.transactionDate === null ? undefined : parseSnapTimestamp(p.transactionDate)) ?? p.updatedAt;

  /** Asks the bank where a claimed payout's transfer stands (36) and records what it says. */
  async function check(p: PayoutRecord): Promise<PayoutRecord> {
    const now = clock.now();
    const checks = p.checks + 1;
    const delay = statusScheduleMs[checks];
    const later = (error: string | null, bankReference: string | null = null): PayoutChange => ({
      state: 'pending',
      bankReference,
      error:
        delay === undefined
          ? `${error ?? 'the transfer is still pending'}; the status schedule is over: ask the bank`
          : error,
      nextCheckAt: delay === undefined ? null : now + delay,
      checks,
    });
    const at = await bank.current();
    if (!at) {
      const change = later('there is no active payout bank to ask');
      return (await store.recordPayoutAnswer(p.id, change, null, now, entryFor(now))) ?? p;
    }
    const r = await bank.status(at, {
      service: p.service,
      partnerReferenceNo: p.partnerReferenceNo,
      referenceNo: p.bankReference ?? undefined,
      transactionDate: p.transactionDate ?? undefined,
      amount: fromMinorUnits(p.amountSen),
    });
    const answeredAt = clock.now();
    const merchant = p.kind === 'disbursement' ? await store.findMerchantById(p.merchantId) : undefined;
    const change: PayoutChange =
      r.outcome === 'success'
        ? { state: 'paid', bankReference: r.referenceNo ?? p.bankReference }
        : r.outcome === 'failed'
          ? { state: 'failed', error: `the bank ended the transfer: status ${r.latestTransactionStatus}` }
          : r.outcome === 'not-found'
            ? // Final only once the transfer, if it left, has had all the time its call could take (its
              // lease): a bank asked sooner (someone looked at once) may not have booked it yet.
              answeredAt - sentAt(p) >= leaseMs
              ? { state: 'failed', error: 'the bank has no such transfer (36: not found): nothing was paid' }
              : later('the bank does not know the transfer yet (36: not found); it is asked again')
            : r.outcome === 'pending'
              ? later(null, r.referenceNo ?? null)
              : later(`no clear answer to the status query: ${r.exchange.error ?? `HTTP ${r.exchange.status}`}`);
    const after =
      (await store.recordPayoutAnswer(
        p.id,
        change,
        exchangeRecord(r.exchange),
        answeredAt,
        entryFor(answeredAt, merchant),
      )) ?? p;
    if (merchant && after.state !== p.state && (after.state === 'paid' || after.state === 'failed')) {
      deps.onNotified?.();
    }
    return after;
  }

  async function mine(caller: Caller, id: string): Promise<PayoutRecord> {
    const p = await store.findPayout(id);
    if (!p || !reaches(caller, p.merchantId)) throw notFound('payout');
    return p;
  }

  const keyOf = (caller: Caller) => (caller.kind === 'operator' ? caller.keyId : `portal:${caller.merchantId}`);

  return {
    /**
     * Pays an open settlement's net to its merchant's verified bank account: waits for approval
     * above the limit, else sends now. The settlement and its payout as they are after.
     */
    async paySettlement(
      requestedBy: string,
      settlementId: string,
    ): Promise<{ settlement: SettlementRecord; payout: PayoutRecord }> {
      const settlement = await store.findSettlement(settlementId);
      if (!settlement) throw notFound('settlement');
      if (settlement.status !== 'open') {
        throw conflict(
          settlement.status === 'paid'
            ? `settlement ${settlementId} was paid out already (bank reference ${settlement.bankReference})`
            : `settlement ${settlementId} is being paid out (payout ${settlement.payoutId})`,
        );
      }
      const merchant = await store.findMerchantById(settlement.merchantId);
      const account = merchant?.payoutAccount;
      if (!account) throw conflict(`merchant ${settlement.merchantId} has no verified payoutAccount: nothing was sent`);
      if (!sameName(account.verifiedName, account.accountName)) {
        throw conflict(
          `the payoutAccount's name (${account.accountName}) is not the name its bank answered (${account.verifiedName}): nothing was sent`,
        );
      }
      const at = await payoutBankOrConflict();
      const now = clock.now();
      const id = newPayoutId();
      const isAwaiting = settlement.netSen > deps.approvalAboveSen;
      const payout: PayoutRecord = {
        id,
        kind: 'settlement',
        merchantId: settlement.merchantId,
        settlementId,
        referenceNo: null,
        amountSen: settlement.netSen,
        feeSen: 0n,
        beneficiary: { bankCode: account.bankCode, accountNo: account.accountNo, name: account.verifiedName },
        state: isAwaiting ? 'awaiting_approval' : 'sending',
        partnerReferenceNo: partnerReferenceOf(id),
        service: transferServiceFor(at.bankCode, account.bankCode),
        transactionDate: null,
        requestedBy,
        approvedBy: null,
        bankReference: null,
        error: null,
        nextCheckAt: isAwaiting ? null : now + (statusScheduleMs[0] ?? 0),
        checks: 0,
        createdAt: now,
        updatedAt: now,
      };
      let started: Awaited<ReturnType<Store['startSettlementPayout']>>;
      try {
        started = await store.startSettlementPayout({
          payout,
          claim: isAwaiting ? null : { owner: instance, leaseUntil: now + leaseMs },
        });
      } catch (e) {
        if (e instanceof UniqueViolation) throw conflict(`settlement ${settlementId} is being paid out`);
        throw e;
      }
      if (started.outcome === 'not-found') throw notFound('settlement');
      if (started.outcome === 'not-open') {
        throw conflict(
          `settlement ${settlementId} is ${started.settlement.status === 'paid' ? 'paid out already' : 'being paid out'}`,
        );
      }
      const sent = isAwaiting ? payout : await send(payout, at);
      return { settlement: (await store.findSettlement(settlementId)) as SettlementRecord, payout: sent };
    },

    /**
     * Pays out each settlement of a merchant with `payoutSchedule: auto`, under the same rules
     * (approval included), as asked by `schedule`. One that cannot be paid (no verified account,
     * no payout bank) stays open, logged.
     */
    async payAutomatic(made: SettlementRecord[]): Promise<void> {
      for (const s of made) {
        const merchant = await store.findMerchantById(s.merchantId);
        if (merchant?.payoutSchedule !== 'auto') continue;
        try {
          const { payout } = await this.paySettlement(SCHEDULE, s.id);
          logger.info(
            { merchantId: s.merchantId, settlementId: s.id, payoutId: payout.id },
            'settlement paid out automatically',
          );
        } catch (err) {
          logger.warn(
            { err, merchantId: s.merchantId, settlementId: s.id },
            'automatic payout not made: the settlement stays open',
          );
          // Kept on the settlement for the operator; the catch-up leaves it to them.
          await store
            .noteSettlementPayoutError(s.id, `automatic payout not made: ${(err as Error).message}`)
            .catch((e) => logger.error({ err: e, settlementId: s.id }, 'could not note why a payout was not made'));
        }
      }
    },

    /**
     * Pays the scheduled settlements of `auto` merchants whose payout was lost (their instance
     * stopped between making them and paying them), made over `graceMs` ago and within the last two
     * days (older ones are an operator's: a merchant turned `auto` later does not pay its past); how many.
     */
    async catchUp(graceMs = 60_000, limit = 50): Promise<number> {
      const now = clock.now();
      const lost = await store.unpaidAutomaticSettlements(now - 2 * 86_400_000, now - graceMs, limit);
      if (lost.length > 0) {
        logger.info(
          { settlements: lost.map((s) => s.id) },
          'paying scheduled settlements whose automatic payout was lost',
        );
        await this.payAutomatic(lost);
      }
      return lost.length;
    },

    /** An awaiting payout approved by another key than the one that asked: sent now. */
    async approve(caller: Caller, id: string): Promise<PayoutRecord> {
      const p = await mine(caller, id);
      if (p.state !== 'awaiting_approval')
        throw conflict(`payout ${id} is ${p.state}: only one awaiting approval is approved`);
      if (p.requestedBy === keyOf(caller)) throw forbidden('the key that asked for a payout cannot approve it');
      const at = await payoutBankOrConflict();
      const now = clock.now();
      const approved = await store.approvePayout(id, keyOf(caller), now, {
        owner: instance,
        leaseUntil: now + leaseMs,
        nextCheckAt: now + (statusScheduleMs[0] ?? 0),
      });
      if (!approved) throw conflict(`payout ${id} is no longer awaiting approval`);
      return send(approved, at);
    },

    /** An awaiting payout rejected (another key than the one that asked): its settlement open again. */
    async reject(caller: Caller, id: string): Promise<PayoutRecord> {
      const p = await mine(caller, id);
      if (p.state !== 'awaiting_approval')
        throw conflict(`payout ${id} is ${p.state}: only one awaiting approval is rejected`);
      if (p.requestedBy === keyOf(caller)) throw forbidden('the key that asked for a payout cannot reject it');
      const rejected = await store.rejectPayout(id, keyOf(caller), clock.now());
      if (!rejected) throw conflict(`payout ${id} is no longer awaiting approval`);
      return rejected;
    },

    list(caller: Caller, filter: PayoutFilter, limit: number): Promise<PayoutRecord[]> {
      const owner = ownerOf(caller);
      return store.listPayouts(owner === undefined ? filter : { ...filter, merchantId: owner }, limit);
    },

    /** A payout with its exchanges; one not yet known paid or failed is asked about first (unless already being asked). */
    async show(caller: Caller, id: string): Promise<{ payout: PayoutRecord; exchanges: PayoutExchangeRecord[] }> {
      const payout = await refreshed(await mine(caller, id));
      return { payout, exchanges: await store.payoutExchanges(id) };
    },

    refreshed,

    /** The payout bank now, or a conflict when there is none. */
    payoutBank: payoutBankOrConflict,

    /** A claim for a payout this instance is about to send, and its first status query. */
    claimToSend(now: number) {
      return { claim: { owner: instance, leaseUntil: now + leaseMs }, nextCheckAt: now + (statusScheduleMs[0] ?? 0) };
    },

    /** Sends a payout committed `sending` with claimToSend's claim; the payout after, and the bank's answer. */
    sendAndTell,

    /** Asks about every payout due for a status query (claimed, so one instance asks); how many. */
    async checkDue(limit = 50): Promise<number> {
      const now = clock.now();
      const due = await store.claimDuePayouts(now, instance, now + leaseMs, limit);
      for (const p of due) {
        try {
          await check(p);
        } catch (err) {
          logger.error({ err, payoutId: p.id }, 'a payout status query failed; asked again when its claim ends');
        }
      }
      return due.length;
    },
  };
}

export type PayoutService = ReturnType<typeof createPayoutService>;

export interface PayoutChecker {
  runOnce(): Promise<number>;
  start(intervalMs?: number): void;
  stop(): Promise<void>;
}

/** The background job that asks about due payouts (docs/payouts.md#when-the-bank-is-down). */
export function createPayoutChecker(payouts: PayoutService, logger: Pick<Logger, 'error'>): PayoutChecker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  /** One round: the lost automatic payouts first, then the status queries due. */
  const round = async () => (await payouts.catchUp()) + (await payouts.checkDue());
  return {
    runOnce: round,
    start(intervalMs = 1000) {
      timer = setInterval(() => {
        if (running) return;
        running = round()
          .catch((err) => logger.error({ err }, 'payout status check failed'))
          .finally(() => {
            running = undefined;
          });
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}

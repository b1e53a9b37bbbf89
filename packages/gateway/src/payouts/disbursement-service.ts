import { fromMinorUnits, jakartaDay, SERVICE, snapError, successCode, toMinorUnits } from '@snapgate/snap';
import { disbursementEntry } from '../books/postings.ts';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { createFieldReader } from '../payments/fields.ts';
import type { RecordFor, SnapResponse } from '../payments/idempotency.ts';
import { ACCOUNT_INQUIRY, TRANSFER_INTERBANK, TRANSFER_STATUS } from '../payments/snap-fields.ts';
import type { MerchantRequest } from '../payments/snap-request.ts';
import type { PayoutBank, PayoutBankClient } from '../providers/payout-bank.ts';
import { TRANSFER_STATUS_DESC, transferServiceFor } from '../providers/transfer-credit.ts';
import type { PayoutRecord } from '../records/payout-records.ts';
import { type MerchantRecord, UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { newPayoutId, type PayoutService, partnerReferenceOf } from './payout-service.ts';

// docs/payouts.md#disbursements: a merchant sends money to any bank account, out of what the gateway
// owes it, over SNAP Transfer Credit with its B2B token: account inquiry (16), transfer (18; 17
// upstream when the beneficiary is at the payout bank) and status (36). The gateway is the merchant's
// bank here: it funds the transfer from the merchant's pending balance and sends it through the
// payout bank as a payout of kind `disbursement`, with the same never-twice rules.

const answer = (httpStatus: number, body: Record<string, unknown>): SnapResponse => ({
  httpStatus,
  body: JSON.stringify(body),
});

/** The Jakarta day an instant is in, from its midnight (a merchant's daily limit counts from it). */
const jakartaMidnight = (at: number) => Date.parse(`${jakartaDay(at)}T00:00:00+07:00`);

/** `limits.disbursementDaily` in sen: 0 (the default) turns disbursements off. */
const dailyLimitSen = (m: MerchantRecord) => toMinorUnits(m.limits?.disbursementDaily ?? '0.00');

/** A disbursement's state as SNAP's latestTransactionStatus: 00 paid, 03 on its way, 06 failed. */
const statusOf = (p: PayoutRecord) => (p.state === 'paid' ? '00' : p.state === 'failed' ? '06' : '03');

/** A SNAP error as an answer (kept for replay like any other). */
const answerOf = (e: ReturnType<typeof snapError>) => answer(e.httpStatus, { ...e.toBody() });

/**
 * The bank's refusal said as this service's: its HTTP status and case, the service's own code (an
 * account the bank does not know is `Invalid Card/Account/Customer`; a code that is not SNAP's is
 * an External Server Error).
 */
function refusalOf(service: string, responseCode: string | undefined, responseMessage: string | undefined) {
  const code = responseCode ?? '';
  if (/^404\d\d11$/.test(code)) return answerOf(snapError('INVALID_ACCOUNT', service));
  if (!/^[45]\d{6}$/.test(code)) return answerOf(snapError('EXTERNAL_SERVER_ERROR', service));
  return answer(Number(code.slice(0, 3)), {
    responseCode: `${code.slice(0, 3)}${service}${code.slice(5)}`,
    responseMessage: responseMessage || 'Refused by the bank',
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface DisbursementServiceDeps {
  store: Store;
  clock: Clock;
  logger: Pick<Logger, 'error' | 'warn' | 'info'>;
  bank: PayoutBankClient;
  payouts: PayoutService;
}

export function createDisbursementService({ store, clock, bank, payouts }: DisbursementServiceDeps) {
  /** The payout bank, when the merchant may disburse at all (a daily limit, a payout bank). */
  async function enabledFor(m: MerchantRecord, service: string): Promise<PayoutBank> {
    const at = dailyLimitSen(m) > 0n ? await bank.current() : undefined;
    if (!at) throw snapError('FEATURE_NOT_ALLOWED', service);
    return at;
  }

  /** What a transfer and its status answer carry of the disbursement. */
  const echo = (p: PayoutRecord) => ({
    amount: { value: fromMinorUnits(p.amountSen), currency: 'IDR' },
    beneficiaryAccountNo: p.beneficiary.accountNo,
    beneficiaryBankCode: p.beneficiary.bankCode,
    ...(p.transactionDate === null ? {} : { transactionDate: p.transactionDate }),
    ...(p.additionalInfo ? { additionalInfo: p.additionalInfo } : {}),
  });

  return {
    /** 16: who holds an account, asked at the payout bank (15 when the account is there). */
    async inquire(ctx: MerchantRequest): Promise<SnapResponse> {
      const svc = SERVICE.accountInquiryExternal;
      const f = createFieldReader(ctx.body, svc);
      const at = await enabledFor(ctx.merchant, svc);
      const bankCode = f.str('beneficiaryBankCode', ACCOUNT_INQUIRY.beneficiaryBankCode) as string;
      const accountNo = f.str('beneficiaryAccountNo', ACCOUNT_INQUIRY.beneficiaryAccountNo) as string;
      const partnerReferenceNo = f.str('partnerReferenceNo', ACCOUNT_INQUIRY.partnerReferenceNo);
      const additionalInfo = f.passthrough('additionalInfo');
      const r = await bank.inquire(at, { bankCode, accountNo });
      if (r.outcome === 'refused') return refusalOf(svc, r.responseCode, r.responseMessage);
      if (r.outcome === 'unknown') {
        throw snapError(r.exchange.status === null ? 'TIMEOUT' : 'EXTERNAL_SERVER_ERROR', svc, {
          detail: r.exchange.error,
        });
      }
      return answer(200, {
        responseCode: successCode(svc),
        responseMessage: 'Successful',
        ...(partnerReferenceNo === undefined ? {} : { partnerReferenceNo }),
        beneficiaryAccountName: r.accountName,
        beneficiaryAccountNo: accountNo,
        beneficiaryBankCode: bankCode,
        currency: 'IDR',
        ...(additionalInfo ? { additionalInfo } : {}),
      });
    },

    /**
     * 18: a transfer out of the merchant's pending balance. Funded and recorded (with its ledger
     * entry) before the bank is called; the bank's answer is recorded with the entry it causes.
     */
    async transfer(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = SERVICE.transferInterbank;
      const m = ctx.merchant;
      const f = createFieldReader(ctx.body, svc);
      const at = await enabledFor(m, svc);
      const merchantReferenceNo = f.str('partnerReferenceNo', TRANSFER_INTERBANK.partnerReferenceNo) as string;
      const amount = f.money('amount', TRANSFER_INTERBANK.amount);
      const name = f.str('beneficiaryAccountName', TRANSFER_INTERBANK.beneficiaryAccountName) as string;
      const accountNo = f.str('beneficiaryAccountNo', TRANSFER_INTERBANK.beneficiaryAccountNo) as string;
      const bankCode = f.str('beneficiaryBankCode', TRANSFER_INTERBANK.beneficiaryBankCode) as string;
      f.str('sourceAccountNo', TRANSFER_INTERBANK.sourceAccountNo);
      f.dateTime('transactionDate', TRANSFER_INTERBANK.transactionDate);
      const remark = f.str('remark', TRANSFER_INTERBANK.remark);
      f.str('customerReference', TRANSFER_INTERBANK.customerReference);
      f.str('beneficiaryEmail', TRANSFER_INTERBANK.beneficiaryEmail);
      const additionalInfo = f.passthrough('additionalInfo');
      const now = clock.now();
      const id = newPayoutId();
      const reference = partnerReferenceOf(id);
      const { claim, nextCheckAt } = payouts.claimToSend(now);
      const payout: PayoutRecord = {
        id,
        kind: 'disbursement',
        merchantId: m.id,
        settlementId: null,
        referenceNo: reference,
        merchantReferenceNo,
        externalId: ctx.idempotencyKey.externalId,
        additionalInfo: additionalInfo ?? null,
        amountSen: toMinorUnits((amount as { value: string }).value),
        feeSen: toMinorUnits(m.fees?.disbursement?.fixed ?? '0.00'),
        beneficiary: { bankCode, accountNo, name },
        state: 'sending',
        partnerReferenceNo: reference,
        service: transferServiceFor(at.bankCode, bankCode),
        transactionDate: null,
        requestedBy: `merchant:${m.id}`,
        approvedBy: null,
        bankReference: null,
        error: null,
        nextCheckAt,
        checks: 0,
        createdAt: now,
        updatedAt: now,
      };
      let started: Awaited<ReturnType<Store['startDisbursement']>>;
      try {
        started = await store.startDisbursement({
          payout,
          claim,
          entry: disbursementEntry('disbursement', payout, now),
          dailyLimitSen: dailyLimitSen(m),
          dayStart: jakartaMidnight(now),
        });
      } catch (e) {
        if (e instanceof UniqueViolation && e.constraint.includes('merchant_reference')) {
          throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, {
            detail: { partnerReferenceNo: merchantReferenceNo },
          });
        }
        throw e;
      }
      if (started.outcome === 'duplicate') {
        // The same request again (its X-EXTERNAL-ID) while the first is on its way: its answer, once
        // kept (withIdempotency replays it on this refusal). Anything else reusing the reference: 409.
        const twin = started.payout;
        if (twin.externalId === ctx.idempotencyKey.externalId) {
          // A wait in real time (the first request's bank call), at most its lease.
          const deadline = Date.now() + (claim.leaseUntil - now);
          while (!(await store.findIdempotency(ctx.idempotencyKey)) && Date.now() < deadline) await pause(50);
        }
        throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, { detail: { partnerReferenceNo: merchantReferenceNo } });
      }
      if (started.outcome === 'insufficient') throw snapError('INSUFFICIENT_FUNDS', svc);
      if (started.outcome === 'over-limit') throw snapError('EXCEEDS_AMOUNT_LIMIT', svc);
      const { payout: sent, answer: said } = await payouts.sendAndTell(payout, at, remark);
      const body = {
        referenceNo: reference,
        partnerReferenceNo: merchantReferenceNo,
        ...echo(sent),
      };
      const response =
        sent.state === 'paid'
          ? answer(200, { responseCode: successCode(svc), responseMessage: 'Successful', ...body })
          : sent.state === 'failed'
            ? refusalOf(svc, said?.responseCode, said?.responseMessage)
            : answer(202, { responseCode: `202${svc}00`, responseMessage: 'Request In Progress', ...body });
      // Kept whatever the bank said: a repeat of this request (its X-EXTERNAL-ID) gets this answer.
      await store.insertIdempotency(recordFor(response), ctx.now).catch(() => undefined);
      return response;
    },

    /** 36: where a merchant's disbursement stands; one still on its way is asked about at the bank first. */
    async status(ctx: MerchantRequest): Promise<SnapResponse> {
      const svc = SERVICE.transferStatus;
      const f = createFieldReader(ctx.body, svc);
      await enabledFor(ctx.merchant, svc);
      const merchantReferenceNo = f.str('originalPartnerReferenceNo', TRANSFER_STATUS.originalPartnerReferenceNo);
      const referenceNo = f.str('originalReferenceNo', TRANSFER_STATUS.originalReferenceNo);
      const originalExternalId = f.str('originalExternalId', TRANSFER_STATUS.originalExternalId);
      const serviceCode = f.str('serviceCode', TRANSFER_STATUS.serviceCode) as string;
      f.dateTime('transactionDate', TRANSFER_STATUS.transactionDate);
      f.passthrough('additionalInfo');
      const found = await store.findDisbursement(ctx.merchant.id, {
        ...(merchantReferenceNo === undefined ? {} : { merchantReferenceNo }),
        ...(referenceNo === undefined ? {} : { referenceNo }),
      });
      if (!found) throw snapError('TRANSACTION_NOT_FOUND', svc);
      const p = await payouts.refreshed(found);
      const status = statusOf(p);
      return answer(200, {
        responseCode: successCode(svc),
        responseMessage: 'Successful',
        originalReferenceNo: p.referenceNo,
        originalPartnerReferenceNo: p.merchantReferenceNo,
        ...(originalExternalId === undefined ? {} : { originalExternalId }),
        serviceCode,
        ...echo(p),
        ...(p.bankReference === null ? {} : { referenceNumber: p.bankReference }),
        latestTransactionStatus: status,
        transactionStatusDesc: TRANSFER_STATUS_DESC[status],
      });
    },
  };
}

export type DisbursementService = ReturnType<typeof createDisbursementService>;

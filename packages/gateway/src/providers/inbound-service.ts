import {
  compareMoney,
  formatJakartaTimestamp,
  isTransactionStatus,
  snapError,
  type TransactionStatus,
  toMinorUnits,
} from '@snapgate/snap';
import type { Mode } from '../config.ts';
import { expireIfDue } from '../payments/expiry.ts';
import { createFieldReader } from '../payments/fields.ts';
import { type RecordFor, type SnapResponse, snapOk } from '../payments/idempotency.ts';
import { NO_PAYER, type Payer } from '../payments/notification-body.ts';
import { BANK_VA_INQUIRY, BANK_VA_NUMBERS, BANK_VA_PAYMENT, DEBIT_NOTIFY, QR_NOTIFY } from '../payments/snap-fields.ts';
import type { ProviderRequest } from '../payments/snap-request.ts';
import { IllegalStatusChange, LostRace, type StatusChanger } from '../payments/status-change.ts';
import { upstreamOf } from '../payments/upstream.ts';
import { closedReason, detailsOf } from '../payments/va-service.ts';
import type { AppliedFromReport } from '../records/book-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import { type TransactionRecord, UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';

const SUCCESS_REASON = { english: 'Success', indonesia: 'Sukses' } as const;

/** The `paidAmount` of a payment-flag answer snapgate stored: what that paymentRequestId paid. */
function paidAmountOf(responseBody: string): { value: string; currency: string } | undefined {
  try {
    const paid = (JSON.parse(responseBody) as { virtualAccountData?: { paidAmount?: unknown } }).virtualAccountData
      ?.paidAmount as { value?: unknown; currency?: unknown } | undefined;
    return typeof paid?.value === 'string' && typeof paid.currency === 'string'
      ? { value: paid.value, currency: paid.currency }
      : undefined;
  } catch {
    return undefined;
  }
}

/** The digits of a bank's reference (payerRefId is a numeric string in the merchant's callback). */
const digitsOf = (s: string) => s.replace(/\D/g, '').slice(0, 32);

export interface InboundServiceDeps {
  store: Store;
  changer: StatusChanger;
  mode: Mode;
}

/**
 * What providers tell snapgate: a bank's VA inquiry (24) and payment flag (25), an acquirer's
 * QRIS payment notification (52). Every change goes through the status machine and commits with
 * the merchant's notification; the answer is built before and sent only after that commit.
 */
export function createInboundService({ store, changer, mode }: InboundServiceDeps) {
  /**
   * Who owns a VA: the active bank whose bankCode it was created with; in sandbox mode, a VA
   * whose bankCode has no such bank belongs to the built-in sandbox bank.
   */
  /** Whether this acquirer may notify a QRIS snapgate issued itself (a merchant without qrisProvider). */
  async function acquiresGatewayQris(provider: ProviderRecord): Promise<boolean> {
    if (provider.acquiresGatewayQris) return true;
    if (mode !== 'sandbox' || !provider.isSandbox) return false;
    return (await store.findGatewayQrisAcquirer()) === undefined;
  }

  async function owns(provider: ProviderRecord, bankCode: string): Promise<boolean> {
    if (provider.kind !== 'bank') return false;
    if (!provider.isSandbox) return provider.bankCode === bankCode;
    // Only a bankCode no bank is registered with: a disabled bank's VAs stay unpaid, not the sandbox's.
    return mode === 'sandbox' && (await store.findBanks(bankCode)).length === 0;
  }

  /** The VA a bank names, checked against all three of its numbers and its owner. */
  async function findOwnedVa(ctx: ProviderRequest): Promise<TransactionRecord | undefined> {
    const f = createFieldReader(ctx.body, ctx.serviceCode);
    const partnerServiceId = f.str('partnerServiceId', BANK_VA_NUMBERS.partnerServiceId) as string;
    const customerNo = f.str('customerNo', BANK_VA_NUMBERS.customerNo) as string;
    const virtualAccountNo = f.str('virtualAccountNo', BANK_VA_NUMBERS.virtualAccountNo) as string;
    // Stored as the 8-char partnerServiceId (left-padded with spaces) + customerNo; a bank that
    // trims the whole number, or pads it, still finds it.
    const number = virtualAccountNo.trim();
    const txn =
      (await store.findTransactionByVirtualAccountNo(virtualAccountNo)) ??
      (await store.findTransactionByVirtualAccountNo(number.padStart(20, ' ')));
    if (txn?.kind !== 'va') return undefined;
    const d = detailsOf(txn);
    if (partnerServiceId.trim().padStart(8, ' ') !== d.partnerServiceId || customerNo.trim() !== d.customerNo) {
      return undefined;
    }
    return (await owns(ctx.provider, d.bankCode)) ? txn : undefined;
  }

  const vaNumbers = (txn: TransactionRecord) => {
    const d = detailsOf(txn);
    return {
      partnerServiceId: d.partnerServiceId,
      customerNo: d.customerNo,
      virtualAccountNo: txn.virtualAccountNo,
      virtualAccountName: d.virtualAccountName,
    };
  };

  /**
   * A status a provider told (an acquirer's notify, a wallet's), through the status machine: the
   * current status again answers the same and changes nothing; a change the machine forbids is a
   * conflict. `who` names the provider in the history.
   */
  async function applyNotified(
    ctx: ProviderRequest,
    recordFor: RecordFor,
    txn: TransactionRecord,
    told: {
      to: TransactionStatus;
      statusDesc?: string;
      who: string;
      details: (current: TransactionRecord) => TransactionRecord['details'];
    },
  ): Promise<SnapResponse> {
    const { to } = told;
    const response = snapOk(ctx.serviceCode, {});
    if (txn.status === to) return response;
    try {
      await changer.change(
        txn,
        {
          to,
          ...(told.statusDesc === undefined ? {} : { statusDesc: told.statusDesc }),
          reason: ctx.applied ? appliedReason(ctx.applied, told.who) : `notified by ${told.who}`,
          patch: (current) => ({
            ...(to === '00' ? { paidAmount: current.amount, paidAt: ctx.now } : {}),
            details: told.details(current),
          }),
          idempotency: recordFor(response),
          requestId: ctx.requestId,
          providerId: ctx.provider.id,
        },
        ctx.now,
      );
    } catch (e) {
      if (e instanceof IllegalStatusChange) {
        // The same status again, reached by a concurrent notify: nothing changes.
        if (e.from === to) return response;
        throw snapError('CONFLICT', ctx.serviceCode, { detail: { from: e.from, to } });
      }
      throw e;
    }
    return response;
  }

  return {
    /** Service 24: the bank asks what its customer is about to pay. */
    async vaInquiry(ctx: ProviderRequest): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const found = await findOwnedVa(ctx);
      const inquiryRequestId = f.str('inquiryRequestId', BANK_VA_INQUIRY.inquiryRequestId) as string;
      if (!found)
        throw snapError('INVALID_BILL', svc, { reason: 'Not Found', detail: { providerId: ctx.provider.id } });
      const txn = await expireIfDue(changer, found, ctx.now, ctx.requestId);
      const closed = closedReason(txn);
      if (closed === 'Paid') throw snapError('PAID_BILL', svc);
      if (closed) throw snapError('INVALID_BILL_EXPIRED', svc, { reason: 'Expired', detail: { status: txn.status } });
      const d = detailsOf(txn);
      return snapOk(svc, {
        virtualAccountData: {
          inquiryStatus: '00',
          inquiryReason: SUCCESS_REASON,
          ...vaNumbers(txn),
          inquiryRequestId,
          totalAmount: { value: txn.amount ?? '0.00', currency: txn.currency },
          virtualAccountTrxType: d.virtualAccountTrxType,
          billDetails: [],
          freeTexts: [],
        },
      });
    },

    /**
     * Service 25: the bank's payment flag. Idempotent on (provider, paymentRequestId): a repeat
     * (flagAdvise Y after a timeout) answers the original answer and changes nothing.
     */
    async vaPayment(ctx: ProviderRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const paymentRequestId = f.str('paymentRequestId', BANK_VA_PAYMENT.paymentRequestId) as string;
      const paidAmount = f.money('paidAmount', BANK_VA_PAYMENT.paidAmount) as { value: string; currency: string };
      const trxDateTime = f.dateTimeAsSent('trxDateTime', BANK_VA_PAYMENT.trxDateTime);
      const bankReference = f.str('referenceNo', BANK_VA_PAYMENT.referenceNo);
      f.str('flagAdvise', BANK_VA_PAYMENT.flagAdvise);
      const payerName = f.str('additionalInfo.payerName', BANK_VA_PAYMENT['additionalInfo.payerName']);
      const found = await findOwnedVa(ctx);
      /**
       * The answer already given under this paymentRequestId, when this is a repeat of that very
       * payment: the same VA and the same amount. Anything else under a used paymentRequestId is
       * a conflict that changes nothing: answering it with the earlier success would tell the
       * bank an unpaid VA was paid.
       */
      const earlier = async () => {
        const original = await store.findVaPayment(ctx.provider.id, paymentRequestId);
        if (!original) return undefined;
        const paidBefore = paidAmountOf(original.responseBody);
        const isSame =
          found?.referenceNo === original.referenceNo &&
          paidBefore !== undefined &&
          paidBefore.currency === paidAmount.currency &&
          compareMoney(paidBefore.value, paidAmount.value) === 0;
        if (!isSame) {
          throw snapError('CONFLICT', svc, {
            detail: { paymentRequestId, referenceNo: original.referenceNo, reused: true },
          });
        }
        return { httpStatus: original.httpStatus, body: original.responseBody };
      };
      const repeat = await earlier();
      if (repeat) return repeat;

      if (!found)
        throw snapError('INVALID_BILL', svc, { reason: 'Not Found', detail: { providerId: ctx.provider.id } });
      let txn = await expireIfDue(changer, found, ctx.now, ctx.requestId);
      // Decided on the row as read (the bill may change concurrently): a lost race decides again.
      for (let attempt = 0; ; attempt++) {
        const closed = closedReason(txn);
        if (closed === 'Paid') {
          // A concurrent repeat of this very flag may have just committed.
          const twin = await earlier();
          if (twin) return twin;
          throw snapError('PAID_BILL', svc, { detail: { paymentRequestId } });
        }
        if (closed) throw snapError('INVALID_BILL_EXPIRED', svc, { reason: 'Expired', detail: { status: txn.status } });
        const d = detailsOf(txn);
        if (toMinorUnits(paidAmount.value) <= 0n) throw snapError('INVALID_AMOUNT', svc);
        if (d.virtualAccountTrxType === 'C' && compareMoney(paidAmount.value, txn.amount as string) !== 0) {
          throw snapError('INVALID_AMOUNT', svc, { detail: { expected: txn.amount, got: paidAmount.value } });
        }
        const numbers = vaNumbers(txn);
        // Applied from the bank's report, the gateway knows no payer: it sends none (no made-up one).
        const payer: Payer = ctx.applied
          ? NO_PAYER
          : {
              payerName: payerName ?? d.virtualAccountName,
              payerIssuer: ctx.provider.bankCode,
              payerRefId: digitsOf(bankReference ?? paymentRequestId),
            };
        const response = snapOk(svc, {
          virtualAccountData: {
            paymentFlagStatus: '00',
            paymentFlagReason: SUCCESS_REASON,
            paymentRequestId,
            paidAmount,
            ...numbers,
            trxDateTime: trxDateTime ?? formatJakartaTimestamp(ctx.now),
          },
        });
        const current = txn;
        try {
          await changer.change(
            current,
            {
              to: '00',
              reason: ctx.applied
                ? appliedReason(ctx.applied, `bank ${ctx.provider.id}`)
                : `payment flag ${paymentRequestId} from bank ${ctx.provider.bankCode}`,
              patch: () => ({
                paidAmount: paidAmount.value,
                paidAt: ctx.now,
                details: { ...current.details, payer, bankReferenceNo: bankReference ?? null, paymentRequestId },
              }),
              idempotency: recordFor(response),
              vaPayment: {
                providerId: ctx.provider.id,
                paymentRequestId,
                referenceNo: current.referenceNo,
                httpStatus: response.httpStatus,
                responseBody: response.body,
                createdAt: ctx.now,
              },
              decidedOnRead: true,
              requestId: ctx.requestId,
              providerId: ctx.provider.id,
            },
            ctx.now,
          );
          return response;
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('va_payments')) {
            const twin = await earlier();
            if (twin) return twin;
          }
          if (e instanceof IllegalStatusChange) throw snapError('PAID_BILL', svc, { detail: { status: e.from } });
          if (!(e instanceof LostRace) || attempt >= 10) throw e;
          txn = await expireIfDue(
            changer,
            (await store.findTransaction(current.referenceNo)) as TransactionRecord,
            ctx.now,
            ctx.requestId,
          );
        }
      }
    },

    /** Service 52: the acquirer says what happened to a QRIS it routed to snapgate. */
    async qrisNotify(ctx: ProviderRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const acquirerReferenceNo = f.str('originalReferenceNo', QR_NOTIFY.originalReferenceNo);
      const referenceNo = f.str('originalPartnerReferenceNo', QR_NOTIFY.originalPartnerReferenceNo) as string;
      const status = f.str('latestTransactionStatus', QR_NOTIFY.latestTransactionStatus) as string;
      if (!isTransactionStatus(status)) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'latestTransactionStatus' });
      }
      const amount = f.money('amount', QR_NOTIFY.amount) as { value: string; currency: string };
      f.str('transactionStatusDesc', QR_NOTIFY.transactionStatusDesc);
      const payerIssuer = f.str('additionalInfo.payerIssuer', QR_NOTIFY['additionalInfo.payerIssuer']);
      const payerName = f.str('additionalInfo.payerName', QR_NOTIFY['additionalInfo.payerName']);
      const payerRefId = f.str('additionalInfo.payerRefId', QR_NOTIFY['additionalInfo.payerRefId']);

      const txn = await store.findTransaction(referenceNo);
      const merchant = txn ? await store.findMerchantById(txn.merchantId) : undefined;
      // A QRIS an acquirer issued is that acquirer's for good; one snapgate issued is notified by
      // the merchant's acquirer, or when the merchant names none by the acquirer the operator named
      // for the QRIS snapgate issues itself (the sandbox acquirer in sandbox mode while none is).
      const issuer = txn ? upstreamOf(txn)?.providerId : undefined;
      const routedTo = issuer ?? merchant?.qrisProvider ?? null;
      const isRouted =
        ctx.provider.kind === 'acquirer' &&
        txn?.kind === 'qris' &&
        merchant !== undefined &&
        (routedTo === null ? await acquiresGatewayQris(ctx.provider) : routedTo === ctx.provider.id);
      if (!txn || !isRouted) {
        throw snapError('TRANSACTION_NOT_FOUND', svc, { detail: { providerId: ctx.provider.id, referenceNo } });
      }
      if (compareMoney(amount.value, txn.amount as string) !== 0) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'amount', detail: { expected: txn.amount } });
      }
      const to = status as TransactionStatus;
      // Refunded and canceled are what the refund and cancel operations make, never what a notify
      // asserts: refused, nothing changes (the inbound log keeps the call).
      if (to === '04' || to === '05') {
        throw snapError('CONFLICT', svc, { detail: { status: to, reason: 'a notify cannot refund or cancel' } });
      }
      // Applied from the acquirer's report, the gateway knows no payer: it sends none (no made-up issuer).
      const payer: Payer = ctx.applied
        ? NO_PAYER
        : {
            payerIssuer: payerIssuer ?? ctx.provider.bankCode,
            payerName: payerName ?? '',
            payerRefId: payerRefId ?? '',
          };
      return applyNotified(ctx, recordFor, txn, {
        to,
        who: `acquirer ${ctx.provider.id}`,
        details: (current) => ({ ...current.details, payer, acquirerReferenceNo: acquirerReferenceNo ?? null }),
      });
    },

    /**
     * Service 56: a wallet says what its payer did with a payment it serves (docs/ewallets.md):
     * `00` authorised, `06` declined or failed. Anything else is the merchant's to do (cancel,
     * refund) or no news (`01`): refused, nothing changes.
     */
    async ewalletNotify(ctx: ProviderRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const referenceNo = f.str('originalPartnerReferenceNo', DEBIT_NOTIFY.originalPartnerReferenceNo) as string;
      const walletReferenceNo = f.str('originalReferenceNo', DEBIT_NOTIFY.originalReferenceNo) ?? null;
      const status = f.str('latestTransactionStatus', DEBIT_NOTIFY.latestTransactionStatus) as string;
      if (!isTransactionStatus(status)) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'latestTransactionStatus' });
      }
      const amount = f.money('amount', DEBIT_NOTIFY.amount) as { value: string; currency: string };
      f.str('transactionStatusDesc', DEBIT_NOTIFY.transactionStatusDesc);
      const payerName = f.str('additionalInfo.payerName', DEBIT_NOTIFY['additionalInfo.payerName']);
      const payerRefId = f.str('additionalInfo.payerRefId', DEBIT_NOTIFY['additionalInfo.payerRefId']);
      const found = await store.findTransaction(referenceNo);
      // Only the wallet a payment was made in may tell of it: another provider's is not found.
      if (
        found?.kind !== 'ewallet' ||
        found.details.providerId !== ctx.provider.id ||
        ctx.provider.kind !== 'ewallet'
      ) {
        throw snapError('TRANSACTION_NOT_FOUND', svc, { detail: { providerId: ctx.provider.id, referenceNo } });
      }
      if (compareMoney(amount.value, found.amount as string) !== 0 || amount.currency !== found.currency) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'amount', detail: { expected: found.amount } });
      }
      const to = status as TransactionStatus;
      if (to !== '00' && to !== '06') {
        throw snapError('CONFLICT', svc, { detail: { status: to, reason: 'a wallet tells only 00 or 06' } });
      }
      const txn = await expireIfDue(changer, found, ctx.now, ctx.requestId);
      const payer: Payer = ctx.applied
        ? NO_PAYER
        : { payerName: payerName ?? '', payerIssuer: ctx.provider.bankCode, payerRefId: payerRefId ?? '' };
      return applyNotified(ctx, recordFor, txn, {
        to,
        ...(to === '06' ? { statusDesc: 'Declined' } : {}),
        who: `wallet ${ctx.provider.id}`,
        details: (current) => ({ ...current.details, payer, walletReferenceNo }),
      });
    },
  };
}

export type InboundService = ReturnType<typeof createInboundService>;

/** A payment applied from a provider's report, in its history: from which run and line, by whom, for which provider. */
const appliedReason = (a: AppliedFromReport, provider: string) =>
  `applied from reconciliation ${a.reconciliationId} line ${a.line} by ${a.by} (${provider})`;

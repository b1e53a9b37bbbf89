import {
  formatJakartaTimestamp,
  fromMinorUnits,
  snapError,
  successCode,
  TRANSACTION_STATUS,
  type TransactionStatus,
  toMinorUnits,
} from '@snapgate/snap';
import type { SnapContext } from '../http/snap-auth.ts';
import { type IdempotencyRecord, type Store, type TransactionRecord, UniqueViolation } from '../store/store.ts';
import { expireIfDue } from './expiry.ts';
import { createFieldReader } from './fields.ts';
import type { SnapResponse } from './idempotency.ts';
import { newBillNumber, newReferenceNo, newRefundNo } from './ids.ts';
import { type Payer, payerOf } from './notification-body.ts';
import { buildQrisContent, parseQrisContent, qrisAmountFits } from './qris-content.ts';
import { LostRace, type StatusChanger } from './status-change.ts';

const DEFAULT_VALIDITY_MS = 30 * 60_000;
type RecordFor = (response: SnapResponse) => IdempotencyRecord;

const ok = (serviceCode: string, fields: Record<string, unknown>): SnapResponse => ({
  httpStatus: 200,
  body: JSON.stringify({ responseCode: successCode(serviceCode), responseMessage: 'Successful', ...fields }),
});

export interface QrisServiceDeps {
  store: Store;
  changer: StatusChanger;
  publicUrl: string;
}

export function createQrisService({ store, changer, publicUrl }: QrisServiceDeps) {
  /** The merchant's QRIS by either reference; another merchant's is not found (SPEC §3.1). */
  async function findOwn(ctx: SnapContext, svc: string): Promise<TransactionRecord> {
    const f = createFieldReader(ctx.body, svc);
    const referenceNo = f.str('originalReferenceNo', { max: 64 });
    const partnerReferenceNo = f.str('originalPartnerReferenceNo', { max: 64 });
    if (referenceNo === undefined && partnerReferenceNo === undefined) {
      throw snapError('INVALID_MANDATORY_FIELD', svc, { field: 'originalReferenceNo' });
    }
    let txn = referenceNo
      ? await store.findTransaction(referenceNo)
      : await store.findTransactionByPartnerRef(ctx.merchant.id, 'qris', partnerReferenceNo as string);
    if (
      !txn ||
      txn.merchantId !== ctx.merchant.id ||
      txn.kind !== 'qris' ||
      (partnerReferenceNo !== undefined && txn.partnerReferenceNo !== partnerReferenceNo)
    ) {
      throw snapError('TRANSACTION_NOT_FOUND', svc);
    }
    txn = await expireIfDue(changer, txn, ctx.now);
    return txn;
  }

  return {
    async generate(ctx: SnapContext, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const partnerReferenceNo = f.str('partnerReferenceNo', { required: true, max: 64 }) as string;
      const amount = f.money('amount', { required: true, positive: true });
      if (!amount || !qrisAmountFits(amount.value))
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'amount.value' });
      const merchantRef = f.str('merchantId', { max: 64 });
      const terminalId = f.str('terminalId', { max: 16, pattern: /^[\x20-\x7e]*$/ });
      const storeId = f.str('storeId', { max: 25, pattern: /^[\x20-\x7e]*$/ });
      const validityMs = f.dateTime('validityPeriod');
      if (validityMs !== undefined && validityMs <= ctx.now) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'validityPeriod' });
      }
      const additionalInfo = f.passthrough('additionalInfo');
      const expiresAt = validityMs ?? ctx.now + DEFAULT_VALIDITY_MS;
      const m = ctx.merchant;

      for (let attempt = 0; ; attempt++) {
        const referenceNo = newReferenceNo(ctx.now);
        const qrContent = buildQrisContent({
          nmid: m.nmid,
          merchantName: m.merchantName,
          merchantCity: m.merchantCity,
          mcc: m.mcc,
          amount: amount.value,
          referenceNo,
          terminalId,
          storeId,
        });
        const response = ok(svc, {
          referenceNo,
          partnerReferenceNo,
          qrContent,
          qrUrl: `${publicUrl}/qr/${referenceNo}.png`,
          merchantName: m.merchantName,
          additionalInfo: { validityPeriod: formatJakartaTimestamp(expiresAt) },
        });
        const txn: TransactionRecord = {
          referenceNo,
          merchantId: m.id,
          kind: 'qris',
          partnerReferenceNo,
          status: '01',
          statusDesc: TRANSACTION_STATUS['01'],
          seq: 1,
          amount: amount.value,
          currency: amount.currency,
          paidAmount: null,
          refundedAmount: '0.00',
          feeAmount: '0.00',
          virtualAccountNo: null,
          billNumber: newBillNumber(),
          expiresAt,
          paidAt: null,
          details: { qrContent, merchantRef, terminalId, storeId, additionalInfo },
          createdAt: ctx.now,
          updatedAt: ctx.now,
        };
        try {
          await store.insertTransaction(txn, recordFor(response));
          return response;
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('partner_reference_no')) {
            throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, { detail: { partnerReferenceNo } });
          }
          // A referenceNo collision is astronomically rare; draw again once.
          if (e instanceof UniqueViolation && e.constraint.includes('reference_no') && attempt === 0) continue;
          throw e;
        }
      }
    },

    async query(ctx: SnapContext): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const txn = await findOwn(ctx, svc);
      f.str('serviceCode', { required: true, oneOf: ['47'] });
      const paid = txn.paidAt !== null;
      const payer = payerOf(txn);
      return ok(svc, {
        originalReferenceNo: txn.referenceNo,
        originalPartnerReferenceNo: txn.partnerReferenceNo,
        serviceCode: '47',
        latestTransactionStatus: txn.status,
        transactionStatusDesc: txn.statusDesc ?? TRANSACTION_STATUS[txn.status],
        amount: { value: txn.amount, currency: txn.currency },
        ...(paid ? { paidTime: formatJakartaTimestamp(txn.paidAt as number) } : {}),
        feeAmount: { value: txn.feeAmount, currency: txn.currency },
        additionalInfo: paid ? { ...payer, billNumber: txn.billNumber } : {},
      });
    },

    async cancel(ctx: SnapContext, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const txn = await findOwn(ctx, svc);
      const reason = f.str('reason', { max: 256 });
      // SPEC §3.3: only an Initiated QRIS can be canceled (01 → 05).
      if (txn.status !== '01') throw snapError('NOT_ALLOWED', svc, { detail: { status: txn.status } });
      const response = ok(svc, {
        originalReferenceNo: txn.referenceNo,
        originalPartnerReferenceNo: txn.partnerReferenceNo,
        cancelTime: formatJakartaTimestamp(ctx.now),
        transactionDate: formatJakartaTimestamp(txn.createdAt),
      });
      try {
        await changer.change(
          txn,
          { to: '05', reason: reason ?? 'canceled by merchant', idempotency: recordFor(response) },
          ctx.now,
        );
      } catch (e) {
        if ((e as Error).name === 'IllegalStatusChange') throw snapError('NOT_ALLOWED', svc);
        throw e;
      }
      return response;
    },

    async refund(ctx: SnapContext, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      f.str('originalPartnerReferenceNo', { required: true, max: 64 });
      const partnerRefundNo = f.str('partnerRefundNo', { required: true, max: 64 }) as string;
      const refundAmount = f.money('refundAmount', { required: true, positive: true });
      const reason = f.str('reason', { max: 256 }) ?? null;
      if (!refundAmount) throw snapError('INVALID_MANDATORY_FIELD', svc, { field: 'refundAmount' });
      const refundNo = newRefundNo(ctx.now);
      // The remaining amount is decided on the row as read: a concurrent refund that commits first
      // makes this write lose (seq), and the decision is taken again on the fresh row.
      let txn = await findOwn(ctx, svc);
      for (let attempt = 0; ; attempt++) {
        if (txn.status !== '00') throw snapError('NOT_ALLOWED', svc, { detail: { status: txn.status } });
        const remaining = toMinorUnits(txn.amount as string) - toMinorUnits(txn.refundedAmount);
        if (toMinorUnits(refundAmount.value) > remaining) {
          throw snapError('INVALID_AMOUNT', svc, { detail: { remaining: fromMinorUnits(remaining) } });
        }
        const refundedAmount = fromMinorUnits(toMinorUnits(txn.refundedAmount) + toMinorUnits(refundAmount.value));
        const response = ok(svc, {
          originalPartnerReferenceNo: txn.partnerReferenceNo,
          originalReferenceNo: txn.referenceNo,
          refundNo,
          partnerRefundNo,
          refundAmount,
          refundTime: formatJakartaTimestamp(ctx.now),
        });
        const refund = {
          refundNo,
          referenceNo: txn.referenceNo,
          merchantId: txn.merchantId,
          partnerRefundNo,
          amount: refundAmount.value,
          reason,
          createdAt: ctx.now,
        };
        let written: boolean;
        try {
          if (refundedAmount === txn.amount) {
            // The whole amount is back: Refunded (00 → 04), notified like every QRIS change.
            written = await changer
              .change(
                txn,
                {
                  to: '04',
                  reason: reason ?? 'refunded',
                  patch: () => ({ refundedAmount }),
                  refund,
                  idempotency: recordFor(response),
                  decidedOnRead: true,
                },
                ctx.now,
              )
              .then(() => true)
              .catch((e) => {
                if (e instanceof LostRace) return false;
                throw e;
              });
          } else {
            written =
              (await store.updateTransaction({
                referenceNo: txn.referenceNo,
                expectedSeq: txn.seq,
                at: ctx.now,
                patch: { refundedAmount },
                refund,
                idempotency: recordFor(response),
              })) !== undefined;
          }
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('partner_refund_no')) {
            throw snapError('CONFLICT', svc, { detail: { duplicate: 'partnerRefundNo' } });
          }
          throw e;
        }
        if (written) return response;
        if (attempt >= 10) throw snapError('CONFLICT', svc, { detail: 'transaction kept changing during refund' });
        txn = (await store.findTransaction(txn.referenceNo)) as TransactionRecord;
      }
    },

    /** Sandbox: the payer's side. By referenceNo, or by scanning the qrContent. */
    async pay(
      ref: { referenceNo?: string; qrContent?: string },
      input: { status: TransactionStatus; payer: Payer },
      nowMs: number,
    ): Promise<TransactionRecord | undefined> {
      let referenceNo = ref.referenceNo;
      if (ref.qrContent !== undefined) {
        const parsed = parseQrisContent(ref.qrContent);
        if (!parsed) return undefined;
        referenceNo = parsed.referenceNo;
      }
      const found = referenceNo ? await store.findTransaction(referenceNo) : undefined;
      if (found?.kind !== 'qris') return undefined;
      const txn = await expireIfDue(changer, found, nowMs);
      return changer.change(
        txn,
        {
          to: input.status,
          reason: 'sandbox payment',
          renotify: input.status === '01',
          patch: () =>
            input.status === '00'
              ? { paidAmount: txn.amount, paidAt: nowMs, details: { ...txn.details, payer: input.payer } }
              : { details: { ...txn.details, payer: input.payer } },
        },
        nowMs,
      );
    },
  };
}

export type QrisService = ReturnType<typeof createQrisService>;

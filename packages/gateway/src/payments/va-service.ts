import { formatJakartaTimestamp, snapError, successCode, TRANSACTION_STATUS } from '@snapgate/snap';
import type { Mode } from '../config.ts';
import { type TransactionRecord, UniqueViolation, type VaDetails, type VaTransaction } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { checkoutUrlOf, isDrawnAgain, newCheckoutId, readAdditionalInfo } from './checkout-link.ts';
import { expireIfDue } from './expiry.ts';
import { feeSnapshotOf } from './fees.ts';
import { createFieldReader } from './fields.ts';
import type { RecordFor, SnapResponse } from './idempotency.ts';
import { newBillNumber, newReferenceNo } from './ids.ts';
import { VA_CREATE, VA_LOOKUP, VA_UPDATE } from './snap-fields.ts';
import { linkFields, type MerchantRequest } from './snap-request.ts';
import { IllegalStatusChange, type StatusChanger } from './status-change.ts';
import { vaIdentity } from './va-identity.ts';
import { createVaNumbers } from './va-numbers.ts';

const DEFAULT_EXPIRY_MS = 24 * 3600_000;
/** The bank code used when a request names none. */
export const DEFAULT_BANK_CODE = '999';

/** The transaction as the VA it is; a QRIS here is a programming mistake. */
export function asVa(txn: TransactionRecord): VaTransaction {
  if (txn.kind !== 'va') throw new TypeError(`transaction ${txn.referenceNo} is not a VA`);
  return txn;
}

/** A VA's own fields. */
export const detailsOf = (txn: TransactionRecord): VaDetails => asVa(txn).details;

function respond(serviceCode: string, message: string, fields: Record<string, unknown>): SnapResponse {
  return {
    httpStatus: 200,
    body: JSON.stringify({ responseCode: successCode(serviceCode), responseMessage: message, ...fields }),
  };
}

/** A VA status's `paymentFlagReason`: the flag in words (SNAP has it; DOKU's library reads it). */
const PAID_REASON = { english: 'Success', indonesia: 'Sukses' };
const UNPAID_REASON = { english: 'Not Paid', indonesia: 'Belum Dibayar' };

/** `virtualAccountData` as create, inquiry and update answer it (with its checkout page, when it has one). */
function vaDataOf(txn: TransactionRecord, publicUrl: string): Record<string, unknown> {
  const d = detailsOf(txn);
  const checkout = txn.checkoutId ? { checkoutUrl: checkoutUrlOf(publicUrl, txn.checkoutId) } : {};
  return {
    ...vaIdentity(asVa(txn)),
    totalAmount:
      txn.amount === null
        ? (d.totalAmount ?? { value: '0.00', currency: txn.currency })
        : { value: txn.amount, currency: txn.currency },
    virtualAccountTrxType: d.virtualAccountTrxType,
    expiredDate: txn.expiresAt === null ? '' : formatJakartaTimestamp(txn.expiresAt),
    additionalInfo: { ...d.additionalInfo, bankCode: d.bankCode, ...checkout },
  };
}

/** Why a VA cannot take a payment or a change, for `Invalid Bill/Virtual Account [reason]`. */
export function closedReason(txn: TransactionRecord): string | undefined {
  if (txn.status === '00' || txn.status === '04') return 'Paid';
  if (txn.status === '05') return 'Deleted';
  if (txn.status === '06') return txn.statusDesc === 'Expired' ? 'Expired' : 'Failed';
  return undefined;
}

export interface VaServiceDeps {
  store: Store;
  changer: StatusChanger;
  mode: Mode;
  /** The gateway's public address, read when a VA is answered (its checkout page's). */
  publicUrl: () => string;
}

export function createVaService({ store, changer, mode, publicUrl }: VaServiceDeps) {
  const vaData = (txn: TransactionRecord) => vaDataOf(txn, publicUrl());
  const vaNumbers = createVaNumbers(store);
  async function findOwn(ctx: MerchantRequest): Promise<TransactionRecord> {
    const svc = ctx.serviceCode;
    const f = createFieldReader(ctx.body, svc);
    const virtualAccountNo = f.str('virtualAccountNo', VA_LOOKUP.virtualAccountNo) as string;
    const trxId = f.str('trxId', VA_LOOKUP.trxId);
    const found = await store.findTransactionByVirtualAccountNo(virtualAccountNo);
    if (!found || found.merchantId !== ctx.merchant.id || (trxId !== undefined && found.partnerReferenceNo !== trxId)) {
      throw snapError('INVALID_BILL', svc, { reason: 'Not Found' });
    }
    return expireIfDue(changer, found, ctx.now, ctx.requestId);
  }

  return {
    async create(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const virtualAccountName = f.str('virtualAccountName', VA_CREATE.virtualAccountName) as string;
      const trxId = f.str('trxId', VA_CREATE.trxId) as string;
      const type = (f.str('virtualAccountTrxType', VA_CREATE.virtualAccountTrxType) ?? 'C') as 'C' | 'O';
      const isClosed = type === 'C';
      const totalAmount = f.money('totalAmount', { ...VA_CREATE.totalAmount, required: isClosed, positive: isClosed });
      const email = f.str('virtualAccountEmail', VA_CREATE.virtualAccountEmail) ?? '';
      const phone = f.str('virtualAccountPhone', VA_CREATE.virtualAccountPhone) ?? '';
      const expiredMs = f.dateTime('expiredDate', VA_CREATE.expiredDate);
      if (expiredMs !== undefined && expiredMs <= ctx.now)
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'expiredDate' });
      const additionalInfo = readAdditionalInfo(f, svc, mode);
      const bankCode = f.str('additionalInfo.bankCode', VA_CREATE['additionalInfo.bankCode']) ?? DEFAULT_BANK_CODE;
      // Production has no sandbox bank: a VA nobody can pay is refused up front.
      if (mode === 'production' && !(await store.findBanks(bankCode)).some((b) => b.status === 'active')) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'additionalInfo.bankCode' });
      }

      // A duplicate trxId is refused by the transaction's insert (below), not read first: it costs
      // the number taken here, which is never reused.
      const { partnerServiceId, customerNo } = await vaNumbers.next(ctx.merchant.id, bankCode);
      const details: VaDetails = {
        partnerServiceId,
        customerNo,
        virtualAccountName,
        virtualAccountEmail: email,
        virtualAccountPhone: phone,
        virtualAccountTrxType: type,
        totalAmount: totalAmount ?? null,
        bankCode,
        fee: feeSnapshotOf(ctx.merchant, 'va'),
        ...(additionalInfo ? { additionalInfo } : {}),
      };
      // The reference may be another instance's of the same millisecond: a collision draws it (and the
      // checkout id) once more (the VA number stays the one allocated above).
      for (let attempt = 0; ; attempt++) {
        const txn: TransactionRecord = {
          referenceNo: newReferenceNo(ctx.now),
          merchantId: ctx.merchant.id,
          kind: 'va',
          partnerReferenceNo: trxId,
          status: '01',
          statusDesc: TRANSACTION_STATUS['01'],
          seq: 1,
          amount: type === 'C' ? (totalAmount?.value ?? null) : null,
          currency: 'IDR',
          paidAmount: null,
          refundedAmount: '0.00',
          feeAmount: '0.00',
          virtualAccountNo: `${partnerServiceId}${customerNo}`,
          billNumber: newBillNumber(),
          expiresAt: expiredMs ?? ctx.now + DEFAULT_EXPIRY_MS,
          paidAt: null,
          checkoutId: newCheckoutId(),
          ...linkFields(ctx),
          details,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        };
        const response = respond(svc, 'Success', { virtualAccountData: vaData(txn) });
        try {
          await store.insertTransaction(txn, recordFor(response));
          return response;
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('partner_reference_no')) {
            throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, { detail: { trxId } });
          }
          if (e instanceof UniqueViolation && isDrawnAgain(e.constraint) && attempt === 0) continue;
          throw e;
        }
      }
    },

    async inquiry(ctx: MerchantRequest): Promise<SnapResponse> {
      const txn = await findOwn(ctx);
      return respond(ctx.serviceCode, 'Successful', {
        virtualAccountData: { ...vaData(txn), latestTransactionStatus: txn.status },
      });
    },

    async status(ctx: MerchantRequest): Promise<SnapResponse> {
      const txn = await findOwn(ctx);
      const d = detailsOf(txn);
      const paid = txn.status === '00' || txn.status === '04';
      return respond(ctx.serviceCode, 'Successful', {
        virtualAccountData: {
          partnerServiceId: d.partnerServiceId,
          customerNo: d.customerNo,
          virtualAccountNo: txn.virtualAccountNo,
          trxId: txn.partnerReferenceNo,
          paymentFlagStatus: paid ? '00' : '01',
          paymentFlagReason: paid ? PAID_REASON : UNPAID_REASON,
          paidAmount: { value: txn.paidAmount ?? '0.00', currency: txn.currency },
          totalAmount: vaData(txn).totalAmount,
          transactionDate: txn.paidAt === null ? '' : formatJakartaTimestamp(txn.paidAt),
          latestTransactionStatus: txn.status,
          transactionStatusDesc: txn.statusDesc ?? TRANSACTION_STATUS[txn.status],
        },
      });
    },

    async update(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const txn = await findOwn(ctx);
      const name = f.str('virtualAccountName', VA_UPDATE.virtualAccountName);
      const d = detailsOf(txn);
      const totalAmount = f.money('totalAmount', {
        ...VA_UPDATE.totalAmount,
        positive: d.virtualAccountTrxType === 'C',
      });
      const expiredMs = f.dateTime('expiredDate', VA_UPDATE.expiredDate);
      if (expiredMs !== undefined && expiredMs <= ctx.now)
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'expiredDate' });
      if (txn.status !== '01') throw snapError('NOT_ALLOWED', svc, { detail: { status: txn.status } });
      const details: VaDetails = {
        ...d,
        ...(name ? { virtualAccountName: name } : {}),
        ...(totalAmount ? { totalAmount } : {}),
      };
      const next: TransactionRecord = {
        ...asVa(txn),
        amount: d.virtualAccountTrxType === 'C' && totalAmount ? totalAmount.value : txn.amount,
        expiresAt: expiredMs ?? txn.expiresAt,
        details,
      };
      const response = respond(svc, 'Successful', { virtualAccountData: vaData(next) });
      const updated = await store.updateTransaction({
        referenceNo: txn.referenceNo,
        expectedSeq: txn.seq,
        at: ctx.now,
        patch: { amount: next.amount, expiresAt: next.expiresAt, details: next.details },
        idempotency: recordFor(response),
      });
      if (!updated) throw snapError('NOT_ALLOWED', svc, { detail: 'VA changed during update' });
      return response;
    },

    /** Deletes a waiting VA; `reason` goes into its status history (an operator's delete says so). */
    async remove(ctx: MerchantRequest, recordFor: RecordFor, reason = 'deleted by merchant'): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const txn = await findOwn(ctx);
      if (txn.status !== '01') throw snapError('NOT_ALLOWED', svc, { detail: { status: txn.status } });
      const d = detailsOf(txn);
      const response = respond(svc, 'Successful', {
        virtualAccountData: {
          partnerServiceId: d.partnerServiceId,
          customerNo: d.customerNo,
          virtualAccountNo: txn.virtualAccountNo,
          trxId: txn.partnerReferenceNo,
          // Echoed, as SNAP answers it (DOKU's library reads it), within create's bound on it.
          additionalInfo: createFieldReader(ctx.body, svc).passthrough('additionalInfo') ?? {},
        },
      });
      try {
        await changer.change(
          txn,
          {
            to: '05',
            statusDesc: 'Deleted',
            reason,
            idempotency: recordFor(response),
            requestId: ctx.requestId,
          },
          ctx.now,
        );
      } catch (e) {
        // Paid or deleted by a concurrent request meanwhile.
        if (e instanceof IllegalStatusChange) throw snapError('NOT_ALLOWED', svc, { detail: { status: e.from } });
        throw e;
      }
      return response;
    },
  };
}

export type VaService = ReturnType<typeof createVaService>;

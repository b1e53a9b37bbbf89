import { formatJakartaTimestamp, snapError, TRANSACTION_STATUS } from '@snapgate/snap';
import type { Mode } from '../config.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import {
  type QrisDetails,
  type QrisTransaction,
  type TransactionRecord,
  UniqueViolation,
  type UpstreamRef,
} from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { cancelTransaction } from './cancel.ts';
import { checkoutUrlOf, isDrawnAgain, newCheckoutId, qrUrlOf, readAdditionalInfo } from './checkout-link.ts';
import { expireIfDue } from './expiry.ts';
import { feeSnapshotOf } from './fees.ts';
import { createFieldReader } from './fields.ts';
import { type RecordFor, type SnapResponse, snapOk } from './idempotency.ts';
import { newBillNumber, newReferenceNo } from './ids.ts';
import { payerOf } from './notification-body.ts';
import { findOwnTransaction } from './own-transaction.ts';
import { buildQrisContent, parseQrisContent, qrisAmountFits } from './qris-content.ts';
import { refundTransaction } from './refund.ts';
import { QR_CANCEL, QR_GENERATE, QR_QUERY, QR_REFERENCES, QR_REFUND } from './snap-fields.ts';
import { linkFields, type MerchantRequest } from './snap-request.ts';
import type { StatusChanger } from './status-change.ts';
import {
  failIssued,
  keepIssued,
  newExternalId,
  RECONCILE_AFTER_MS,
  type UpstreamAcquirer,
  upstreamOf,
} from './upstream.ts';

const DEFAULT_VALIDITY_MS = 30 * 60_000;

/** QRIS generate's answer (a module function: no closure made per request). */
function generated(
  svc: string,
  baseUrl: string,
  a: { referenceNo: string; partnerReferenceNo: string; merchantName: string; expiresAt: number; checkoutId: string },
  qrContent: string,
): SnapResponse {
  return snapOk(svc, {
    referenceNo: a.referenceNo,
    partnerReferenceNo: a.partnerReferenceNo,
    qrContent,
    qrUrl: qrUrlOf(baseUrl, a.checkoutId),
    merchantName: a.merchantName,
    additionalInfo: {
      validityPeriod: formatJakartaTimestamp(a.expiresAt),
      checkoutUrl: checkoutUrlOf(baseUrl, a.checkoutId),
    },
  });
}

export interface QrisServiceDeps {
  store: Store;
  changer: StatusChanger;
  /** The gateway's public address, read when a QRIS is made (it may follow the bound port). */
  publicUrl: () => string;
  /** Forwards the QRIS of merchants whose acquirer issues them. */
  upstream: UpstreamAcquirer;
  /** Production issues no QRIS with a made-up NMID (default: sandbox). */
  mode?: Mode;
}

export function createQrisService(deps: QrisServiceDeps) {
  const { store, changer, publicUrl, upstream } = deps;
  /** The acquirer that issues this merchant's QRIS, when one is set with outbound settings. */
  async function issuingAcquirer(ctx: MerchantRequest): Promise<ProviderRecord | undefined> {
    const id = ctx.merchant.qrisProvider;
    const p = id ? await store.findProviderById(id) : undefined;
    if (!p?.outbound) return undefined;
    if (p.status !== 'active') {
      throw snapError('EXTERNAL_SERVER_ERROR', ctx.serviceCode, { detail: { providerId: p.id, status: p.status } });
    }
    return p;
  }

  /** The acquirer of a QRIS it issued, to forward cancel and refund to. */
  async function acquirerOf(txn: TransactionRecord): Promise<ProviderRecord | undefined> {
    const ref = upstreamOf(txn);
    return ref ? store.findProviderById(ref.providerId) : undefined;
  }

  /** docs/upstream.md: recorded first, then issued by the acquirer (or failed: see failIssued). */
  async function generateUpstream(
    ctx: MerchantRequest,
    acquirer: ProviderRecord,
    txn: QrisTransaction,
    respond: (qrContent: string) => SnapResponse,
    recordFor: RecordFor,
  ): Promise<SnapResponse> {
    await store.insertTransaction(txn);
    let issued: { qrContent: string; referenceNo: string | undefined };
    try {
      issued = await upstream.generate(acquirer, txn, ctx.serviceCode, ctx.requestId);
    } catch (e) {
      await failIssued(changer, txn, `acquirer ${acquirer.id}`, e as Error, ctx.now);
      throw e;
    }
    const response = respond(issued.qrContent);
    const details = (current: QrisTransaction): QrisDetails => ({
      ...current.details,
      qrContent: issued.qrContent,
      upstream: { ...(current.details.upstream as UpstreamRef), referenceNo: issued.referenceNo },
    });
    await keepIssued(store, txn, ctx.now, details, recordFor(response));
    return response;
  }

  /** The merchant's QRIS by either reference; another merchant's is not found (docs/protocol.md#qris). */
  const findOwn = (ctx: MerchantRequest) => findOwnTransaction(deps, ctx, 'qris', QR_REFERENCES);

  return {
    async generate(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const partnerReferenceNo = f.str('partnerReferenceNo', QR_GENERATE.partnerReferenceNo) as string;
      const amount = f.money('amount', QR_GENERATE.amount);
      if (!amount || !qrisAmountFits(amount.value))
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'amount.value' });
      const merchantRef = f.str('merchantId', QR_GENERATE.merchantId);
      const terminalId = f.str('terminalId', QR_GENERATE.terminalId);
      const storeId = f.str('storeId', QR_GENERATE.storeId);
      const validityMs = f.dateTime('validityPeriod', QR_GENERATE.validityPeriod);
      if (validityMs !== undefined && validityMs <= ctx.now) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'validityPeriod' });
      }
      const additionalInfo = readAdditionalInfo(f, svc, deps.mode);
      const expiresAt = validityMs ?? ctx.now + DEFAULT_VALIDITY_MS;
      const m = ctx.merchant;
      const acquirer = await issuingAcquirer(ctx);
      // docs/protocol.md#qris-in-production: a QRIS with an NMID the gateway made up is no real
      // payer's to pay; production issues one only with the operator's NMID or an acquirer.
      if (deps.mode === 'production' && !acquirer && m.nmidGenerated) {
        throw snapError('NOT_ALLOWED', svc, {
          reason: 'Merchant Has No NMID Or Acquirer',
          detail: { merchantId: m.id, qrisProvider: m.qrisProvider },
        });
      }

      for (let attempt = 0; ; attempt++) {
        const referenceNo = newReferenceNo(ctx.now);
        const checkoutId = newCheckoutId();
        const answer = { referenceNo, partnerReferenceNo, merchantName: m.merchantName, expiresAt, checkoutId };
        const qrContent = acquirer
          ? ''
          : buildQrisContent({
              nmid: m.nmid,
              merchantName: m.merchantName,
              merchantCity: m.merchantCity,
              mcc: m.mcc,
              amount: amount.value,
              referenceNo,
              terminalId,
              storeId,
              criteria: m.qrisCriteria,
            });
        const txn: QrisTransaction = {
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
          // An acquirer's QRIS is settled with the acquirer a minute past its validity, not expired
          // by our clock: its due time is that of the reconciliation (the validity is in details).
          expiresAt: acquirer ? expiresAt + RECONCILE_AFTER_MS : expiresAt,
          paidAt: null,
          checkoutId,
          ...linkFields(ctx),
          details: {
            qrContent,
            fee: feeSnapshotOf(m, 'qris'),
            merchantRef,
            terminalId,
            storeId,
            additionalInfo,
            ...(acquirer
              ? { upstream: { providerId: acquirer.id, externalId: newExternalId(), validUntil: expiresAt } }
              : {}),
          },
          createdAt: ctx.now,
          updatedAt: ctx.now,
        };
        try {
          if (acquirer) {
            const respond = (qr: string) => generated(svc, publicUrl(), answer, qr);
            return await generateUpstream(ctx, acquirer, txn, respond, recordFor);
          }
          const response = generated(svc, publicUrl(), answer, qrContent);
          await store.insertTransaction(txn, recordFor(response));
          return response;
        } catch (e) {
          if (e instanceof UniqueViolation && e.constraint.includes('partner_reference_no')) {
            // Its twin (a retry with the same X-EXTERNAL-ID, say) still waits for the acquirer: the
            // answer is not known yet, so this is a conflict, not a duplicate order.
            const twin = await store.findTransactionByPartnerRef(m.id, 'qris', partnerReferenceNo);
            if (twin && upstreamOf(twin) && twin.kind === 'qris' && twin.details.qrContent === '') {
              throw snapError('CONFLICT', svc, { detail: { inFlight: twin.referenceNo } });
            }
            throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, { detail: { partnerReferenceNo } });
          }
          // A referenceNo (or checkout id) collision is astronomically rare; draw both again once.
          if (e instanceof UniqueViolation && isDrawnAgain(e.constraint) && attempt === 0) continue;
          throw e;
        }
      }
    },

    async query(ctx: MerchantRequest): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const txn = await findOwn(ctx);
      f.str('serviceCode', QR_QUERY.serviceCode);
      const paid = txn.paidAt !== null;
      const payer = payerOf(txn);
      return snapOk(svc, {
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

    async cancel(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const txn = await findOwn(ctx);
      const reason = f.str('reason', QR_CANCEL.reason);
      return cancelTransaction(deps, ctx, recordFor, {
        txn,
        reason,
        async forward(current) {
          const acquirer = await acquirerOf(current);
          if (acquirer) await upstream.cancel(acquirer, current, svc, reason, ctx.requestId);
          return acquirer !== undefined;
        },
      });
    },

    async refund(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      f.str('originalPartnerReferenceNo', QR_REFUND.originalPartnerReferenceNo);
      const partnerRefundNo = f.str('partnerRefundNo', QR_REFUND.partnerRefundNo) as string;
      const refundAmount = f.money('refundAmount', QR_REFUND.refundAmount);
      const reason = f.str('reason', QR_REFUND.reason) ?? null;
      if (!refundAmount) throw snapError('INVALID_MANDATORY_FIELD', svc, { field: 'refundAmount' });
      const txn = await findOwn(ctx);
      return refundTransaction(deps, ctx, recordFor, {
        txn,
        partnerRefundNo,
        refundAmount,
        reason,
        async forward(current) {
          const acquirer = await acquirerOf(current);
          if (!acquirer) return false;
          const refund = { merchantId: ctx.merchant.id, partnerRefundNo, amount: refundAmount.value, reason };
          await upstream.refund(acquirer, current, svc, refund, ctx.requestId);
          return true;
        },
      });
    },

    /** Sandbox: notify the current status again (01 → 01), by referenceNo or qrContent. */
    async renotify(ref: { referenceNo?: string; qrContent?: string }, nowMs: number, requestId?: string) {
      const referenceNo = ref.qrContent === undefined ? ref.referenceNo : parseQrisContent(ref.qrContent)?.referenceNo;
      const found = referenceNo ? await store.findTransaction(referenceNo) : undefined;
      if (found?.kind !== 'qris') return undefined;
      const txn = await expireIfDue(changer, found, nowMs, requestId);
      return changer.change(txn, { to: '01', reason: 'sandbox re-notify', renotify: true, requestId }, nowMs);
    },
  };
}

export type QrisService = ReturnType<typeof createQrisService>;

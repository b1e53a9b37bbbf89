import { createHash } from 'node:crypto';
import { formatJakartaTimestamp, isTransactionStatus, snapError, type TransactionStatus } from '@snapgate/snap';
import type { Logger } from '../logger.ts';
import type { StatusChanger } from '../payments/status-change.ts';
import { newExternalId, type UpstreamAcquirer, type UpstreamRef, upstreamOf } from '../payments/upstream.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { type SnapAnswer, SnapCallTimeout, type SnapClient, type SnapTarget } from './snap-client.ts';

/** A reconciliation that settled nothing is tried again after 30 s, 1 min, 2 min, … at most 1 h. */
const reconcileBackoffMs = (attempts: number) => Math.min(30_000 * 2 ** Math.min(attempts, 7), 3_600_000);
const NUMERIC = /^\d{1,32}$/;

export function targetOf(p: ProviderRecord): SnapTarget {
  if (!p.outbound) throw new TypeError(`provider ${p.id} has no outbound settings`);
  // The outbound settings are exactly a SNAP target's credentials and paths.
  return { id: `provider:${p.id}`, ...p.outbound };
}

export interface UpstreamAcquirerDeps {
  store: Store;
  changer: StatusChanger;
  client: SnapClient;
  /** Bounds one merchant request's whole outbound exchange (token and call). */
  timeoutMs: number;
  logger: Logger;
}

/**
 * snapgate as a client of an upstream acquirer: every call a merchant's QRIS needs there (generate,
 * cancel, refund, query), each answered 504 xx00 when the acquirer is too slow and 500 xx02 when it
 * refuses or does not answer SNAP.
 */
export function createUpstreamAcquirer({
  store,
  changer,
  client,
  timeoutMs,
  logger,
}: UpstreamAcquirerDeps): UpstreamAcquirer {
  /** One call; a SNAP refusal or a non-SNAP answer is the merchant's 500 xx02, a timeout 504 xx00. */
  async function call(
    provider: ProviderRecord,
    svc: string,
    path: string,
    body: Record<string, unknown>,
    externalId: string,
    /** The merchant request this call is made for (X-Request-Id); an answer taken as success. */
    options: { requestId?: string | undefined; isAccepted?: (a: SnapAnswer) => boolean } = {},
  ): Promise<SnapAnswer> {
    let answer: SnapAnswer;
    try {
      answer = await client.call(
        targetOf(provider),
        { path, body, externalId },
        { timeoutMs, requestId: options.requestId },
      );
    } catch (e) {
      if (e instanceof SnapCallTimeout) {
        throw snapError('TIMEOUT', svc, { detail: { providerId: provider.id, path }, cause: e });
      }
      throw snapError('EXTERNAL_SERVER_ERROR', svc, {
        detail: { providerId: provider.id, path, error: (e as Error).message },
      });
    }
    const isSuccess = answer.httpStatus === 200 && String(answer.body.responseCode).startsWith('200');
    if (!isSuccess && !options.isAccepted?.(answer)) {
      throw snapError('EXTERNAL_SERVER_ERROR', svc, {
        detail: {
          providerId: provider.id,
          path,
          httpStatus: answer.httpStatus,
          responseCode: answer.body.responseCode,
        },
      });
    }
    return answer;
  }

  return {
    /**
     * Asks the acquirer for the QR of a transaction already recorded here (so that a QR it issued
     * is never unknown to snapgate); returns the acquirer's qrContent, unchanged.
     */
    async generate(
      provider: ProviderRecord,
      txn: TransactionRecord,
      svc: string,
      requestId?: string,
    ): Promise<{ qrContent: string; referenceNo: string | undefined }> {
      const upstream = upstreamOf(txn) as UpstreamRef;
      const answer = await call(
        provider,
        svc,
        'qr/qr-mpm-generate',
        {
          partnerReferenceNo: txn.referenceNo,
          amount: { value: txn.amount, currency: txn.currency },
          merchantId: provider.outbound?.partnerId,
          validityPeriod: formatJakartaTimestamp(upstream.validUntil),
        },
        upstream.externalId,
        { requestId },
      );
      const qrContent = answer.body.qrContent;
      if (typeof qrContent !== 'string' || qrContent === '') {
        throw snapError('EXTERNAL_SERVER_ERROR', svc, { detail: { providerId: provider.id, missing: 'qrContent' } });
      }
      const referenceNo = typeof answer.body.referenceNo === 'string' ? answer.body.referenceNo : undefined;
      return { qrContent, referenceNo };
    },

    /** Cancel (77) at the acquirer first; the caller applies it locally only when this returns. */
    async cancel(
      provider: ProviderRecord,
      txn: TransactionRecord,
      svc: string,
      reason: string | undefined,
      requestId?: string,
    ) {
      await call(
        provider,
        svc,
        'qr/qr-mpm-cancel',
        {
          originalPartnerReferenceNo: txn.referenceNo,
          originalReferenceNo: upstreamOf(txn)?.referenceNo,
          reason: reason ?? 'canceled by merchant',
        },
        newExternalId(),
        { requestId },
      );
    },

    /**
     * Refund (78) at the acquirer first; the caller applies it locally only when this returns. The
     * acquirer sees one stable partnerRefundNo per merchant refund, so a retry after a timeout is
     * a duplicate there (409), which means it already took this refund.
     */
    async refund(
      provider: ProviderRecord,
      txn: TransactionRecord,
      svc: string,
      refund: { merchantId: string; partnerRefundNo: string; amount: string; reason: string | null },
      requestId?: string,
    ) {
      const stableRefundNo = `SG${createHash('sha256').update(`${refund.merchantId}:${refund.partnerRefundNo}`).digest('hex').slice(0, 30)}`;
      await call(
        provider,
        svc,
        'qr/qr-mpm-refund',
        {
          originalPartnerReferenceNo: txn.referenceNo,
          originalReferenceNo: upstreamOf(txn)?.referenceNo,
          partnerRefundNo: stableRefundNo,
          refundAmount: { value: refund.amount, currency: txn.currency },
          reason: refund.reason ?? 'refund',
        },
        newExternalId(),
        { requestId, isAccepted: (a) => a.httpStatus === 409 },
      );
    },

    /**
     * Reconciliation: a QRIS the acquirer issued, still open a minute after its validityPeriod,
     * is queried there (51) and the answer applied, so a lost notify is recovered. If the acquirer
     * still reports it open, it is canceled there first (so it can no longer be paid behind our
     * back) and expires here. Whatever cannot be settled now (the acquirer down, an answer the
     * status machine refuses, settings removed) is tried again later, backing off: it never holds
     * up the sweep or spins. Returns the transaction as it is after.
     */
    async reconcile(txn: TransactionRecord, nowMs: number): Promise<TransactionRecord> {
      const upstream = upstreamOf(txn) as UpstreamRef;
      const provider = await store.findProviderById(upstream.providerId);
      const settled = provider?.outbound ? await settle(provider, txn, upstream, nowMs) : undefined;
      if (settled) return settled;
      logger.warn(
        {
          referenceNo: txn.referenceNo,
          providerId: upstream.providerId,
          attempts: (upstream.reconcileAttempts ?? 0) + 1,
        },
        'reconciliation settled nothing; trying again later',
      );
      const attempts = (upstream.reconcileAttempts ?? 0) + 1;
      const later = await store.updateTransaction({
        referenceNo: txn.referenceNo,
        expectedSeq: txn.seq,
        at: nowMs,
        patch: {
          expiresAt: nowMs + reconcileBackoffMs(attempts - 1),
          details: { ...txn.details, upstream: { ...upstream, reconcileAttempts: attempts } },
        },
      });
      return later ?? ((await store.findTransaction(txn.referenceNo)) as TransactionRecord);
    },
  };

  async function settle(
    provider: ProviderRecord,
    txn: TransactionRecord,
    upstream: UpstreamRef,
    nowMs: number,
  ): Promise<TransactionRecord | undefined> {
    const ref = { originalPartnerReferenceNo: txn.referenceNo, originalReferenceNo: upstream.referenceNo };
    const text = (v: unknown) => (typeof v === 'string' ? v : '');
    try {
      const answer = await call(provider, '51', 'qr/qr-mpm-query', { ...ref, serviceCode: '47' }, newExternalId());
      const reported = text(answer.body.latestTransactionStatus);
      const amount = (answer.body.amount as { value?: unknown } | undefined)?.value;
      if (amount !== undefined && amount !== txn.amount) {
        logger.warn(
          { referenceNo: txn.referenceNo, providerId: provider.id },
          'reconciliation: the acquirer reports another amount',
        );
        return undefined;
      }
      const isOpen = !isTransactionStatus(reported) || ['01', '02', '03'].includes(reported);
      if (isOpen) await call(provider, '77', 'qr/qr-mpm-cancel', { ...ref, reason: 'expired' }, newExternalId());
      const payer = (answer.body.additionalInfo ?? {}) as Record<string, unknown>;
      const numeric = (v: unknown, fallback: string) => (NUMERIC.test(text(v)) ? text(v) : fallback);
      return await changer.change(
        txn,
        {
          to: isOpen ? '06' : (reported as TransactionStatus),
          ...(isOpen ? { statusDesc: 'Expired' } : {}),
          reason: `reconciled with acquirer ${provider.id} (reported ${reported || 'nothing'})`,
          providerId: provider.id,
          patch: (current) => ({
            ...(reported === '00' ? { paidAmount: current.amount, paidAt: nowMs } : {}),
            details: {
              ...current.details,
              payer: {
                payerIssuer: numeric(payer.payerIssuer, provider.bankCode),
                payerName: text(payer.payerName).slice(0, 100),
                payerRefId: numeric(payer.payerRefId, ''),
              },
            },
          }),
        },
        nowMs,
      );
    } catch (err) {
      logger.warn({ err, referenceNo: txn.referenceNo, providerId: provider.id }, 'reconciliation failed');
      return undefined;
    }
  }
}

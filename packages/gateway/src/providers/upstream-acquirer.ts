import { formatJakartaTimestamp, snapError } from '@snapgate/snap';
import { type UpstreamAcquirer, type UpstreamRef, upstreamOf } from '../payments/upstream.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import {
  createUpstreamCaller,
  digitsOr,
  forwardCalls,
  type ProviderCalls,
  reconcileUpstream,
  reportedPayer,
  type UpstreamDeps,
} from './upstream-call.ts';

/** A QRIS at its acquirer: asked after with its query (51), ended with its cancel (77), refunded (78). */
const QRIS_CALLS: ProviderCalls = {
  who: 'acquirer',
  query: { svc: '51', path: 'qr/qr-mpm-query', serviceCode: '47' },
  cancel: { svc: '77', path: 'qr/qr-mpm-cancel' },
  refund: { path: 'qr/qr-mpm-refund' },
  payerOf: (body, provider) =>
    reportedPayer(
      body,
      digitsOr((body.additionalInfo as Record<string, unknown> | undefined)?.payerIssuer, provider.bankCode),
    ),
};

/**
 * snapgate as a client of an upstream acquirer: every call a merchant's QRIS needs there (generate,
 * cancel, refund, query), each answered 504 xx00 when the acquirer is too slow and 500 xx02 when it
 * refuses or does not answer SNAP.
 */
export function createUpstreamAcquirer({ store, changer, client, timeoutMs, logger }: UpstreamDeps): UpstreamAcquirer {
  const call = createUpstreamCaller({ client, timeoutMs });

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

    /** Cancel (77) and refund (78) at the acquirer first. */
    ...forwardCalls(call, QRIS_CALLS),

    /** Reconciliation (docs/upstream.md#qris-issued-by-the-acquirer): queried (51), and canceled (77) if still open. */
    reconcile: (txn: TransactionRecord, nowMs: number) =>
      reconcileUpstream({ store, changer, logger, call }, QRIS_CALLS, txn, nowMs),
  };
}

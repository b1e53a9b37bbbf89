import { createHash } from 'node:crypto';
import { isSnapError, jakartaDay } from '@snapgate/snap';
import { assertNever } from '../methods/index.ts';
import type { SnapResponse } from '../payments/idempotency.ts';
import type { ProviderRequest } from '../payments/snap-request.ts';
import type { AppliedFromReport } from '../records/book-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { InboundService } from './inbound-service.ts';

// docs/books.md#reconciliation: a payment a provider's report shows and snapgate missed (its notify
// or payment flag was lost) is applied through the same door the provider would have used: the
// acquirer's notify (52) or the bank's payment flag (25), so the status change, its ledger entry
// and the merchant's callback are exactly those of a payment the provider told us about.

export interface ReportedPayment {
  amount: string;
  /** The acquirer's reference, or the bank's paymentRequestId, when the report names it. */
  providerReference: string | null;
  /** Names the request (its idempotency key): the run and the line. */
  source: string;
}

/** The outcome: applied, or refused with the provider door's own SNAP answer. */
export type ApplyOutcome = { applied: true } | { applied: false; responseCode: string; responseMessage: string };

/** A provider's door into the gateway (its notify, its payment flag): the same shape for each. */
type Door = InboundService['qrisNotify'];

/** The provider's own door for this method's payment, and the body it would have sent through it. */
function doorOf(
  txn: TransactionRecord,
  reported: ReportedPayment,
  inbound: InboundService,
): { body: Record<string, unknown>; serviceCode: string; door: Door } {
  const paid = { value: reported.amount, currency: 'IDR' };
  // An acquirer's notify (52) and a wallet's (56) say a payment the same way.
  const notice = {
    originalPartnerReferenceNo: txn.referenceNo,
    ...(reported.providerReference ? { originalReferenceNo: reported.providerReference } : {}),
    latestTransactionStatus: '00',
    transactionStatusDesc: 'Success (from the provider’s report)',
    amount: paid,
  };
  switch (txn.kind) {
    case 'qris':
      return {
        body: notice,
        serviceCode: '52',
        door: (ctx, recordFor) => inbound.qrisNotify(ctx, recordFor),
      };
    case 'va':
      return {
        body: {
          partnerServiceId: txn.details.partnerServiceId,
          customerNo: txn.details.customerNo,
          virtualAccountNo: txn.virtualAccountNo,
          paymentRequestId: reported.providerReference ?? reported.source,
          paidAmount: paid,
          referenceNo: reported.providerReference ?? undefined,
        },
        serviceCode: '25',
        door: (ctx, recordFor) => inbound.vaPayment(ctx, recordFor),
      };
    case 'ewallet':
      return {
        body: notice,
        serviceCode: '56',
        door: (ctx, recordFor) => inbound.ewalletNotify(ctx, recordFor),
      };
    default:
      return assertNever(txn, 'payment method');
  }
}

export function createReportedPaymentApplier({ inbound }: { inbound: InboundService }) {
  return async function applyReportedPayment(
    provider: ProviderRecord,
    txn: TransactionRecord,
    reported: ReportedPayment,
    at: { now: number; requestId: string; applied: AppliedFromReport },
  ): Promise<ApplyOutcome> {
    const { body, serviceCode, door } = doorOf(txn, reported, inbound);
    const ctx: ProviderRequest = {
      provider,
      body,
      serviceCode,
      idempotencyKey: { merchantId: provider.id, day: jakartaDay(at.now), externalId: reported.source },
      requestHash: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
      now: at.now,
      requestId: at.requestId,
      applied: at.applied,
    };
    const recordFor = (response: SnapResponse) => ({
      ...ctx.idempotencyKey,
      requestHash: ctx.requestHash,
      httpStatus: response.httpStatus,
      responseBody: response.body,
    });
    try {
      await door(ctx, recordFor);
      return { applied: true };
    } catch (e) {
      if (!isSnapError(e)) throw e;
      return { applied: false, responseCode: e.responseCode, responseMessage: e.responseMessage };
    }
  };
}

export type ReportedPaymentApplier = ReturnType<typeof createReportedPaymentApplier>;

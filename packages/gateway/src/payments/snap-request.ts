import type { AppliedFromReport } from '../records/book-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { IdempotencyKey, MerchantRecord } from '../records/records.ts';

/**
 * An authenticated SNAP request as the domain sees it: who is calling, the parsed body and the
 * idempotency key. The HTTP guard builds it; services never see HTTP.
 */
export interface SnapRequestBase {
  body: Record<string, unknown>;
  serviceCode: string;
  /** X-EXTERNAL-ID, unique per client (merchant or provider) per Jakarta day. */
  idempotencyKey: IdempotencyKey;
  /** Hash of method, target and body: a repeat must match it to be replayed. */
  requestHash: string;
  now: number;
  /** X-Request-Id of this request: the notification it causes and the upstream calls it makes carry it. */
  requestId: string;
}

/** A call by a merchant (the payment API). */
export interface MerchantRequest extends SnapRequestBase {
  merchant: MerchantRecord;
  /** `Authorization-Customer: Bearer …`: a bound customer's token (docs/ewallets.md#account-binding). */
  customerToken?: string | undefined;
  /** Set when a payer pays through a payment link (docs/payment-links.md): the transaction names it. */
  paymentLink?: { id: string; singleUse: boolean } | undefined;
}

/** A call by an upstream provider (a bank's VA inquiry and payment flag, an acquirer's notify). */
export interface ProviderRequest extends SnapRequestBase {
  provider: ProviderRecord;
  /**
   * Set when the call is the gateway's own, made for the provider from a line of its report
   * (docs/books.md#apply): who applied it, from which run and line. The payment then carries no
   * payer the provider did not report.
   */
  applied?: AppliedFromReport;
}

/** What a payment made through a payment link keeps of it (nothing for any other payment). */
export function linkFields(ctx: MerchantRequest): { paymentLinkId?: string; paymentLinkOnce?: string } {
  const link = ctx.paymentLink;
  if (!link) return {};
  return link.singleUse ? { paymentLinkId: link.id, paymentLinkOnce: link.id } : { paymentLinkId: link.id };
}

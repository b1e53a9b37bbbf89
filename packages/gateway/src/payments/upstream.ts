import { randomInt } from 'node:crypto';
import { methodOfTxn } from '../methods/index.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord, UpstreamRef } from '../records/records.ts';

// A merchant's QRIS may be issued by an upstream acquirer. payments/ says what it needs of one
// (this interface, as it says what it needs of the dispatcher); providers/ implements it, so the
// arrows point one way: providers/ → payments/.

export type { UpstreamRef };

export const upstreamOf = (txn: TransactionRecord): UpstreamRef | undefined => methodOfTxn(txn).upstreamOf(txn);

/** Reconciliation asks the acquirer this long after a QRIS's validityPeriod. */
export const RECONCILE_AFTER_MS = 60_000;

/** A numeric X-EXTERNAL-ID for a call snapgate makes: time-ordered, unique enough for one client in one day. */
export const newExternalId = () => `${Date.now()}${String(randomInt(1_000_000)).padStart(6, '0')}`;

/**
 * The calls a merchant's QRIS needs at the acquirer that issues it. Each throws the merchant's SNAP
 * error (504 xx00 when the acquirer is too slow, 500 xx02 when it refuses or does not speak SNAP).
 */
export interface UpstreamAcquirer {
  /** The acquirer's QR for a transaction already recorded here; its qrContent, unchanged. */
  generate(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    requestId?: string,
  ): Promise<{ qrContent: string; referenceNo: string | undefined }>;
  cancel(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    reason: string | undefined,
    requestId?: string,
  ): Promise<void>;
  refund(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    refund: { merchantId: string; partnerRefundNo: string; amount: string; reason: string | null },
    requestId?: string,
  ): Promise<void>;
  /** Asks the acquirer what became of a QRIS past its validity, and applies it; the row as it is now. */
  reconcile(txn: TransactionRecord, nowMs: number): Promise<TransactionRecord>;
}

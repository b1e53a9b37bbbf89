import { randomInt } from 'node:crypto';
import { methodOfTxn } from '../methods/index.ts';
import type { AccountBinding } from '../records/binding-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { IdempotencyRecord, TransactionRecord, UpstreamRef } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import type { StatusChanger } from './status-change.ts';

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
 * docs/upstream.md: a payment a provider issues is recorded here before the provider is called, so
 * one it issued is never unknown here. A failed call leaves it 06 `Upstream Failed`, not holding the
 * merchant's partnerReferenceNo (the merchant may retry the order), and tells the merchant nothing
 * more than the error it is answered with.
 */
export async function failIssued(
  changer: StatusChanger,
  txn: TransactionRecord,
  who: string,
  error: Error,
  nowMs: number,
): Promise<void> {
  await changer.change(
    txn,
    {
      to: '06',
      statusDesc: 'Upstream Failed',
      reason: `${who}: ${error.message}`,
      notify: false,
      patch: (current) => ({
        partnerReferenceNo: `${current.partnerReferenceNo}#${current.referenceNo}`,
        details: { ...current.details, partnerReferenceNo: current.partnerReferenceNo },
      }),
    },
    nowMs,
  );
}

/**
 * Keeps what the provider answered (`details` of the transaction as it is then) with the merchant's
 * answer: at whatever seq the transaction has, since the provider's notify may already have moved it on.
 */
export async function keepIssued<T extends TransactionRecord>(
  store: Store,
  txn: T,
  nowMs: number,
  details: (current: T) => T['details'],
  idempotency: IdempotencyRecord,
): Promise<void> {
  for (let current = txn; ; ) {
    const written = await store.updateTransaction({
      referenceNo: txn.referenceNo,
      expectedSeq: current.seq,
      at: nowMs,
      patch: { details: details(current) },
      idempotency,
    });
    if (written) return;
    current = (await store.findTransaction(txn.referenceNo)) as T;
  }
}

/** A merchant refund as the provider that took the payment is asked for it. */
export interface UpstreamRefund {
  merchantId: string;
  partnerRefundNo: string;
  amount: string;
  reason: string | null;
}

/**
 * What every provider that serves a merchant's payment is asked for: each call throws the merchant's
 * SNAP error (504 xx00 when the provider is too slow, 500 xx02 when it refuses or does not speak SNAP).
 */
export interface UpstreamProvider {
  /** A cancel there first; the caller applies it locally only when this returns. */
  cancel(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    reason: string | undefined,
    requestId?: string,
  ): Promise<void>;
  /** A refund there first; the caller applies it locally only when this returns. */
  refund(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    refund: UpstreamRefund,
    requestId?: string,
  ): Promise<void>;
  /** Asks the provider what became of a payment past its validity, and applies it; the row as it is now. */
  reconcile(txn: TransactionRecord, nowMs: number): Promise<TransactionRecord>;
}

/** The calls a merchant's QRIS needs at the acquirer that issues it. */
export interface UpstreamAcquirer extends UpstreamProvider {
  /** The acquirer's QR for a transaction already recorded here; its qrContent, unchanged. */
  generate(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    requestId?: string,
  ): Promise<{ qrContent: string; referenceNo: string | undefined }>;
}

/** Where the payer authorises an e-wallet payment, as its wallet answered (docs/ewallets.md#connecting-a-wallet). */
export interface WalletRedirect {
  /** Always given for a payment with a redirect; for a bound payment, only when the wallet asks the payer. */
  webRedirectUrl: string | undefined;
  /** The wallet app's own link (a deep link), when the wallet gives one. */
  appRedirectUrl: string | undefined;
  /** The wallet's reference of the payment. */
  referenceNo: string | undefined;
}

/** A customer's token at a wallet, as it gave it (B2B2C): with when each part lapses. */
export interface WalletCustomerToken {
  accessToken: string;
  accessTokenExpiresAt: number;
  /** `null` when the wallet gives none: the binding then ends with its access token. */
  refreshToken: string | null;
  refreshTokenExpiresAt: number | null;
}

/** The calls an e-wallet payment needs at its wallet. */
export interface UpstreamWallet extends UpstreamProvider {
  /**
   * The wallet's payment (54) for a transaction already recorded here: the payer comes back to
   * `returnUrl`, the wallet notifies `notifyUrl`. A bound payment carries the customer's token there.
   */
  pay(
    provider: ProviderRecord,
    txn: TransactionRecord,
    svc: string,
    urls: { returnUrl: string; notifyUrl: string },
    options?: { requestId?: string | undefined; customerToken?: string | undefined },
  ): Promise<WalletRedirect>;
  /**
   * The wallet's binding (07) for one recorded here: the wallet's page where the customer answers,
   * who comes back to `returnUrl` with the wallet's authCode.
   */
  bind(
    provider: ProviderRecord,
    binding: AccountBinding,
    svc: string,
    returnUrl: string,
    requestId?: string,
  ): Promise<{ redirectUrl: string; referenceNo: string | undefined }>;
  /** The customer's token at the wallet, for its authCode or its refresh token (74). */
  customerToken(
    provider: ProviderRecord,
    grant: { authCode: string } | { refreshToken: string },
    svc: string,
    nowMs: number,
  ): Promise<WalletCustomerToken>;
  /**
   * The binding ended at the wallet (09), with the customer's token there: true, or false when
   * the wallet answers that it takes not that token (`401 xx02`).
   */
  unbind(
    provider: ProviderRecord,
    binding: AccountBinding,
    customerToken: string,
    svc: string,
    requestId?: string,
  ): Promise<boolean>;
}

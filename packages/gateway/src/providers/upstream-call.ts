import { createHash } from 'node:crypto';
import { compareMoney, isTransactionStatus, snapError, type TransactionStatus } from '@snapgate/snap';
import type { Logger } from '../logger.ts';
import type { Payer } from '../payments/notification-body.ts';
import type { StatusChanger } from '../payments/status-change.ts';
import { newExternalId, type UpstreamProvider, type UpstreamRef, upstreamOf } from '../payments/upstream.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { type SnapAnswer, SnapCallTimeout, type SnapClient, type SnapTarget } from './snap-client.ts';

/** A reconciliation that settled nothing is tried again after 30 s, 1 min, 2 min, … at most 1 h. */
const reconcileBackoffMs = (attempts: number) => Math.min(30_000 * 2 ** Math.min(attempts, 7), 3_600_000);

export function targetOf(p: ProviderRecord): SnapTarget {
  if (!p.outbound) throw new TypeError(`provider ${p.id} has no outbound settings`);
  // The outbound settings are exactly a SNAP target's credentials and paths.
  return { id: `provider:${p.id}`, ...p.outbound };
}

export interface UpstreamCallOptions {
  /** The merchant request this call is made for (X-Request-Id). */
  requestId?: string | undefined;
  /** An answer taken as success besides a 200 with a `200xxxx` code (a refund's duplicate, say). */
  isAccepted?: (a: SnapAnswer) => boolean;
  /** Headers the signature does not cover: the customer's token at a wallet. */
  headers?: Record<string, string>;
}

/**
 * One exchange with a provider, as the merchant is answered for it: a SNAP refusal or an answer
 * that is not SNAP is the merchant's `500 xx02`, a timeout (token and call together, no retry
 * inside) its `504 xx00`.
 */
async function answerOf(
  provider: ProviderRecord,
  svc: string,
  path: string,
  send: () => Promise<SnapAnswer>,
  isAccepted?: (a: SnapAnswer) => boolean,
): Promise<SnapAnswer> {
  let answer: SnapAnswer;
  try {
    answer = await send();
  } catch (e) {
    if (e instanceof SnapCallTimeout) {
      throw snapError('TIMEOUT', svc, { detail: { providerId: provider.id, path }, cause: e });
    }
    throw snapError('EXTERNAL_SERVER_ERROR', svc, {
      detail: { providerId: provider.id, path, error: (e as Error).message },
    });
  }
  const isSuccess = answer.httpStatus === 200 && String(answer.body.responseCode).startsWith('200');
  if (!isSuccess && !isAccepted?.(answer)) {
    throw snapError('EXTERNAL_SERVER_ERROR', svc, {
      detail: { providerId: provider.id, path, httpStatus: answer.httpStatus, responseCode: answer.body.responseCode },
    });
  }
  return answer;
}

/** One call from snapgate to a provider it forwards a merchant's payment to (an acquirer, a wallet). */
export function createUpstreamCaller(deps: { client: SnapClient; timeoutMs: number }) {
  return function call(
    provider: ProviderRecord,
    svc: string,
    path: string,
    body: Record<string, unknown>,
    externalId: string,
    options: UpstreamCallOptions = {},
  ): Promise<SnapAnswer> {
    const { requestId, headers } = options;
    const send = () =>
      deps.client.call(
        targetOf(provider),
        { path, body, externalId },
        { timeoutMs: deps.timeoutMs, requestId, headers },
      );
    return answerOf(provider, svc, path, send, options.isAccepted);
  };
}

/**
 * A customer's token at a wallet (B2B2C), as the merchant is answered for it: as a call, and a
 * 401 (the wallet refuses the code or the refresh token) is `401 xx02 Invalid Customer Token`.
 */
export function createCustomerTokenTaker(deps: { client: SnapClient; timeoutMs: number }) {
  return async function take(provider: ProviderRecord, svc: string, body: Record<string, unknown>) {
    const send = () => deps.client.customerToken(targetOf(provider), body, { timeoutMs: deps.timeoutMs });
    const answer = await answerOf(provider, svc, 'access-token/b2b2c', send, (a) => a.httpStatus === 401);
    if (answer.httpStatus === 401) {
      throw snapError('INVALID_CUSTOMER_TOKEN', svc, {
        detail: { providerId: provider.id, responseCode: answer.body.responseCode },
      });
    }
    return answer;
  };
}

export type UpstreamCall = ReturnType<typeof createUpstreamCaller>;

/**
 * The partnerRefundNo a provider sees for a merchant's refund: one per merchant refund and amount,
 * the same on a retry. So a provider's duplicate answer (409) to it can only mean it took this very
 * refund, of this amount; a retry with another amount is another refund there, never one recorded
 * here that the provider did not make.
 */
export const stableRefundNo = (merchantId: string, partnerRefundNo: string, amount: string): string =>
  `SG${createHash('sha256').update(`${merchantId}:${partnerRefundNo}:${amount}`).digest('hex').slice(0, 30)}`;

/** How a provider names a payment it serves: snapgate's referenceNo, and its own once it answered. */
const refOf = (txn: TransactionRecord) => ({
  originalPartnerReferenceNo: txn.referenceNo,
  originalReferenceNo: upstreamOf(txn)?.referenceNo,
});

/**
 * A merchant's cancel and refund at the provider that took the payment, first (the caller applies
 * them here only when these return). A refund the provider answers with its SNAP conflict (`409`
 * with a `409<svc>xx` code) for the same stable partnerRefundNo is one it took already.
 */
export function forwardCalls(call: UpstreamCall, calls: ProviderCalls): Pick<UpstreamProvider, 'cancel' | 'refund'> {
  return {
    async cancel(provider, txn, svc, reason, requestId) {
      const body = { ...refOf(txn), reason: reason ?? 'canceled by merchant' };
      await call(provider, svc, calls.cancel.path, body, newExternalId(), { requestId });
    },
    async refund(provider, txn, svc, refund, requestId) {
      const body = {
        ...refOf(txn),
        partnerRefundNo: stableRefundNo(refund.merchantId, refund.partnerRefundNo, refund.amount),
        refundAmount: { value: refund.amount, currency: txn.currency },
        reason: refund.reason ?? 'refund',
      };
      const isDuplicate = (a: SnapAnswer) =>
        a.httpStatus === 409 && String(a.body.responseCode).startsWith(`409${svc}`);
      await call(provider, svc, calls.refund.path, body, newExternalId(), { requestId, isAccepted: isDuplicate });
    },
  };
}

/** Whether a provider's reported amount (`"50000.00"`, or `"50000"` as some send it) is `expected`. */
export function isSameAmount(reported: unknown, expected: string): boolean {
  const m = /^(\d{1,16})(?:\.(\d{1,2}))?$/.exec(textOf(reported));
  return m !== null && compareMoney(`${m[1]}.${(m[2] ?? '').padEnd(2, '0')}`, expected) === 0;
}

/** The provider's own text of a field, or `''`. */
export const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');
const NUMERIC = /^\d{1,32}$/;
/** The provider's digits, or `fallback` (a callback's payer fields are digits). */
export const digitsOr = (v: unknown, fallback: string): string => (NUMERIC.test(textOf(v)) ? textOf(v) : fallback);

/** The payer a provider's answer reports in its `additionalInfo`, held to a callback's rules. */
export function reportedPayer(body: Record<string, unknown>, payerIssuer: string): Payer {
  const info = (body.additionalInfo ?? {}) as Record<string, unknown>;
  return { payerIssuer, payerName: textOf(info.payerName).slice(0, 100), payerRefId: digitsOr(info.payerRefId, '') };
}

/** What snapgate holds to call a provider that serves merchants' payments (an acquirer, a wallet). */
export interface UpstreamDeps {
  store: Store;
  changer: StatusChanger;
  client: SnapClient;
  /** Bounds one merchant request's whole outbound exchange (token and call). */
  timeoutMs: number;
  logger: Logger;
}

/**
 * One kind of provider's calls for the payments it serves: where it is asked what became of one,
 * told to cancel or refund it, and who it is.
 */
export interface ProviderCalls {
  /** Who it is, in a status change's reason: `acquirer`, `wallet`. */
  who: string;
  query: { svc: string; path: string; serviceCode: string };
  cancel: { svc: string; path: string };
  refund: { path: string };
  /** The payer the query's answer reports, as a notify would. */
  payerOf(answer: Record<string, unknown>, provider: ProviderRecord): Payer;
}

export type ReconcileDeps = Pick<UpstreamDeps, 'store' | 'changer' | 'logger'> & { call: UpstreamCall };

/**
 * docs/upstream.md#qris-issued-by-the-acquirer, docs/ewallets.md#a-lost-notify: a payment a provider serves, still open a minute after its
 * validity, is queried there and the answer applied, so a lost notify is recovered. If the provider
 * still reports it open, it is canceled there first (so it can no longer be paid behind our back)
 * and expires here. Whatever cannot be settled now (the provider down, an answer the status
 * machine refuses, settings removed) is tried again later, backing off: it never holds up the
 * sweep or spins. Returns the transaction as it is after.
 */
export async function reconcileUpstream(
  deps: ReconcileDeps,
  calls: ProviderCalls,
  txn: TransactionRecord,
  nowMs: number,
): Promise<TransactionRecord> {
  const upstream = upstreamOf(txn) as UpstreamRef;
  const provider = await deps.store.findProviderById(upstream.providerId);
  const settled = provider?.outbound ? await settle(deps, calls, provider, txn, nowMs) : undefined;
  if (settled) return settled;
  const attempts = (upstream.reconcileAttempts ?? 0) + 1;
  deps.logger.warn(
    { referenceNo: txn.referenceNo, providerId: upstream.providerId, attempts },
    'reconciliation settled nothing; trying again later',
  );
  const later = await deps.store.updateTransaction({
    referenceNo: txn.referenceNo,
    expectedSeq: txn.seq,
    at: nowMs,
    patch: {
      expiresAt: nowMs + reconcileBackoffMs(attempts - 1),
      details: { ...txn.details, upstream: { ...upstream, reconcileAttempts: attempts } },
    },
  });
  return later ?? ((await deps.store.findTransaction(txn.referenceNo)) as TransactionRecord);
}

async function settle(
  deps: ReconcileDeps,
  calls: ProviderCalls,
  provider: ProviderRecord,
  txn: TransactionRecord,
  nowMs: number,
): Promise<TransactionRecord | undefined> {
  const { call, logger } = deps;
  const ref = refOf(txn);
  try {
    const { query, cancel } = calls;
    const answer = await call(
      provider,
      query.svc,
      query.path,
      { ...ref, serviceCode: query.serviceCode },
      newExternalId(),
    );
    const reported = textOf(answer.body.latestTransactionStatus);
    const amount = (answer.body.amount as { value?: unknown } | undefined)?.value;
    if (amount !== undefined && !isSameAmount(amount, txn.amount as string)) {
      logger.warn({ referenceNo: txn.referenceNo, providerId: provider.id }, 'reconciliation: another amount reported');
      return undefined;
    }
    const isOpen = !isTransactionStatus(reported) || ['01', '02', '03'].includes(reported);
    if (isOpen) await call(provider, cancel.svc, cancel.path, { ...ref, reason: 'expired' }, newExternalId());
    const payer = calls.payerOf(answer.body, provider);
    return await deps.changer.change(
      txn,
      {
        to: isOpen ? '06' : (reported as TransactionStatus),
        ...(isOpen ? { statusDesc: 'Expired' } : {}),
        reason: `reconciled with ${calls.who} ${provider.id} (reported ${reported || 'nothing'})`,
        providerId: provider.id,
        patch: (current) => ({
          ...(reported === '00' ? { paidAmount: current.amount, paidAt: nowMs } : {}),
          details: { ...current.details, payer },
        }),
      },
      nowMs,
    );
  } catch (err) {
    logger.warn({ err, referenceNo: txn.referenceNo, providerId: provider.id }, 'reconciliation failed');
    return undefined;
  }
}

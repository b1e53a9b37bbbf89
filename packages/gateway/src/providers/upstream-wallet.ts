import { formatJakartaTimestamp, snapError } from '@snapgate/snap';
import { type UpstreamRef, type UpstreamWallet, upstreamOf } from '../payments/upstream.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import {
  createUpstreamCaller,
  forwardCalls,
  type ProviderCalls,
  reconcileUpstream,
  reportedPayer,
  textOf,
  type UpstreamDeps,
} from './upstream-call.ts';

/** The longest redirect URL a wallet may answer (SNAP's field length). */
const REDIRECT_MAX = 2048;

/** A wallet's web link: `https` (or `http`, for a wallet's own test server), nothing else. */
function webUrl(v: unknown): string | undefined {
  const s = textOf(v);
  if (s === '' || s.length > REDIRECT_MAX) return undefined;
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** Schemes that run or reach something other than an app: never a wallet app's link. */
const NOT_AN_APP = /^(javascript|data|vbscript|file|blob|about|intent|filesystem|view-source|ftp|http)$/;

/**
 * A wallet app's link: `https` (a universal link), or a deep link whose scheme is letters and digits
 * only (`dana://…`, `gojek://…`), never one that runs a script or reaches a file.
 */
function appUrl(v: unknown): string | undefined {
  const s = textOf(v);
  if (s === '' || s.length > REDIRECT_MAX) return undefined;
  try {
    const scheme = new URL(s).protocol.slice(0, -1).toLowerCase();
    return scheme === 'https' || (/^[a-z][a-z0-9]{1,31}$/.test(scheme) && !NOT_AN_APP.test(scheme)) ? s : undefined;
  } catch {
    return undefined;
  }
}

/** An e-wallet payment at its wallet: asked after with its status (55), ended with its cancel (57), refunded (58). */
const DEBIT_CALLS: ProviderCalls = {
  who: 'wallet',
  query: { svc: '55', path: 'debit/status', serviceCode: '54' },
  cancel: { svc: '57', path: 'debit/cancel' },
  refund: { path: 'debit/refund' },
  // payerIssuer is digits in every callback: a connected wallet has no bank code (payOption names it).
  payerOf: (body, provider) => reportedPayer(body, provider.bankCode),
};

/**
 * snapgate as a client of an e-wallet over SNAP Direct Debit (docs/ewallets.md#connecting-a-wallet): the
 * payment (54), its cancel (57) and refunds (58), and the status (55) that recovers a lost notify;
 * each answered 504 xx00 when the wallet is too slow and 500 xx02 when it refuses or does not
 * answer SNAP.
 */
export function createUpstreamWallet({ store, changer, client, timeoutMs, logger }: UpstreamDeps): UpstreamWallet {
  const call = createUpstreamCaller({ client, timeoutMs });
  return {
    /**
     * The wallet's payment for one recorded here, under snapgate's referenceNo: its `webRedirectUrl`
     * (and the app's link, when it gives one), unchanged.
     */
    async pay(provider: ProviderRecord, txn: TransactionRecord, svc: string, urls, requestId?: string) {
      const upstream = upstreamOf(txn) as UpstreamRef;
      const amount = { value: txn.amount, currency: txn.currency };
      const answer = await call(
        provider,
        svc,
        'debit/payment-host-to-host',
        {
          partnerReferenceNo: txn.referenceNo,
          merchantId: provider.outbound?.partnerId,
          amount,
          urlParams: [
            { url: urls.returnUrl, type: 'PAY_RETURN', isDeeplink: 'N' },
            { url: urls.notifyUrl, type: 'PAY_NOTIFY', isDeeplink: 'N' },
          ],
          validUpTo: formatJakartaTimestamp(upstream.validUntil),
          payOptionDetails: [{ payMethod: 'EMONEY', payOption: provider.payOption, transAmount: amount }],
        },
        upstream.externalId,
        { requestId },
      );
      const webRedirectUrl = webUrl(answer.body.webRedirectUrl);
      if (webRedirectUrl === undefined) {
        throw snapError('EXTERNAL_SERVER_ERROR', svc, {
          detail: { providerId: provider.id, missing: 'webRedirectUrl' },
        });
      }
      const referenceNo = textOf(answer.body.referenceNo).slice(0, 64);
      return {
        webRedirectUrl,
        appRedirectUrl: appUrl(answer.body.appRedirectUrl),
        referenceNo: referenceNo === '' ? undefined : referenceNo,
      };
    },

    /** Cancel (57) and refund (58) at the wallet first. */
    ...forwardCalls(call, DEBIT_CALLS),

    /** Reconciliation (docs/ewallets.md#a-lost-notify): its status (55), and its cancel (57) if still open. */
    reconcile: (txn, nowMs) => reconcileUpstream({ store, changer, logger, call }, DEBIT_CALLS, txn, nowMs),
  };
}

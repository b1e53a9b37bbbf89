import { formatJakartaTimestamp, snapError } from '@snapgate/snap';
import {
  newExternalId,
  type UpstreamRef,
  type UpstreamWallet,
  upstreamOf,
  type WalletCustomerToken,
} from '../payments/upstream.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { SnapAnswer } from './snap-client.ts';
import {
  createCustomerTokenTaker,
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

/** The longest customer token (or refresh token) a wallet may give: past it, not a token. */
const TOKEN_MAX = 2048;
/** A customer token whose wallet says nothing of its lifetime is renewed after this. */
const TOKEN_UNSAID_MS = 15 * 60_000;

/** `Authorization-Customer`: the customer's token at the wallet, on the calls made for the customer. */
const customerHeader = (token: string | undefined) =>
  token === undefined ? undefined : { 'authorization-customer': `Bearer ${token}` };

/** A time the wallet gave (ISO 8601, `+07:00` as SNAP writes it), or undefined. */
function timeOf(v: unknown): number | undefined {
  const t = Date.parse(textOf(v));
  return Number.isFinite(t) ? t : undefined;
}

/** The customer's token in a wallet's B2B2C answer; a 500 xx02 when it holds none. */
function customerTokenOf(body: Record<string, unknown>, svc: string, providerId: string, nowMs: number) {
  const accessToken = textOf(body.accessToken);
  const refreshToken = textOf(body.refreshToken);
  if (accessToken === '' || accessToken.length > TOKEN_MAX || refreshToken.length > TOKEN_MAX) {
    throw snapError('EXTERNAL_SERVER_ERROR', svc, { detail: { providerId, missing: 'accessToken' } });
  }
  const expiresInSec = Number(textOf(body.expiresIn));
  const token: WalletCustomerToken = {
    accessToken,
    accessTokenExpiresAt:
      timeOf(body.accessTokenExpiryTime) ?? (expiresInSec > 0 ? nowMs + expiresInSec * 1000 : nowMs + TOKEN_UNSAID_MS),
    refreshToken: refreshToken === '' ? null : refreshToken,
    refreshTokenExpiresAt: refreshToken === '' ? null : (timeOf(body.refreshTokenExpiryTime) ?? null),
  };
  return token;
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
  const takeToken = createCustomerTokenTaker({ client, timeoutMs });
  return {
    /**
     * The wallet's payment for one recorded here, under snapgate's referenceNo: its `webRedirectUrl`
     * (and the app's link, when it gives one), unchanged.
     */
    async pay(provider: ProviderRecord, txn: TransactionRecord, svc: string, urls, options = {}) {
      const { requestId, customerToken } = options;
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
        { requestId, headers: customerHeader(customerToken) },
      );
      const webRedirectUrl = webUrl(answer.body.webRedirectUrl);
      // A bound payment needs no page, unless the wallet asks the payer (a PIN, say).
      if (webRedirectUrl === undefined && customerToken === undefined) {
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

    /** The binding (07): the wallet's reference is snapgate's binding reference. */
    async bind(provider, binding, svc, returnUrl, requestId) {
      const body = {
        partnerReferenceNo: binding.id,
        merchantId: provider.outbound?.partnerId,
        ...(binding.phoneNo === null ? {} : { phoneNo: binding.phoneNo }),
        redirectUrl: returnUrl,
      };
      const answer = await call(provider, svc, 'registration-account-binding', body, newExternalId(), { requestId });
      const redirectUrl = webUrl(answer.body.redirectUrl);
      if (redirectUrl === undefined) {
        throw snapError('EXTERNAL_SERVER_ERROR', svc, { detail: { providerId: provider.id, missing: 'redirectUrl' } });
      }
      const referenceNo = textOf(answer.body.referenceNo).slice(0, 64);
      return { redirectUrl, referenceNo: referenceNo === '' ? undefined : referenceNo };
    },

    async customerToken(provider, grant, svc, nowMs) {
      const body =
        'authCode' in grant
          ? { grantType: 'AUTHORIZATION_CODE', authCode: grant.authCode, additionalInfo: {} }
          : { grantType: 'REFRESH_TOKEN', refreshToken: grant.refreshToken, additionalInfo: {} };
      const answer = await takeToken(provider, svc, body);
      return customerTokenOf(answer.body, svc, provider.id, nowMs);
    },

    async unbind(provider, binding, customerToken, svc, requestId) {
      const body = { partnerReferenceNo: binding.id, merchantId: provider.outbound?.partnerId };
      // The wallet's own `401 xx02`: it takes not that customer token.
      const isRefused = (a: SnapAnswer) =>
        a.httpStatus === 401 && String(a.body.responseCode).startsWith(`401${svc}02`);
      const answer = await call(provider, svc, 'registration-account-unbinding', body, newExternalId(), {
        requestId,
        headers: customerHeader(customerToken),
        isAccepted: isRefused,
      });
      return !isRefused(answer);
    },

    /** Cancel (57) and refund (58) at the wallet first. */
    ...forwardCalls(call, DEBIT_CALLS),

    /** Reconciliation (docs/ewallets.md#a-lost-notify): its status (55), and its cancel (57) if still open. */
    reconcile: (txn, nowMs) => reconcileUpstream({ store, changer, logger, call }, DEBIT_CALLS, txn, nowMs),
  };
}

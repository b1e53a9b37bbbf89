import { createHash } from 'node:crypto';
import { formatJakartaTimestamp, isSnapError, SERVICE, snapError } from '@snapgate/snap';
import type { Mode } from '../config.ts';
import type { Logger } from '../logger.ts';
import { newClientSecret } from '../merchants/merchant-service.ts';
import type { AccountBinding, BindingChange, BindingKey } from '../records/binding-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import { type MerchantRecord, UniqueViolation } from '../records/records.ts';
import { sharedRuns } from '../shared-runs.ts';
import type { Store } from '../store/store.ts';
import { newCheckoutId, normalizedUrl } from './checkout-link.ts';
import { createFieldReader } from './fields.ts';
import { type RecordFor, type SnapResponse, snapOk } from './idempotency.ts';
import { newReferenceNo } from './ids.ts';
import { ACCOUNT_BINDING, ACCOUNT_UNBINDING, CUSTOMER_TOKEN } from './snap-fields.ts';
import type { MerchantRequest } from './snap-request.ts';
import type { UpstreamWallet, WalletCustomerToken } from './upstream.ts';

/** docs/ewallets.md#account-binding: how long each secret of a binding is good for. */
export const BINDING_TTL = {
  /** The customer's answer at the wallet's page. */
  consentMs: 30 * 60_000,
  /** The authCode the customer comes back with: traded once, within this. */
  authCodeMs: 10 * 60_000,
  /** The customer's access token. */
  accessTokenMs: 60 * 60_000,
  /** The refresh token that takes the next access token (and a new refresh token). */
  refreshTokenMs: 30 * 24 * 60 * 60_000,
} as const;

const sha256 = (secret: string) => createHash('sha256').update(secret).digest('hex');
/** A code or token the merchant holds: 256 random bits, base64url, as a client secret. Only its hash is kept. */
const newSecret = newClientSecret;

/** Where the wallet asks the customer to bind the account: the sandbox wallet's page on this gateway. */
export const consentPathOf = (consentId: string) => `/bind/${consentId}`;
/** Where a connected wallet sends the customer back with its authCode: this gateway, which trades it. */
export const bindingReturnPathOf = (consentId: string) => `/bind/${consentId}/return`;
/** A connected wallet's customer token is renewed when it has less than this left. */
const RENEW_AHEAD_MS = 60_000;
/**
 * How long a binding recorded for a connected wallet may wait for the wallet's answer (beyond any
 * upstream timeout): past it, one never answered (the gateway stopped meanwhile) is given up.
 */
const IN_FLIGHT_MS = 2 * 60_000;

export interface BindingServiceDeps {
  store: Store;
  /** The gateway's public address, read when a binding is made. */
  publicUrl: () => string;
  mode?: Mode;
  /** Calls the wallets the operator connected (docs/ewallets.md#binding-at-a-connected-wallet). */
  wallets: UpstreamWallet;
  logger?: Logger;
}

/** The change that keeps a connected wallet's customer token (sealed at rest by the store). */
const walletTokenChange = (token: WalletCustomerToken) => ({
  walletAccessToken: token.accessToken,
  walletAccessTokenExpiresAt: token.accessTokenExpiresAt,
  walletRefreshToken: token.refreshToken,
  walletRefreshTokenExpiresAt: token.refreshTokenExpiresAt,
});

/** The wallet's side of a binding, cleared when it ends. */
const NO_WALLET_TOKEN = {
  walletAccessToken: null,
  walletAccessTokenExpiresAt: null,
  walletRefreshToken: null,
  walletRefreshTokenExpiresAt: null,
};

/**
 * Where the customer goes back to: the merchant's redirectUrl with `authCode` (approved), `state`
 * (the merchant's partnerReferenceNo) and `resultCode` (`00` approved, `06` declined).
 */
function backTo(binding: AccountBinding, authCode: string | undefined): string {
  const back = new URL(binding.redirectUrl);
  if (authCode !== undefined) back.searchParams.set('authCode', authCode);
  back.searchParams.set('state', binding.partnerReferenceNo);
  back.searchParams.set('resultCode', authCode === undefined ? '06' : '00');
  return back.href;
}

/**
 * Account binding (docs/ewallets.md#account-binding): the merchant asks (07), the customer approves
 * at the wallet and comes back with a one-time authCode, the merchant trades it for the customer's
 * token (74), whose payments (54 with `Authorization-Customer`) need no redirect, until the merchant
 * unbinds it (09). This version binds accounts of the sandbox wallet, outside production.
 */
export function createBindingService(deps: BindingServiceDeps) {
  const { store } = deps;

  /** Whether a wallet serves here: active, and never the sandbox wallet in production. */
  const serves = (wallet: ProviderRecord) =>
    wallet.status === 'active' && (wallet.isSandbox ? deps.mode !== 'production' : wallet.outbound !== null);

  /** The wallet of `payOption` that serves here. */
  async function bindingWallet(svc: string, payOption: string): Promise<ProviderRecord> {
    const wallet = await store.findWallet(payOption);
    if (!wallet || !serves(wallet)) {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Pay Option Not Available', detail: { payOption } });
    }
    return wallet;
  }

  /**
   * Whether a binding's wallet still binds: it still serves (a database carried over from sandbox
   * days binds nothing real in production).
   */
  async function isUsable(binding: AccountBinding): Promise<boolean> {
    const wallet = await store.findProviderById(binding.providerId);
    return wallet !== undefined && serves(wallet);
  }

  /**
   * The binding of a consent page while the customer may still answer it (30 minutes), with its
   * wallet: at the sandbox wallet's page, or (`atSandbox` false) back from a connected wallet's.
   */
  async function pendingConsent(consentId: string, now: number, atSandbox: boolean) {
    const binding = await store.findBinding({ consentId });
    if (binding?.status !== 'pending' || now >= binding.createdAt + BINDING_TTL.consentMs) return undefined;
    const wallet = await store.findProviderById(binding.providerId);
    // A connected wallet's binding is answered once the wallet has (walletRedirectUrl).
    const isThere =
      wallet !== undefined && wallet.isSandbox === atSandbox && (atSandbox || binding.walletRedirectUrl !== null);
    return isThere && serves(wallet) ? { binding, wallet } : undefined;
  }

  /** Renewals of connected wallets' customer tokens under way here: one per binding at a time. */
  const renewing = sharedRuns<string>();

  /**
   * The customer's token at the binding's connected wallet, renewed there first (its refresh
   * token) when it has lapsed or is about to, or when `force`d (the wallet no longer took it).
   * Refused 401 xx02 when it cannot be renewed.
   */
  async function walletTokenOf(
    svc: string,
    binding: AccountBinding,
    wallet: ProviderRecord,
    now: number,
    force = false,
  ): Promise<string> {
    const isFresh = (b: AccountBinding) =>
      !force && b.walletAccessToken !== null && (b.walletAccessTokenExpiresAt ?? 0) > now + RENEW_AHEAD_MS;
    if (isFresh(binding)) return binding.walletAccessToken as string;
    try {
      return await renewing(binding.id, () => renewAtWallet(binding.id, wallet, now, isFresh));
    } catch (e) {
      // A renewal shared with another request is refused as this one's service.
      if (!isSnapError(e)) throw e;
      throw snapError(e.caseName, svc, { detail: { bindingId: binding.id, cause: e.responseCode } });
    }
  }

  async function renewAtWallet(
    id: string,
    wallet: ProviderRecord,
    now: number,
    isFresh: (b: AccountBinding) => boolean,
  ): Promise<string> {
    const refused = () => snapError('INVALID_CUSTOMER_TOKEN', SERVICE.tokenB2b2c, { detail: { bindingId: id } });
    // Read again: a request just before this one may have renewed it (the wallet may take each
    // refresh token once).
    const current = await store.findBinding({ id });
    if (current?.status !== 'bound') throw refused();
    if (isFresh(current)) return current.walletAccessToken as string;
    const { walletRefreshToken, walletRefreshTokenExpiresAt } = current;
    if (walletRefreshToken === null || (walletRefreshTokenExpiresAt !== null && walletRefreshTokenExpiresAt <= now)) {
      throw refused();
    }
    const token = await deps.wallets.customerToken(
      wallet,
      { refreshToken: walletRefreshToken },
      SERVICE.tokenB2b2c,
      now,
    );
    // A wallet that gives no new refresh token keeps the one it renewed with.
    const kept =
      token.refreshToken === null
        ? { ...token, refreshToken: walletRefreshToken, refreshTokenExpiresAt: walletRefreshTokenExpiresAt }
        : token;
    const renewed = await store.changeBinding({ id }, ['bound'], walletTokenChange(kept), now);
    if (!renewed) throw refused();
    return token.accessToken;
  }

  /** Records a binding, refusing a partnerReferenceNo the merchant used before. */
  async function insertOwn(binding: AccountBinding, idempotency?: ReturnType<RecordFor>) {
    try {
      await store.insertBinding(binding, idempotency);
    } catch (e) {
      if (!(e instanceof UniqueViolation && e.constraint.includes('partner_reference_no'))) throw e;
      const { merchantId, partnerReferenceNo } = binding;
      const twin = await store.findBinding({ merchantId, partnerReferenceNo });
      // Its twin (a retry with the same X-EXTERNAL-ID, say) still waits for the wallet: a conflict.
      const isUnanswered =
        twin?.status === 'pending' &&
        twin.walletRedirectUrl === null &&
        (await store.findProviderById(twin.providerId))?.isSandbox === false;
      if (!twin || !isUnanswered) {
        throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', SERVICE.accountBinding, { detail: { partnerReferenceNo } });
      }
      // Its twin (a retry with the same X-EXTERNAL-ID, say) still waits for the wallet: a conflict.
      if (binding.createdAt < twin.createdAt + IN_FLIGHT_MS) {
        throw snapError('CONFLICT', SERVICE.accountBinding, { detail: { inFlight: twin.id } });
      }
      // One the wallet never answered (the gateway stopped meanwhile) holds the reference no more.
      await freeReference(twin, binding.createdAt);
      await insertOwn(binding, idempotency);
    }
  }

  /** A binding the wallet did not take: declined, its partnerReferenceNo free for the merchant again. */
  async function freeReference(binding: AccountBinding, now: number): Promise<void> {
    const freed = `${binding.partnerReferenceNo}#${binding.id}`;
    await store.changeBinding({ id: binding.id }, ['pending'], { status: 'declined', partnerReferenceNo: freed }, now);
  }

  /**
   * docs/ewallets.md#binding-at-a-connected-wallet: recorded first, then asked of the wallet, whose
   * page the customer is sent to. A refusal leaves it declined, not holding the merchant's
   * partnerReferenceNo (the merchant may try again).
   */
  async function bindAtWallet(
    ctx: MerchantRequest,
    wallet: ProviderRecord,
    binding: AccountBinding,
    recordFor: RecordFor,
  ) {
    const svc = ctx.serviceCode;
    await insertOwn(binding);
    try {
      const returnUrl = `${deps.publicUrl()}${bindingReturnPathOf(binding.consentId)}`;
      const answered = await deps.wallets.bind(wallet, binding, svc, returnUrl, ctx.requestId);
      // A customer is sent there: in production over https only.
      if (deps.mode === 'production' && !answered.redirectUrl.startsWith('https:')) {
        throw snapError('EXTERNAL_SERVER_ERROR', svc, { detail: { providerId: wallet.id, http: true } });
      }
      const response = snapOk(svc, {
        referenceNo: binding.id,
        partnerReferenceNo: binding.partnerReferenceNo,
        redirectUrl: answered.redirectUrl,
        additionalInfo: { payOption: binding.payOption },
      });
      const change = { walletRedirectUrl: answered.redirectUrl, walletReferenceNo: answered.referenceNo ?? null };
      await store.changeBinding({ id: binding.id }, ['pending'], change, ctx.now, { idempotency: recordFor(response) });
      return response;
    } catch (e) {
      await freeReference(binding, ctx.now);
      throw e;
    }
  }

  /** The customer's bound binding its access token names, for this merchant; refused 401 xx02 otherwise. */
  async function boundBy(svc: string, merchant: MerchantRecord, customerToken: string | undefined, now: number) {
    const binding = customerToken
      ? await store.findBinding({ merchantId: merchant.id, accessTokenHash: sha256(customerToken) })
      : undefined;
    const isLive =
      binding?.status === 'bound' &&
      binding.accessTokenExpiresAt !== null &&
      binding.accessTokenExpiresAt > now &&
      (await isUsable(binding));
    if (!binding || !isLive) throw snapError('INVALID_CUSTOMER_TOKEN', svc, { detail: { merchantId: merchant.id } });
    return binding;
  }

  /** A new access token and refresh token for a binding: the secrets, and the change that keeps their hashes. */
  function newTokens(now: number) {
    const accessToken = newSecret();
    const refreshToken = newSecret();
    return {
      accessToken,
      refreshToken,
      change: {
        accessTokenHash: sha256(accessToken),
        accessTokenExpiresAt: now + BINDING_TTL.accessTokenMs,
        refreshTokenHash: sha256(refreshToken),
        refreshTokenExpiresAt: now + BINDING_TTL.refreshTokenMs,
      },
    };
  }

  /** Customers back from a connected wallet's page, whose authCode is being traded: one at a time per binding. */
  const returning = sharedRuns<string | undefined>();

  async function comeBack(consentId: string, walletAuthCode: string | undefined, now: number) {
    const pending = await pendingConsent(consentId, now, false);
    if (!pending) return undefined;
    const { binding, wallet } = pending;
    if (walletAuthCode === undefined || walletAuthCode === '') return settle(binding, undefined, now);
    let token: WalletCustomerToken;
    try {
      token = await deps.wallets.customerToken(wallet, { authCode: walletAuthCode }, SERVICE.tokenB2b2c, now);
    } catch (err) {
      deps.logger?.warn({ err, bindingId: binding.id, providerId: wallet.id }, 'the wallet’s authCode was not traded');
      return settle(binding, undefined, now);
    }
    const back = await settle(binding, walletTokenChange(token), now);
    if (back === undefined) {
      // Answered meanwhile (on another instance): the token just taken binds nothing here.
      deps.wallets.unbind(wallet, binding, token.accessToken, SERVICE.accountUnbinding).catch((err: unknown) => {
        deps.logger?.warn({ err, bindingId: binding.id, providerId: wallet.id }, 'unbinding at the wallet failed');
      });
    }
    return back;
  }

  /**
   * The customer's answer: approved (with what the wallet gave, if anything), the binding is
   * `authorized` with a new one-time authCode; declined (`undefined`), it is `declined`. Where the
   * customer goes then, or undefined when it was answered meanwhile.
   */
  async function settle(binding: AccountBinding, approved: BindingChange | undefined, now: number) {
    const authCode = approved ? newSecret() : undefined;
    const change: BindingChange = authCode
      ? {
          ...approved,
          status: 'authorized',
          authCodeHash: sha256(authCode),
          authCodeExpiresAt: now + BINDING_TTL.authCodeMs,
        }
      : { status: 'declined' };
    const answered = await store.changeBinding({ id: binding.id }, ['pending'], change, now);
    return answered ? backTo(answered, authCode) : undefined;
  }

  /**
   * A connected wallet's binding ends there first, with the customer's token there (renewed once
   * when the wallet does not take it). When the wallet takes no token of it any more, not even a
   * renewed one, or refuses to renew it, nothing of it is left that snapgate can reach: it ends
   * here too.
   */
  async function unbindAtWallet(ctx: MerchantRequest, binding: AccountBinding): Promise<void> {
    const wallet = await store.findProviderById(binding.providerId);
    if (!wallet || wallet.isSandbox) return;
    try {
      const token = await walletTokenOf(ctx.serviceCode, binding, wallet, ctx.now);
      if (await deps.wallets.unbind(wallet, binding, token, ctx.serviceCode, ctx.requestId)) return;
      // The wallet took not that token (it may have lapsed early): once more with a new one.
      const renewed = await walletTokenOf(ctx.serviceCode, binding, wallet, ctx.now, true);
      if (await deps.wallets.unbind(wallet, binding, renewed, ctx.serviceCode, ctx.requestId)) return;
      deps.logger?.info({ bindingId: binding.id, providerId: wallet.id }, 'the wallet refused a renewed token');
    } catch (e) {
      if (!(isSnapError(e) && e.caseName === 'INVALID_CUSTOMER_TOKEN')) throw e;
      deps.logger?.info({ bindingId: binding.id, providerId: wallet.id }, 'the wallet no longer knows the binding');
    }
  }

  return {
    /** Service 07: a binding the customer approves at the wallet's page (`redirectUrl` of the answer). */
    async bind(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const partnerReferenceNo = f.str('partnerReferenceNo', ACCOUNT_BINDING.partnerReferenceNo) as string;
      const phoneNo = f.str('phoneNo', ACCOUNT_BINDING.phoneNo) ?? null;
      const given = f.str('redirectUrl', ACCOUNT_BINDING.redirectUrl) as string;
      const redirectUrl = normalizedUrl(given, 'redirectUrl', svc, deps.mode);
      f.str('merchantId', ACCOUNT_BINDING.merchantId);
      f.obj('additionalInfo');
      const payOption = f.str('additionalInfo.payOption', ACCOUNT_BINDING['additionalInfo.payOption']) as string;
      const wallet = await bindingWallet(svc, payOption);
      const binding: AccountBinding = {
        id: newReferenceNo(ctx.now),
        merchantId: ctx.merchant.id,
        partnerReferenceNo,
        providerId: wallet.id,
        payOption,
        status: 'pending',
        redirectUrl,
        phoneNo,
        consentId: newCheckoutId(),
        authCodeHash: null,
        authCodeExpiresAt: null,
        accessTokenHash: null,
        accessTokenExpiresAt: null,
        refreshTokenHash: null,
        refreshTokenExpiresAt: null,
        walletReferenceNo: null,
        walletRedirectUrl: null,
        ...NO_WALLET_TOKEN,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      if (!wallet.isSandbox) return bindAtWallet(ctx, wallet, binding, recordFor);
      const consentUrl = `${deps.publicUrl()}${consentPathOf(binding.consentId)}`;
      const response = snapOk(svc, {
        referenceNo: binding.id,
        partnerReferenceNo,
        redirectUrl: consentUrl,
        additionalInfo: { payOption },
      });
      await insertOwn({ ...binding, walletRedirectUrl: consentUrl }, recordFor(response));
      return response;
    },

    /** Service 09: the customer token's binding ends, and every token of it with it. */
    async unbind(ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse> {
      const svc = ctx.serviceCode;
      const f = createFieldReader(ctx.body, svc);
      const partnerReferenceNo = f.str('partnerReferenceNo', ACCOUNT_UNBINDING.partnerReferenceNo);
      f.str('merchantId', ACCOUNT_UNBINDING.merchantId);
      const binding = await boundBy(svc, ctx.merchant, ctx.customerToken, ctx.now);
      if (partnerReferenceNo !== undefined && partnerReferenceNo !== binding.partnerReferenceNo) {
        throw snapError('INVALID_FIELD_FORMAT', svc, { field: 'partnerReferenceNo' });
      }
      await unbindAtWallet(ctx, binding);
      const response = snapOk(svc, {
        referenceNo: binding.id,
        partnerReferenceNo: binding.partnerReferenceNo,
        unlinkResult: 'success',
        additionalInfo: { payOption: binding.payOption },
      });
      const ended = await store.changeBinding(
        { id: binding.id },
        ['bound'],
        {
          status: 'unbound',
          accessTokenHash: null,
          accessTokenExpiresAt: null,
          refreshTokenHash: null,
          refreshTokenExpiresAt: null,
          ...NO_WALLET_TOKEN,
        },
        ctx.now,
        { idempotency: recordFor(response) },
      );
      // Unbound meanwhile by a twin request: its token is no more.
      if (!ended) throw snapError('INVALID_CUSTOMER_TOKEN', svc, { detail: { bindingId: binding.id } });
      return response;
    },

    /**
     * Service 74: the customer's token, by the authCode (once, within 10 minutes) or by the binding's
     * refresh token (which is replaced). The merchant is the one that signed the request.
     */
    async customerToken(merchant: MerchantRecord, body: Record<string, unknown>, now: number): Promise<string> {
      const svc = SERVICE.tokenB2b2c;
      const f = createFieldReader(body, svc);
      const grantType = (f.str('grantType', CUSTOMER_TOKEN.grantType) as string).toLowerCase();
      const byCode = grantType === 'authorization_code';
      const field = byCode ? 'authCode' : 'refreshToken';
      const secret = f.str(field, { ...CUSTOMER_TOKEN[field], required: true }) as string;
      f.passthrough('additionalInfo');
      const tokens = newTokens(now);
      // Keyed by the merchant too: another merchant's try neither takes nor spends it.
      const key: BindingKey = byCode
        ? { merchantId: merchant.id, authCodeHash: sha256(secret) }
        : { merchantId: merchant.id, refreshTokenHash: sha256(secret) };
      const found = await store.findBinding(key);
      const taken =
        found && (await isUsable(found))
          ? await store.changeBinding(
              key,
              [byCode ? 'authorized' : 'bound'],
              byCode
                ? { status: 'bound', authCodeHash: null, authCodeExpiresAt: null, ...tokens.change }
                : tokens.change,
              now,
              { before: { column: byCode ? 'authCodeExpiresAt' : 'refreshTokenExpiresAt', now } },
            )
          : undefined;
      if (!taken) {
        throw snapError('UNAUTHORIZED', svc, { reason: byCode ? 'Invalid Auth Code' : 'Invalid Refresh Token' });
      }
      return JSON.stringify({
        responseCode: '2007400',
        responseMessage: 'Successful',
        accessToken: tokens.accessToken,
        tokenType: 'Bearer',
        accessTokenExpiryTime: formatJakartaTimestamp(tokens.change.accessTokenExpiresAt),
        refreshToken: tokens.refreshToken,
        refreshTokenExpiryTime: formatJakartaTimestamp(tokens.change.refreshTokenExpiresAt),
        additionalInfo: {
          referenceNo: taken.id,
          partnerReferenceNo: taken.partnerReferenceNo,
          payOption: taken.payOption,
        },
      });
    },

    /** The bound binding a payment names by its customer token (54 with `Authorization-Customer`), for its wallet. */
    async boundFor(ctx: MerchantRequest, payOption: string): Promise<AccountBinding> {
      const binding = await boundBy(ctx.serviceCode, ctx.merchant, ctx.customerToken, ctx.now);
      if (binding.payOption !== payOption) {
        throw snapError('INVALID_FIELD_FORMAT', ctx.serviceCode, { field: 'payOptionDetails[0].payOption' });
      }
      return binding;
    },

    /**
     * Bindings approved at a connected wallet whose authCode lapsed untraded (the merchant never
     * took the customer's token): each is declined, its wallet tokens dropped, and ended at the
     * wallet with the token it held (best effort: the customer can also end it in the wallet's
     * app). How many were released.
     */
    async releaseUntraded(now: number): Promise<number> {
      let released = 0;
      for (const binding of await store.findUntradedBindings(now, 100)) {
        const token = binding.walletAccessToken;
        const change = { status: 'declined' as const, authCodeHash: null, authCodeExpiresAt: null, ...NO_WALLET_TOKEN };
        // Taken first, so that of several instances one releases it.
        if (!(await store.changeBinding({ id: binding.id }, ['authorized'], change, now))) continue;
        released++;
        const wallet = await store.findProviderById(binding.providerId);
        if (!wallet || wallet.isSandbox || token === null) continue;
        await deps.wallets.unbind(wallet, binding, token, SERVICE.accountUnbinding).catch((err: unknown) => {
          deps.logger?.warn({ err, bindingId: binding.id, providerId: wallet.id }, 'unbinding at the wallet failed');
        });
      }
      return released;
    },

    /** The customer's token at a bound binding's connected wallet, which its payment there carries. */
    walletTokenFor: (ctx: MerchantRequest, binding: AccountBinding, wallet: ProviderRecord) =>
      walletTokenOf(ctx.serviceCode, binding, wallet, ctx.now),

    /** The sandbox wallet's consent page: who asks to bind which wallet, while the customer may still answer. */
    async consent(consentId: string, now: number): Promise<{ merchantName: string; wallet: string } | undefined> {
      const pending = await pendingConsent(consentId, now, true);
      if (!pending) return undefined;
      const merchant = await store.findMerchantById(pending.binding.merchantId);
      return { merchantName: merchant?.merchantName ?? '', wallet: pending.binding.payOption };
    },

    /**
     * The customer answers the sandbox wallet's consent page: approved, the binding is `authorized`
     * with a new one-time authCode; declined, it is `declined`. Where the customer goes then (backTo).
     */
    async answer(consentId: string, approve: boolean, now: number): Promise<string | undefined> {
      const pending = await pendingConsent(consentId, now, true);
      if (!pending) return undefined;
      return settle(pending.binding, approve ? {} : undefined, now);
    },

    /**
     * The customer is back from a connected wallet's page (`/bind/<consentId>/return`), with the
     * wallet's authCode when they approved: snapgate trades it for the customer's token there at
     * once, then sends the customer on as from the sandbox wallet's page (backTo), with its own
     * authCode. A refused or failed trade is a decline. Undefined for a page that is not waiting.
     */
    returned(consentId: string, walletAuthCode: string | undefined, now: number): Promise<string | undefined> {
      // The same way back twice at once (a reload, a prefetch) is one trade, one answer.
      return returning(consentId, () => comeBack(consentId, walletAuthCode, now));
    },
  };
}

export type BindingService = ReturnType<typeof createBindingService>;

import { createHash } from 'node:crypto';
import { formatJakartaTimestamp, SERVICE, snapError } from '@snapgate/snap';
import type { Mode } from '../config.ts';
import { newClientSecret } from '../merchants/merchant-service.ts';
import type { AccountBinding, BindingKey } from '../records/binding-records.ts';
import type { ProviderRecord } from '../records/provider-records.ts';
import { type MerchantRecord, UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { newCheckoutId, normalizedUrl } from './checkout-link.ts';
import { createFieldReader } from './fields.ts';
import { type RecordFor, type SnapResponse, snapOk } from './idempotency.ts';
import { newReferenceNo } from './ids.ts';
import { ACCOUNT_BINDING, ACCOUNT_UNBINDING, CUSTOMER_TOKEN } from './snap-fields.ts';
import type { MerchantRequest } from './snap-request.ts';

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

export interface BindingServiceDeps {
  store: Store;
  /** The gateway's public address, read when a binding is made. */
  publicUrl: () => string;
  mode?: Mode;
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
    wallet.status === 'active' && !(wallet.isSandbox && deps.mode === 'production');

  /** The wallet of `payOption`, if it binds accounts: the sandbox wallet, outside production. */
  async function bindingWallet(svc: string, payOption: string): Promise<ProviderRecord> {
    const wallet = await store.findWallet(payOption);
    if (!wallet || !serves(wallet)) {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Pay Option Not Available', detail: { payOption } });
    }
    if (!wallet.isSandbox) {
      throw snapError('FEATURE_NOT_ALLOWED', svc, { reason: 'Binding Not Available', detail: { payOption } });
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

  /** The binding of a consent page while the customer may still answer it (30 minutes). */
  async function pendingConsent(consentId: string, now: number): Promise<AccountBinding | undefined> {
    const binding = await store.findBinding({ consentId });
    return binding?.status === 'pending' && now < binding.createdAt + BINDING_TTL.consentMs ? binding : undefined;
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
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      const response = snapOk(svc, {
        referenceNo: binding.id,
        partnerReferenceNo,
        redirectUrl: `${deps.publicUrl()}${consentPathOf(binding.consentId)}`,
        additionalInfo: { payOption },
      });
      try {
        await store.insertBinding(binding, recordFor(response));
      } catch (e) {
        if (e instanceof UniqueViolation && e.constraint.includes('partner_reference_no')) {
          throw snapError('DUPLICATE_PARTNER_REFERENCE_NO', svc, { detail: { partnerReferenceNo } });
        }
        throw e;
      }
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

    /** The sandbox wallet's consent page: who asks to bind which wallet, while the customer may still answer. */
    async consent(consentId: string, now: number): Promise<{ merchantName: string; wallet: string } | undefined> {
      const binding = await pendingConsent(consentId, now);
      if (!binding) return undefined;
      const merchant = await store.findMerchantById(binding.merchantId);
      return { merchantName: merchant?.merchantName ?? '', wallet: binding.payOption };
    },

    /**
     * The customer answers the sandbox wallet's consent page: approved, the binding is `authorized`
     * with a new one-time authCode; declined, it is `declined`. Where the customer goes then: the
     * merchant's redirectUrl with `authCode` (approved), `state` and `resultCode` (`00` or `06`).
     */
    async answer(consentId: string, approve: boolean, now: number): Promise<string | undefined> {
      const authCode = newSecret();
      const change = approve
        ? {
            status: 'authorized' as const,
            authCodeHash: sha256(authCode),
            authCodeExpiresAt: now + BINDING_TTL.authCodeMs,
          }
        : { status: 'declined' as const };
      if (!(await pendingConsent(consentId, now))) return undefined;
      const answered = await store.changeBinding({ consentId }, ['pending'], change, now);
      if (!answered) return undefined;
      const back = new URL(answered.redirectUrl);
      if (approve) back.searchParams.set('authCode', authCode);
      back.searchParams.set('state', answered.partnerReferenceNo);
      back.searchParams.set('resultCode', approve ? '00' : '06');
      return back.href;
    },
  };
}

export type BindingService = ReturnType<typeof createBindingService>;

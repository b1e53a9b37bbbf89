// Account binding (docs/ewallets.md#account-binding): a customer's wallet account bound to a
// merchant, so that its e-wallet payments need no redirect.
import type { IdempotencyRecord } from './records.ts';

/**
 * `pending` until the customer answers at the wallet; `authorized` with a one-time authCode the
 * merchant has not traded yet; `bound` once it has its customer token; `declined` or `unbound` for
 * good.
 */
export type BindingStatus = 'pending' | 'authorized' | 'bound' | 'declined' | 'unbound';

export interface AccountBinding {
  /** snapgate's reference of the binding (its `referenceNo`). */
  id: string;
  merchantId: string;
  /** The merchant's reference of it, unique per merchant. */
  partnerReferenceNo: string;
  /** The wallet provider it is bound at. */
  providerId: string;
  payOption: string;
  status: BindingStatus;
  /** Where the customer goes back to from the wallet, with the authCode. */
  redirectUrl: string;
  phoneNo: string | null;
  /** Names the wallet's consent page (`/bind/<consentId>`): random, not guessable. */
  consentId: string;
  /** SHA-256 hex of the one-time authCode while `authorized`. */
  authCodeHash: string | null;
  authCodeExpiresAt: number | null;
  /** SHA-256 hex of the customer's access token and refresh token while `bound`. */
  accessTokenHash: string | null;
  accessTokenExpiresAt: number | null;
  refreshTokenHash: string | null;
  refreshTokenExpiresAt: number | null;
  /**
   * A connected wallet's side of it (docs/ewallets.md#binding-at-a-connected-wallet): its reference
   * of the binding, and its page where the customer answers (`null` until the wallet answered 07).
   */
  walletReferenceNo: string | null;
  walletRedirectUrl: string | null;
  /**
   * The customer's token at a connected wallet, which its bound payments and its unbinding carry
   * (`Authorization-Customer`), and the refresh token that renews it: clear here, sealed at rest.
   */
  walletAccessToken: string | null;
  walletAccessTokenExpiresAt: number | null;
  walletRefreshToken: string | null;
  walletRefreshTokenExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A change of a binding's status, with its codes and tokens as they are after (`null` clears). */
export type BindingChange = Partial<
  Pick<
    AccountBinding,
    | 'status'
    | 'authCodeHash'
    | 'authCodeExpiresAt'
    | 'accessTokenHash'
    | 'accessTokenExpiresAt'
    | 'refreshTokenHash'
    | 'refreshTokenExpiresAt'
    | 'partnerReferenceNo'
    | 'walletReferenceNo'
    | 'walletRedirectUrl'
    | 'walletAccessToken'
    | 'walletAccessTokenExpiresAt'
    | 'walletRefreshToken'
    | 'walletRefreshTokenExpiresAt'
  >
>;

/** How a binding is found: by id, by its consent page, by the merchant's reference, by a code or a token's hash. */
export type BindingKey =
  | { id: string }
  | { consentId: string }
  | { merchantId: string; partnerReferenceNo: string }
  | { authCodeHash: string }
  | { accessTokenHash: string }
  | { refreshTokenHash: string };

/** How a change of a binding is guarded and kept. */
export interface BindingChangeOptions {
  /** Only while this expiry is ahead of `now`. */
  before?: { column: 'authCodeExpiresAt' | 'refreshTokenExpiresAt' | 'accessTokenExpiresAt'; now: number };
  /** The answer, kept under its X-EXTERNAL-ID in the same transaction. */
  idempotency?: IdempotencyRecord;
}

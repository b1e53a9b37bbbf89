// Merchant users (docs/merchant-users.md): the people of a merchant who sign in to its dashboard
// themselves, each with a role.

/** What a user may do: `owner` everything and its users; `finance` money; `developer` keys and callbacks; `viewer` read. */
export const MERCHANT_ROLES = ['owner', 'finance', 'developer', 'viewer'] as const;
export type MerchantRole = (typeof MERCHANT_ROLES)[number];

/** `invited` until the invitation is taken (a password set); `disabled` for good. */
export type MerchantUserStatus = 'invited' | 'active' | 'disabled';

export interface MerchantUser {
  id: string;
  merchantId: string;
  /** Lower case; one user per address across the gateway (it signs in by it). */
  email: string;
  role: MerchantRole;
  status: MerchantUserStatus;
  /** The password's scrypt record (secrets/passwords.ts); null until the invitation is taken. */
  passwordHash: string | null;
  /** SHA-256 hex of the one-time invitation token while `invited`. */
  invitationHash: string | null;
  invitationExpiresAt: number | null;
  /** The TOTP secret (base32): clear here, sealed at rest; set once set up, even before it is confirmed. */
  totpSecret: string | null;
  /** When two-factor sign-in was turned on (its first code taken); null: off. */
  totpEnabledAt: number | null;
  /** The step of the last code taken: a code signs in once. */
  totpLastStep: number | null;
  /** Wrong passwords since `failuresSince`, within the throttling window. */
  failedSignIns: number;
  failuresSince: number | null;
  /** Until when every sign-in of the account is refused (429), the right password included. */
  lockedUntil: number | null;
  /** Sessions issued until then are ended (signing out everywhere, a new password, disabling). */
  sessionsNotBefore: number | null;
  lastSignInAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A change of a user: the fields as they are after (`null` clears). */
export type MerchantUserChange = Partial<
  Pick<
    MerchantUser,
    | 'role'
    | 'status'
    | 'passwordHash'
    | 'invitationHash'
    | 'invitationExpiresAt'
    | 'totpSecret'
    | 'totpEnabledAt'
    | 'totpLastStep'
    | 'failedSignIns'
    | 'failuresSince'
    | 'lockedUntil'
    | 'sessionsNotBefore'
    | 'lastSignInAt'
  >
>;

/** How a user is found. */
export type MerchantUserKey = { id: string } | { email: string } | { invitationHash: string };

/** What a change requires of the user as it is (one statement: of two at once, one wins). */
export interface MerchantUserGuard {
  status?: readonly MerchantUserStatus[];
  /** The last code's step as read (a code is taken once). */
  totpLastStep?: number | null;
  /** Two-factor sign-in still off. */
  totpOff?: true;
  /** Unchanged since it was read (its `updatedAt` then). */
  updatedAt?: number;
  /** The invitation still this one, and unexpired at `now`. */
  invitation?: { hash: string; now: number };
}

/** A sign-in attempt, as the store counts it for throttling (MerchantUserStore.claimSignInAttempt). */
export interface SignInFailure {
  id: string;
  at: number;
  /** Failures count within this window from the first. */
  windowMs: number;
  /** This many within the window lock the account… */
  limit: number;
  /** …for this long. */
  lockMs: number;
}

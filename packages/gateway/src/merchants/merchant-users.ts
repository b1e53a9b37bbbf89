import { createHash } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import {
  MERCHANT_ROLES,
  type MerchantRole,
  type MerchantUser,
  type MerchantUserStatus,
} from '../records/merchant-user-records.ts';
import { UniqueViolation } from '../records/records.ts';
import { hashPassword, passwordProblem, verifyPassword } from '../secrets/passwords.ts';
import { newTotpSecret, otpauthUri, verifyTotp } from '../secrets/totp.ts';
import type { Store } from '../store/store.ts';
import { newClientSecret } from './merchant-service.ts';

/** docs/merchant-users.md: how long an invitation link works. */
export const INVITATION_MS = 72 * 3600_000;
/** After this many wrong passwords for one account within the window, it is locked for the lock's time. */
export const ACCOUNT_THROTTLE = { limit: 10, windowMs: 15 * 60_000, lockMs: 15 * 60_000 } as const;
/** Failed sign-ins from one address in a minute, past which it is refused (429) before any password is tried. */
export const MERCHANT_SIGN_IN_FAILURES = 50;
/** A hash to compare against when no account matches: a sign-in takes as long whether the email exists or not. */
let decoy: Promise<string> | undefined;
const decoyHash = () => {
  decoy ??= hashPassword('no such user: a decoy to spend the same time');
  return decoy;
};

const sha256 = (secret: string) => createHash('sha256').update(secret).digest('hex');
const EMAIL =
  /^[^\s@<>()[\]\\,;:"]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** A user as operators and its merchant see it: never a hash, a secret or a token. */
export interface MerchantUserView {
  id: string;
  merchantId: string;
  email: string;
  role: MerchantRole;
  status: MerchantUserStatus;
  /** Whether two-factor sign-in (TOTP) is on. */
  twoFactor: boolean;
  lastSignInAt: number | null;
  createdAt: number;
}

export const userView = (u: MerchantUser): MerchantUserView => ({
  id: u.id,
  merchantId: u.merchantId,
  email: u.email,
  role: u.role,
  status: u.status,
  twoFactor: u.totpEnabledAt !== null,
  lastSignInAt: u.lastSignInAt,
  createdAt: u.createdAt,
});

/** How a sign-in ended. */
export type SignInResult =
  /** Signed in; `setUpTwoFactor` when two-factor sign-in is required and not on yet (before any other page). */
  | { outcome: 'signed-in'; user: MerchantUser; setUpTwoFactor: boolean }
  /** The password is right and two-factor sign-in is on: a code is needed (or the one given was not right). */
  | { outcome: 'code-needed'; user: MerchantUser; wrongCode: boolean }
  /** The email, the password or the account is not right (which, it does not say). */
  | { outcome: 'refused' }
  /** Too many wrong passwords for this account: refused whatever the password until `until`. */
  | { outcome: 'locked'; until: number };

export interface MerchantUserDeps {
  store: Store;
  clock: Clock;
  /** The gateway's public address: where invitation links point. */
  publicUrl: () => string;
  /** `SNAPGATE_MERCHANT_2FA=required`: every user turns on two-factor sign-in right after the password. */
  twoFactorRequired: boolean;
}

/** The invitation page of a token. */
export const invitationPathOf = (token: string) => `/merchant/invitation/${token}`;

/**
 * Merchant users (docs/merchant-users.md): the operator invites a merchant's people, who set their
 * own password from the one-time link, may turn on TOTP, and sign in to the merchant's dashboard.
 */
export function createMerchantUserService(deps: MerchantUserDeps) {
  const { store, clock } = deps;

  async function ownUser(merchantId: string, userId: string): Promise<MerchantUser> {
    const user = await store.findMerchantUser({ id: userId });
    if (!user || user.merchantId !== merchantId) throw notFound(`user ${userId}`);
    return user;
  }

  /** A new invitation token for a user: the token (shown once) and the change that keeps its hash. */
  function newInvitation(now: number) {
    const token = newClientSecret();
    return {
      url: `${deps.publicUrl()}${invitationPathOf(token)}`,
      change: { invitationHash: sha256(token), invitationExpiresAt: now + INVITATION_MS },
    };
  }

  /** The invited user a token names, while it works. */
  async function invitedBy(token: string, now: number): Promise<MerchantUser | undefined> {
    if (token.length > 128) return undefined;
    const user = await store.findMerchantUser({ invitationHash: sha256(token) });
    const works = user?.status === 'invited' && (user.invitationExpiresAt ?? 0) > now;
    return works ? user : undefined;
  }

  /** The user a session names, as it is now (undefined when it is no longer active, or its merchant is not). */
  async function activeUser(userId: string): Promise<MerchantUser | undefined> {
    const user = await store.findMerchantUser({ id: userId });
    if (user?.status !== 'active') return undefined;
    const merchant = await store.findMerchantById(user.merchantId);
    return merchant?.status === 'active' ? user : undefined;
  }

  /**
   * Sign-in attempts for emails of no account, counted as an account's are (kept in memory, by
   * the email's hash): so a lock says nothing of whether the email is a user's.
   */
  const unknown = new Map<string, { since: number; count: number; lockedUntil: number }>();

  /**
   * Takes one attempt of an account (or of an email of none) before its password or code is tried:
   * the account as it is after the count (none for an email of none), or when its lock ends.
   */
  async function claim(
    email: string,
    user: MerchantUser | undefined,
    now: number,
  ): Promise<{ user: MerchantUser | undefined } | { lockedUntil: number }> {
    if (user) {
      const counted = await store.claimSignInAttempt({ id: user.id, at: now, ...ACCOUNT_THROTTLE });
      if (counted) return { user: counted };
      const lockedUntil = (await store.findMerchantUser({ id: user.id }))?.lockedUntil;
      return { lockedUntil: lockedUntil ?? now + ACCOUNT_THROTTLE.lockMs };
    }
    const key = sha256(email);
    let w = unknown.get(key);
    if (w && w.lockedUntil > now) return { lockedUntil: w.lockedUntil };
    if (!w || w.since <= now - ACCOUNT_THROTTLE.windowMs) {
      if (unknown.size >= 10_000) unknown.delete(unknown.keys().next().value as string);
      w = { since: now, count: 0, lockedUntil: 0 };
      unknown.set(key, w);
    }
    w.count++;
    if (w.count >= ACCOUNT_THROTTLE.limit) w.lockedUntil = now + ACCOUNT_THROTTLE.lockMs;
    return { user: undefined };
  }

  /** The end of a sign-in whose password was right: the TOTP code when it is on, then signed in. */
  async function finish(user: MerchantUser, code: string | undefined, now: number): Promise<SignInResult> {
    // Two-factor sign-in on without its key is no way in.
    if (user.totpEnabledAt !== null && user.totpSecret === null) return { outcome: 'refused' };
    if (user.totpEnabledAt !== null && user.totpSecret !== null) {
      const given = code?.trim() ?? '';
      if (given === '') return { outcome: 'code-needed', user, wrongCode: false };
      const step = verifyTotp(user.totpSecret, given, now, user.totpLastStep);
      // The code is taken once: of two sign-ins with it at once, one wins.
      const taken =
        step === undefined
          ? undefined
          : await store.changeMerchantUser(user.id, { totpLastStep: step }, now, { totpLastStep: user.totpLastStep });
      if (!taken) return { outcome: 'code-needed', user, wrongCode: true };
    }
    const signedIn = await store.changeMerchantUser(
      user.id,
      { failedSignIns: 0, failuresSince: null, lockedUntil: null, lastSignInAt: now },
      now,
      { status: ['active'] },
    );
    if (!signedIn) return { outcome: 'refused' };
    return {
      outcome: 'signed-in',
      user: signedIn,
      setUpTwoFactor: deps.twoFactorRequired && signedIn.totpEnabledAt === null,
    };
  }

  return {
    /**
     * Invites a person of the merchant: the user, and its one-time invitation link (72 hours),
     * shown this once: it is kept as a hash only, and never logged or audited.
     */
    async invite(merchantId: string, input: { email?: unknown; role?: unknown }) {
      const problems: string[] = [];
      const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
      if (email.length > 254 || !EMAIL.test(email)) problems.push('email: an email address, such as siti@toko.example');
      const role = input.role as MerchantRole;
      if (!MERCHANT_ROLES.includes(role)) problems.push(`role: one of ${MERCHANT_ROLES.join(', ')}`);
      if (problems.length > 0) throw invalid('the user is not valid', problems);
      const merchant = await store.findMerchantById(merchantId);
      if (!merchant) throw notFound(`merchant ${merchantId}`);
      const now = clock.now();
      const invitation = newInvitation(now);
      const user: MerchantUser = {
        id: `mu_${newClientSecret().slice(0, 22)}`,
        merchantId,
        email,
        role,
        status: 'invited',
        passwordHash: null,
        ...invitation.change,
        totpSecret: null,
        totpEnabledAt: null,
        totpLastStep: null,
        failedSignIns: 0,
        failuresSince: null,
        lockedUntil: null,
        sessionsNotBefore: null,
        lastSignInAt: null,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await store.insertMerchantUser(user);
      } catch (e) {
        if (e instanceof UniqueViolation) throw conflict(`${email} is a user already (of this or another merchant)`);
        throw e;
      }
      return { user: userView(user), invitationUrl: invitation.url };
    },

    /** A new invitation link for a user who has not taken theirs (the old one stops working). */
    async reinvite(merchantId: string, userId: string) {
      const user = await ownUser(merchantId, userId);
      if (user.status !== 'invited')
        throw conflict(`user ${userId} is ${user.status}: only an invited user is invited again`);
      const invitation = newInvitation(clock.now());
      const changed = await store.changeMerchantUser(userId, invitation.change, clock.now(), { status: ['invited'] });
      if (!changed) throw conflict(`user ${userId} took the invitation meanwhile`);
      return { user: userView(changed), invitationUrl: invitation.url };
    },

    async list(merchantId: string): Promise<MerchantUserView[]> {
      if (!(await store.findMerchantById(merchantId))) throw notFound(`merchant ${merchantId}`);
      return (await store.listMerchantUsers(merchantId)).map(userView);
    },

    async get(merchantId: string, userId: string): Promise<MerchantUserView> {
      return userView(await ownUser(merchantId, userId));
    },

    /** Another role; the user's sessions go on with it at once (a session reads its user every time). */
    async changeRole(merchantId: string, userId: string, role: unknown): Promise<MerchantUserView> {
      if (!MERCHANT_ROLES.includes(role as MerchantRole)) {
        throw invalid('the role is not valid', [`role: one of ${MERCHANT_ROLES.join(', ')}`]);
      }
      await ownUser(merchantId, userId);
      const changed = await store.changeMerchantUser(userId, { role: role as MerchantRole }, clock.now(), {
        status: ['invited', 'active'],
      });
      if (!changed) throw conflict(`user ${userId} is disabled`);
      return userView(changed);
    },

    /** Disables a user for good: its sessions end at once, its invitation stops working. */
    async disable(merchantId: string, userId: string): Promise<MerchantUserView> {
      await ownUser(merchantId, userId);
      const now = clock.now();
      const changed = await store.changeMerchantUser(
        userId,
        { status: 'disabled', invitationHash: null, invitationExpiresAt: null, sessionsNotBefore: now },
        now,
        { status: ['invited', 'active'] },
      );
      if (!changed) throw conflict(`user ${userId} is disabled already`);
      return userView(changed);
    },

    /**
     * Turns a user's two-factor sign-in off (a lost phone): its key is dropped and its sessions end;
     * the user signs in with the password and may set it up again.
     */
    async resetTwoFactor(merchantId: string, userId: string): Promise<MerchantUserView> {
      await ownUser(merchantId, userId);
      const now = clock.now();
      const changed = await store.changeMerchantUser(
        userId,
        { totpSecret: null, totpEnabledAt: null, totpLastStep: null, sessionsNotBefore: now },
        now,
        { status: ['invited', 'active'] },
      );
      if (!changed) throw conflict(`user ${userId} is disabled`);
      return userView(changed);
    },

    /** The invitation page's facts, while its token works. */
    async invitation(token: string): Promise<{ email: string; merchantName: string } | undefined> {
      const user = await invitedBy(token, clock.now());
      if (!user) return undefined;
      const merchant = await store.findMerchantById(user.merchantId);
      return merchant?.status === 'active' ? { email: user.email, merchantName: merchant.merchantName } : undefined;
    },

    /**
     * The invited user sets their password: the user, now active (the token is spent), or why the
     * password is refused. Undefined when the token does not work (any more).
     */
    async acceptInvitation(
      token: string,
      password: string,
    ): Promise<{ user: MerchantUser } | { problem: string } | undefined> {
      const now = clock.now();
      const user = await invitedBy(token, now);
      if (!user) return undefined;
      const problem = passwordProblem(password, user.email);
      if (problem) return { problem };
      const passwordHash = await hashPassword(password);
      const taken = await store.changeMerchantUser(
        user.id,
        { status: 'active', passwordHash, invitationHash: null, invitationExpiresAt: null },
        clock.now(),
        { status: ['invited'], invitation: { hash: sha256(token), now } },
      );
      return taken ? { user: taken } : undefined;
    },

    /**
     * A sign-in with an email and a password; then, when two-factor sign-in is on, `code-needed`
     * (signInWithCode). Which of the email or the password is wrong is never said, and it takes as
     * long either way. Each attempt is counted before its password is tried (ACCOUNT_THROTTLE),
     * so no more than its limit are ever tried in a window, however many come at once; a locked
     * account is refused whatever the password.
     */
    async signIn(input: { email: string; password: string }): Promise<SignInResult> {
      const now = clock.now();
      const email = input.email.trim().toLowerCase().slice(0, 254);
      const found = email === '' ? undefined : await store.findMerchantUser({ email });
      const attempt = await claim(email, found, now);
      const user = 'user' in attempt ? attempt.user : undefined;
      // A locked account costs a hash too (the decoy's): a lock takes as long as a wrong password.
      const matches = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash()));
      if ('lockedUntil' in attempt) return { outcome: 'locked', until: attempt.lockedUntil };
      if (!user || !matches || user.passwordHash === null) return { outcome: 'refused' };
      const merchant = await store.findMerchantById(user.merchantId);
      if (user.status !== 'active' || merchant?.status !== 'active') return { outcome: 'refused' };
      return finish(user, undefined, now);
    },

    /**
     * The TOTP code of a user whose password was right (the sign-in's second step), counted as a
     * password attempt is.
     */
    async signInWithCode(userId: string, code: string): Promise<SignInResult> {
      const now = clock.now();
      const found = await activeUser(userId);
      if (!found || found.totpEnabledAt === null) return { outcome: 'refused' };
      const attempt = await claim(found.email, found, now);
      if ('lockedUntil' in attempt) return { outcome: 'locked', until: attempt.lockedUntil };
      return attempt.user ? finish(attempt.user, code, now) : { outcome: 'refused' };
    },

    /**
     * Starts turning on two-factor sign-in: a new secret (kept sealed, not on until a code of it is
     * given) and the URI the authenticator app reads.
     */
    async startTwoFactor(userId: string): Promise<{ secret: string; uri: string }> {
      const secret = newTotpSecret();
      const user = await store.changeMerchantUser(userId, { totpSecret: secret, totpLastStep: null }, clock.now(), {
        status: ['active'],
        totpOff: true,
      });
      if (!user) throw conflict(`two-factor sign-in of user ${userId} is on already (or the user is not active)`);
      return { secret, uri: otpauthUri({ issuer: 'snapgate', account: user.email, secret }) };
    },

    /** Turns two-factor sign-in on with the first code of the secret started; false for a wrong code. */
    async confirmTwoFactor(userId: string, code: string): Promise<boolean> {
      const now = clock.now();
      const user = await store.findMerchantUser({ id: userId });
      if (user?.status !== 'active' || user.totpSecret === null || user.totpEnabledAt !== null) return false;
      const step = verifyTotp(user.totpSecret, code, now, user.totpLastStep);
      if (step === undefined) return false;
      // Only the key the code was checked against: a new key started meanwhile changed the user.
      const on = await store.changeMerchantUser(userId, { totpEnabledAt: now, totpLastStep: step }, now, {
        status: ['active'],
        totpOff: true,
        updatedAt: user.updatedAt,
      });
      return on !== undefined;
    },

    activeUser,
  };
}

export type MerchantUserService = ReturnType<typeof createMerchantUserService>;

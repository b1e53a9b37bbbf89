import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { conflict, notFound } from '../domain-error.ts';
import type { MerchantUser } from '../records/merchant-user-records.ts';
import type { AdminKeyRecord, MerchantRecord } from '../records/records.ts';
import type { AccessStore, ClientStore, MerchantUserStore, SettingsStore } from '../store/store.ts';
import type { AdminKeyService } from './admin-keys.ts';

/**
 * Console sessions and portal links are stateless: a payload and its HMAC-SHA256 under a key every
 * instance shares through the store's settings (sealed at rest, see SECRET_SETTINGS), so any
 * instance on the same database accepts what another issued. What a session refers to (the admin
 * key, the merchant) is re-read on every request: revoking the key or disabling the merchant ends
 * the session at once. A portal link also leaves one row behind when it is used: it signs in once,
 * on whichever instance it is used first (AccessStore.usePortalLink).
 */
export const SESSION_KEY_SETTING = 'console_session_key';

export const OPERATOR_SESSION_MS = 8 * 3600_000;
export const PORTAL_SESSION_MS = 2 * 3600_000;
export const PORTAL_LINK_MS = 15 * 60_000;
export const USER_SESSION_MS = 8 * 3600_000;
/** How long a right password waits for its TOTP code. */
export const CODE_STEP_MS = 5 * 60_000;
/**
 * How long the use of a sign-in link is kept past the link's expiry: the link's signature refuses
 * it from then on, but instances' clocks may differ a little, so not to the millisecond.
 */
const LINK_USE_KEPT_MS = 3600_000;

export type SessionPayload =
  /**
   * An operator, by the admin key's id and a MAC of its SHA-256 (never the hash itself: a cookie
   * must not help anyone guess the key).
   */
  | { t: 'op'; k: string; h: string; iat: number; exp: number; n: string }
  /** A merchant in its portal. */
  | { t: 'portal'; m: string; iat: number; exp: number; n: string }
  /** A portal sign-in link, exchanged for a portal session once (its nonce `n` marks it used). */
  | { t: 'link'; m: string; iat: number; exp: number; n: string }
  /** A merchant user signed in to its merchant's dashboard (docs/merchant-users.md). */
  | { t: 'user'; u: string; iat: number; exp: number; n: string }
  /** A merchant user whose password was right, until the TOTP code is given (a few minutes). */
  | { t: 'code'; u: string; iat: number; exp: number; n: string };

/**
 * Whether a session issued at `iat` was ended since: by a log-out (`notBefore`), or, for a
 * merchant's portal, by disabling the merchant (`tokensNotBefore`).
 */
export const endedSince = (iat: number, ...notBefore: Array<number | null | undefined>): boolean =>
  notBefore.some((t) => t !== null && t !== undefined && iat <= t);

export const nonce = () => randomBytes(16).toString('base64url');

/** MACs under the session key: CSRF tokens, and the log-in forms' pre-session value. */
export interface MacChecker {
  /** A MAC of a text, base64url. */
  mac(text: string): string;
  /** Whether `given` is the MAC of `text`, in constant time. */
  checkMac(text: string, given: string | undefined): boolean;
}

interface Signer extends MacChecker {
  sign(payload: SessionPayload): string;
  /** The payload when the MAC is right and it has not expired at `now`. */
  verify(token: string | undefined, now: number): SessionPayload | undefined;
}

function signerOf(secret: string): Signer {
  const key = Buffer.from(secret, 'base64url');
  const macOf = (text: string) => createHmac('sha256', key).update(text).digest();
  const same = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);
  return {
    sign(payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${macOf(`session.${body}`).toString('base64url')}`;
    },
    verify(token, now) {
      if (!token || token.length > 2048) return undefined;
      const [body, mac, extra] = token.split('.');
      if (!body || !mac || extra !== undefined) return undefined;
      if (!same(Buffer.from(mac, 'base64url'), macOf(`session.${body}`))) return undefined;
      let payload: SessionPayload;
      try {
        payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SessionPayload;
      } catch {
        return undefined;
      }
      if (
        typeof payload !== 'object' ||
        payload === null ||
        typeof payload.exp !== 'number' ||
        typeof payload.iat !== 'number'
      ) {
        return undefined;
      }
      return payload.exp > now ? payload : undefined;
    },
    mac: (text) => macOf(`mac.${text}`).toString('base64url'),
    checkMac(text, given) {
      if (typeof given !== 'string' || given.length > 256) return false;
      return same(Buffer.from(given, 'base64url'), macOf(`mac.${text}`));
    },
  };
}

/** A signed-in operator: the admin key, re-read, and the session's CSRF token. */
export interface OperatorSession {
  key: AdminKeyRecord;
  csrf: string;
}

/** A merchant in its portal, re-read, and the session's CSRF token. */
export interface PortalSession {
  merchant: MerchantRecord;
  csrf: string;
  /** The merchant user signed in, re-read: absent in a portal opened with an operator's link. */
  user?: MerchantUser;
}

/** A new session: its token (the cookie's value) and how long it lasts. */
export interface IssuedSession {
  token: string;
  maxAgeSec: number;
}

/**
 * What a portal sign-in link is worth: `valid` until its first use, `used` after it (it signs in
 * once), `invalid` when it is no link, expired, or its merchant is disabled or signed out since.
 */
export type PortalLinkCheck =
  | { outcome: 'valid'; merchant: MerchantRecord }
  | { outcome: 'used'; merchant: MerchantRecord }
  | { outcome: 'invalid' };

/** A sign-in link exchanged for a portal session (`entered`), or why not. */
export type PortalEntry =
  | ({ outcome: 'entered'; merchant: MerchantRecord } & IssuedSession)
  | { outcome: 'used'; merchant: MerchantRecord }
  | { outcome: 'invalid' };

export interface SessionServiceDeps {
  store: SettingsStore & ClientStore & AccessStore & MerchantUserStore;
  clock: Clock;
  adminKeys: AdminKeyService;
  /** Where the console answers (SNAPGATE_PUBLIC_URL, or the bound address once listening). */
  publicUrl: () => string;
}

/**
 * Operator sessions (an admin key exchanged for a session), merchant portal sign-in links and
 * portal sessions: issued, checked on every request against what they refer to, and ended on the
 * server (log-out). `load()` reads the shared session key once; the console awaits it before it
 * serves, the other calls await it themselves.
 */
export function createSessionService({ store, clock, adminKeys, publicUrl }: SessionServiceDeps) {
  let loaded: Signer | undefined;
  let loading: Promise<Signer> | undefined;
  const load = async (): Promise<Signer> => {
    loading ??= store
      .getOrCreateSetting(SESSION_KEY_SETTING, () => randomBytes(32).toString('base64url'))
      .then((secret) => {
        loaded = signerOf(secret);
        return loaded;
      });
    return loaded ?? (await loading);
  };
  const signer = (): Signer => {
    if (!loaded) throw new TypeError('the session key is not loaded: await sessions.load() first');
    return loaded;
  };

  /** The merchant a link or portal token names, while active and not signed out since; with the token's payload. */
  async function signedMerchant(kind: 'link' | 'portal', token: string | undefined) {
    const s = (await load()).verify(token, clock.now());
    if (s?.t !== kind || typeof s.n !== 'string') return undefined;
    const merchant = await store.findMerchantById(s.m);
    if (merchant?.status !== 'active' || endedSince(s.iat, merchant.portalNotBefore, merchant.tokensNotBefore)) {
      return undefined;
    }
    return { merchant, payload: s };
  }

  return {
    load: async (): Promise<void> => {
      await load();
    },
    mac: (text: string) => signer().mac(text),
    checkMac: (text: string, given: string | undefined) => signer().checkMac(text, given),

    /** An admin key exchanged for an operator session; undefined when it is no key or revoked. */
    async signIn(adminKey: string | undefined): Promise<(IssuedSession & { key: AdminKeyRecord }) | undefined> {
      const s = await load();
      const key = await adminKeys.authenticate(adminKey);
      if (!key) return undefined;
      const now = clock.now();
      // A session issued in the same millisecond as a log-out would be refused: issue it after.
      const iat = Math.max(now, (key.sessionsNotBefore ?? 0) + 1);
      const token = s.sign({
        t: 'op',
        k: key.id,
        h: s.mac(`key.${key.tokenSha256}`),
        iat,
        exp: now + OPERATOR_SESSION_MS,
        n: nonce(),
      });
      return { token, key, maxAgeSec: OPERATOR_SESSION_MS / 1000 };
    },

    /** The operator behind a session token, re-checked against its admin key on every request. */
    async operatorOf(token: string | undefined): Promise<OperatorSession | undefined> {
      const s = await load();
      const payload = s.verify(token, clock.now());
      if (payload?.t !== 'op' || !token) return undefined;
      const key = await adminKeys.find(payload.k);
      if (!key || key.revokedAt !== null || !s.checkMac(`key.${key.tokenSha256}`, payload.h)) return undefined;
      if (endedSince(payload.iat, key.sessionsNotBefore)) return undefined;
      return { key, csrf: s.mac(`csrf.${token}`) };
    },

    /** Ends every console session of this admin key, on every instance. */
    signOut: (adminKeyId: string): Promise<void> => store.endConsoleSessions({ adminKeyId }, clock.now()),

    /** A portal sign-in link for an active merchant, valid PORTAL_LINK_MS and for one sign-in. */
    async portalLink(merchantId: string): Promise<{ url: string; expiresAt: string; merchant: MerchantRecord }> {
      const s = await load();
      const merchant = await store.findMerchantById(merchantId);
      if (!merchant) throw notFound('merchant');
      if (merchant.status !== 'active') throw conflict('the merchant is disabled');
      const now = clock.now();
      const expiresAt = now + PORTAL_LINK_MS;
      const token = s.sign({ t: 'link', m: merchant.id, iat: now, exp: expiresAt, n: nonce() });
      return {
        url: `${publicUrl()}/console/portal/enter?token=${encodeURIComponent(token)}`,
        expiresAt: new Date(expiresAt).toISOString(),
        merchant,
      };
    },

    /** What a sign-in link is worth now, read only: opening the link's page uses nothing. */
    async checkPortalLink(linkToken: string | undefined): Promise<PortalLinkCheck> {
      const link = await signedMerchant('link', linkToken);
      if (!link) return { outcome: 'invalid' };
      const isUsed = await store.isPortalLinkUsed(link.payload.n);
      return { outcome: isUsed ? 'used' : 'valid', merchant: link.merchant };
    },

    /**
     * A sign-in link exchanged for a portal session, once: its first use is recorded in the store
     * (atomically, so of two uses at once, in two browsers or on two instances, exactly one enters).
     */
    async enterPortal(linkToken: string | undefined): Promise<PortalEntry> {
      const link = await signedMerchant('link', linkToken);
      if (!link) return { outcome: 'invalid' };
      const { merchant, payload } = link;
      const now = clock.now();
      const use = { nonce: payload.n, merchantId: merchant.id, usedAt: now, expiresAt: payload.exp };
      if (!(await store.usePortalLink(use, now - LINK_USE_KEPT_MS))) return { outcome: 'used', merchant };
      const iat = Math.max(now, (merchant.portalNotBefore ?? 0) + 1, (merchant.tokensNotBefore ?? 0) + 1);
      const token = signer().sign({ t: 'portal', m: merchant.id, iat, exp: now + PORTAL_SESSION_MS, n: nonce() });
      return { outcome: 'entered', token, merchant, maxAgeSec: PORTAL_SESSION_MS / 1000 };
    },

    /** The merchant behind a portal session token, re-checked on every request. */
    async portalSessionOf(token: string | undefined): Promise<PortalSession | undefined> {
      const merchant = (await signedMerchant('portal', token))?.merchant;
      return merchant && { merchant, csrf: signer().mac(`csrf.${token}`) };
    },

    /**
     * A session for a merchant user who signed in (`user`), or whose password was right and who
     * still owes the TOTP code (`code`, a few minutes).
     */
    async userSession(kind: 'user' | 'code', user: MerchantUser): Promise<IssuedSession> {
      const s = await load();
      const now = clock.now();
      const lasts = kind === 'user' ? USER_SESSION_MS : CODE_STEP_MS;
      const iat = Math.max(now, (user.sessionsNotBefore ?? 0) + 1);
      const token = s.sign({ t: kind, u: user.id, iat, exp: now + lasts, n: nonce() });
      return { token, maxAgeSec: lasts / 1000 };
    },

    /**
     * The merchant user behind a session token of `kind`, re-read on every request: an active
     * user of an active merchant, not signed out since (nor its merchant disabled since).
     */
    async userOf(kind: 'user' | 'code', token: string | undefined): Promise<PortalSession | undefined> {
      const s = await load();
      const payload = s.verify(token, clock.now());
      if (payload?.t !== kind || typeof payload.u !== 'string' || !token) return undefined;
      const user = await store.findMerchantUser({ id: payload.u });
      if (user?.status !== 'active' || endedSince(payload.iat, user.sessionsNotBefore)) return undefined;
      const merchant = await store.findMerchantById(user.merchantId);
      if (merchant?.status !== 'active' || endedSince(payload.iat, merchant.tokensNotBefore)) return undefined;
      return { merchant, user, csrf: s.mac(`csrf.${token}`) };
    },

    /** Ends every session of a merchant user, on every instance. */
    async endUserSessions(userId: string): Promise<void> {
      await store.changeMerchantUser(userId, { sessionsNotBefore: clock.now() }, clock.now());
    },

    /** Ends every portal session and sign-in link of this merchant, on every instance. */
    endPortalSessions: (merchantId: string): Promise<void> => store.endConsoleSessions({ merchantId }, clock.now()),
  };
}

export type SessionService = ReturnType<typeof createSessionService>;

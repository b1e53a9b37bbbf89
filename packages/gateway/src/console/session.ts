import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../store/store.ts';

/**
 * Console sessions and portal links are stateless: a payload and its HMAC-SHA256 under a key every
 * instance shares through the store's settings (sealed at rest, see SECRET_SETTINGS), so any
 * instance on the same database accepts what another issued. What a session refers to (the admin
 * key, the merchant) is re-read on every request: revoking the key or disabling the merchant ends
 * the session at once.
 */
export const SESSION_KEY_SETTING = 'console_session_key';

export const OPERATOR_COOKIE = 'snapgate_console';
export const PORTAL_COOKIE = 'snapgate_portal';
/** A random value set before login; the login forms carry its MAC (login CSRF). */
export const PRE_COOKIE = 'snapgate_console_pre';

export const OPERATOR_SESSION_MS = 8 * 3600_000;
export const PORTAL_SESSION_MS = 2 * 3600_000;
export const PORTAL_LINK_MS = 15 * 60_000;

export type SessionPayload =
  /**
   * An operator, by the admin key's id and a MAC of its SHA-256 (never the hash itself: a cookie
   * must not help anyone guess the key).
   */
  | { t: 'op'; k: string; h: string; iat: number; exp: number; n: string }
  /** A merchant in its portal. */
  | { t: 'portal'; m: string; iat: number; exp: number; n: string }
  /** A portal sign-in link, exchanged for a portal session. */
  | { t: 'link'; m: string; iat: number; exp: number; n: string };

/**
 * Whether a session issued at `iat` was ended since: by a log-out (`notBefore`), or, for a
 * merchant's portal, by disabling the merchant (`tokensNotBefore`).
 */
export const endedSince = (iat: number, ...notBefore: Array<number | null | undefined>): boolean =>
  notBefore.some((t) => t !== null && t !== undefined && iat <= t);

export interface Signer {
  sign(payload: SessionPayload): string;
  /** The payload when the MAC is right and it has not expired at `now`. */
  verify(token: string | undefined, now: number): SessionPayload | undefined;
  /** A MAC of a text, base64url (CSRF tokens). */
  mac(text: string): string;
  /** Whether `given` is the MAC of `text`, in constant time. */
  checkMac(text: string, given: string | undefined): boolean;
}

export const nonce = () => randomBytes(16).toString('base64url');

export async function loadSigner(store: Store): Promise<Signer> {
  const secret = await store.getOrCreateSetting(SESSION_KEY_SETTING, () => randomBytes(32).toString('base64url'));
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

/** The request's cookies (the first of each name). */
export function cookiesOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const header = request.headers.cookie;
  if (typeof header !== 'string') return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      // A malformed value is no value.
    }
  }
  return out;
}

const appendCookie = (reply: FastifyReply, cookie: string) => {
  const existing = reply.getHeader('set-cookie');
  const list = Array.isArray(existing) ? existing : typeof existing === 'string' ? [existing] : [];
  reply.header('set-cookie', [...list, cookie]);
};

/** HttpOnly, SameSite=Strict, Path=/console, Secure over https; `maxAgeSec` 0 deletes it. */
export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSec: number,
): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  appendCookie(
    reply,
    `${name}=${encodeURIComponent(value)}; Path=/console; Max-Age=${maxAgeSec}; HttpOnly; SameSite=Strict${secure}`,
  );
}

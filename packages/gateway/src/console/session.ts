import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

// The cookie side of console and portal sessions; what a session is (signed, checked, ended) is
// operators/sessions.ts.

export const OPERATOR_COOKIE = 'snapgate_console';
export const PORTAL_COOKIE = 'snapgate_portal';
/** A random value set before login; the login forms carry its MAC (login CSRF). */
export const PRE_COOKIE = 'snapgate_console_pre';

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

/** HttpOnly, SameSite=Strict, Path=/console (or `path`), Secure over https; `maxAgeSec` 0 deletes it. */
export function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAgeSec: number,
  path = '/console',
): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  appendCookie(
    reply,
    `${name}=${encodeURIComponent(value)}; Path=${path}; Max-Age=${maxAgeSec}; HttpOnly; SameSite=Strict${secure}`,
  );
}

/** The request's path, without its query. */
export const pathOf = (request: FastifyRequest): string => request.url.split('?')[0] ?? request.url;

/**
 * A one-time message for the page a POST redirects to (Post/Redirect/Get), for what a fixed flash
 * code cannot say: why an action was refused. Signed, so only the gateway writes one; bound to the
 * page it is for; shown there once, then cleared.
 */
export const NOTICE_COOKIE = 'snapgate_console_notice';
const NOTICE_MAX_CHARS = 600;

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

/** Leaves `notice` for the page at `path` (no query), for the next two minutes. */
export function leaveNotice(
  request: FastifyRequest,
  reply: FastifyReply,
  signer: { mac(text: string): string },
  path: string,
  notice: Notice,
): void {
  const body = Buffer.from(
    JSON.stringify({ p: path, k: notice.kind, t: notice.text.slice(0, NOTICE_MAX_CHARS) }),
  ).toString('base64url');
  setCookie(request, reply, NOTICE_COOKIE, `${body}.${signer.mac(`notice.${body}`)}`, 120, areaOf(path));
}

/** The cookie path of the area a page is in: the merchant dashboard's, or the console's (and portal's). */
const areaOf = (path: string) => (path === '/merchant' || path.startsWith('/merchant/') ? '/merchant' : '/console');

/** The notice left for this request's page, if any (then cleared); anything unsigned is ignored. */
export function takeNotice(
  request: FastifyRequest,
  reply: FastifyReply,
  signer: { checkMac(text: string, given: string | undefined): boolean },
): Notice | undefined {
  const value = cookiesOf(request)[NOTICE_COOKIE];
  if (!value) return undefined;
  const [body, mac] = value.split('.');
  if (!body || !signer.checkMac(`notice.${body}`, mac)) return undefined;
  let parsed: { p?: unknown; k?: unknown; t?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed.p !== pathOf(request) || typeof parsed.t !== 'string') return undefined;
  setCookie(request, reply, NOTICE_COOKIE, '', 0, areaOf(parsed.p));
  return { kind: parsed.k === 'ok' ? 'ok' : 'error', text: parsed.t };
}

/**
 * A value shown once, on the page a POST redirects to (Post/Redirect/Get): a new merchant's client
 * secret, a rotated secret, a portal sign-in link. It never goes into a URL, a log or the store: it
 * travels in this cookie, sealed (AES-256-GCM, so the browser holds no readable secret), bound to
 * the page (its path, as the cookie's Path too) and to the session that made it, for five minutes.
 * The page opens it and deletes it in the same answer: a reload, or a later visit in that browser,
 * finds nothing to show.
 *
 * What "once" does not cover: nothing is written anywhere when it is opened, so the sealed value
 * itself stays valid until it expires. A copy of the cookie taken before the page deleted it, sent
 * again with the same session cookie to the same page within those five minutes, opens it again
 * (docs/console.md says so). Refusing that would take a store write per value shown; the value is
 * already in the hands of whoever holds that session.
 *
 * The key is derived from the sessions' key, which every instance reads from the store: any
 * instance behind a load balancer opens what another sealed, and no process keeps anything.
 */
export const ONCE_COOKIE = 'snapgate_console_once';
export const ONCE_MAX_AGE_SEC = 300;

/**
 * The label the sealing key is the MAC of. The key is `mac(ONCE_KEY_LABEL)` under the sessions' key:
 * the same mac() whose results pages show (CSRF tokens, the log-in forms' token) and cookies carry
 * (notices). Were any of those the MAC of this label, whoever saw it would hold the sealing key.
 *
 * Why no request can reach it: every other input of mac() is a fixed prefix written in the code,
 * a word and a dot, followed by whatever a request may choose: `csrf.<session cookie>`,
 * `pre.<pre-login cookie>`, `notice.<notice body>`, `next.<a portal page's path>`
 * (return-to.ts), `key.<SHA-256 of an admin key>`
 * (operators/sessions.ts). What a request chooses only ever comes after such a prefix, so every
 * such input starts with a letter. This label starts with a NUL character, which no prefix starts
 * with and none can ever be made to: no cookie, field or URL turns into a mac() of it, and this
 * MAC is computed here only, never shown or sent. test/console/mac-labels.test.ts holds every
 * mac() call of the gateway to that shape.
 */
export const ONCE_KEY_LABEL = '\u0000console once-cookie sealing key v1';
const onceKey = (signer: { mac(text: string): string }) => Buffer.from(signer.mac(ONCE_KEY_LABEL), 'base64url');
const onceAad = (path: string, bind: string) => Buffer.from(`once.${path}.${bind}`);

export interface OnceBinding {
  /** What ties it to one session (its CSRF token, itself a MAC of the session token). */
  bind: string;
  now: number;
}

/** Leaves `value` for the page at `path` (no query), to be shown there once. */
export function leaveOnce(
  request: FastifyRequest,
  reply: FastifyReply,
  signer: { mac(text: string): string },
  path: string,
  value: Record<string, string>,
  o: OnceBinding,
): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', onceKey(signer), iv);
  cipher.setAAD(onceAad(path, o.bind));
  const plain = JSON.stringify({ p: path, exp: o.now + ONCE_MAX_AGE_SEC * 1000, v: value });
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const cookie = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
  setCookie(request, reply, ONCE_COOKIE, cookie, ONCE_MAX_AGE_SEC, path);
}

/**
 * The value left for this page by this session, if any, opened; the cookie is deleted whatever it
 * held, so it is shown once. Anything else (another page's, another session's, expired, altered)
 * is nothing.
 */
export function takeOnce(
  request: FastifyRequest,
  reply: FastifyReply,
  signer: { mac(text: string): string },
  o: OnceBinding,
): Record<string, string> | undefined {
  const value = cookiesOf(request)[ONCE_COOKIE];
  if (!value) return undefined;
  const path = pathOf(request);
  setCookie(request, reply, ONCE_COOKIE, '', 0, path);
  const raw = Buffer.from(value, 'base64url');
  if (raw.length < 29 || raw.length > 3000) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', onceKey(signer), raw.subarray(0, 12));
    decipher.setAAD(onceAad(path, o.bind));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    const parsed = JSON.parse(plain) as { p?: unknown; exp?: unknown; v?: unknown };
    if (parsed.p !== path || typeof parsed.exp !== 'number' || parsed.exp <= o.now) return undefined;
    if (typeof parsed.v !== 'object' || parsed.v === null) return undefined;
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed.v)) if (typeof v === 'string') out[k] = v;
    return out;
  } catch {
    return undefined;
  }
}

/**
 * What a signed-in area's forms end with (Post/Redirect/Get), alike for the operator's console and
 * a merchant's pages: a done action's notice on the page it goes back to, and a value shown once
 * on the page it leads to, bound to the session (`binding`).
 */
export function resultPages(
  signer: { mac(text: string): string; checkMac(text: string, given: string | undefined): boolean },
  binding: (request: FastifyRequest) => OnceBinding,
) {
  return {
    done(request: FastifyRequest, reply: FastifyReply, path: string, text: string, kind: Notice['kind'] = 'ok') {
      // The notice is bound to the page's path, which is what the page it lands on compares.
      leaveNotice(request, reply, signer, path.split(/[?#]/)[0] as string, { kind, text });
      return reply.redirect(path, 303);
    },
    showOnce(request: FastifyRequest, reply: FastifyReply, path: string, value: Record<string, string>) {
      leaveOnce(request, reply, signer, path, value, binding(request));
      return reply.redirect(path, 303);
    },
    takeOnce(request: FastifyRequest, reply: FastifyReply) {
      // Never kept by a browser or a proxy, whether it holds the value or says it was shown.
      reply.header('cache-control', 'no-store');
      return takeOnce(request, reply, signer, binding(request));
    },
  };
}

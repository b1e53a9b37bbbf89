import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookiesOf, setCookie } from './session.ts';

// Where a sign-in returns to: the page a signed-out browser asked for. The operator's target rides
// in the log-in page's URL (`/console/login?next=…`) and its form's hidden field; a merchant's in a
// signed cookie left by the portal page it opened (its sign-in link comes later, by another way).
// Whichever way it came, it is checked here again, on the server, before it becomes a redirect:
// only a path of this console, of the area signed in to, is ever followed; anything else is the
// area's home page.

export type Area = 'operator' | 'portal';

export const OPERATOR_HOME = '/console/overview';
export const PORTAL_HOME = '/console/portal';
/** The portal page a merchant asked for while signed out (signed, for an hour). */
export const PORTAL_NEXT_COOKIE = 'snapgate_portal_next';
const PORTAL_NEXT_MAX_AGE_SEC = 3600;
const MAX_TARGET_CHARS = 1000;
const BASE = 'http://console.invalid';

/** Pages that are no target: signing in or out, the assets. */
const NOT_TARGETS: Record<Area, RegExp> = {
  operator: /^\/console(\/(login|logout|assets|portal)(\/.*)?)?$/,
  portal: /^\/console\/portal\/(enter|logout|signed-out)(\/.*)?$/,
};
const INSIDE: Record<Area, RegExp> = {
  operator: /^\/console(\/|$)/,
  portal: /^\/console\/portal(\/|$)/,
};

/**
 * `raw` when it is a safe place to land after signing in to `area`, else undefined: a path (with
 * its query) on this origin under /console (the operator's pages) or /console/portal (the
 * merchant's), as the browser would send it, already in its normal form. Refused: absolute URLs
 * and `//host`, backslashes, anything outside printable ASCII (spaces, control characters, so
 * nothing can break out of a header), dot segments and doubled slashes (plain or percent-encoded),
 * encoded slashes or backslashes, fragments, and the pages that sign in or out.
 */
export function safeTarget(raw: unknown, area: Area): string | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_TARGET_CHARS) return undefined;
  if (!/^\/[!-~]*$/.test(raw) || raw.startsWith('//') || /[\\#]/.test(raw)) return undefined;
  const [path = '', query] = [raw.split('?')[0], raw.includes('?') ? raw.slice(raw.indexOf('?')) : ''];
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  // What the path means once decoded must be the same plain path: no `..`, `.`, `//` or `\` hiding
  // behind percent signs, no encoded slash that a proxy might decode into another route, nothing
  // encoded twice. (A space, as in a VA number, is fine: only the encoded form is ever redirected to.)
  if (/%2f|%5c|%2e/i.test(path) || /\/\/|\\|%|(^|\/)\.\.?(\/|$)|[^ -~]/.test(decoded)) return undefined;
  let url: URL;
  try {
    url = new URL(raw, BASE);
  } catch {
    return undefined;
  }
  if (url.origin !== BASE || `${url.pathname}${url.search}` !== `${path}${query}`) return undefined;
  if (!INSIDE[area].test(path) || NOT_TARGETS[area].test(path)) return undefined;
  return raw;
}

/** Where to land after signing in to `area`: the target when it is safe, else the area's home. */
export const landingOf = (raw: unknown, area: Area): string =>
  safeTarget(raw, area) ?? (area === 'operator' ? OPERATOR_HOME : PORTAL_HOME);

/** The log-in page, carrying the page asked for (when it is one to come back to). */
export function loginUrl(target: unknown): string {
  const next = safeTarget(target, 'operator');
  return next && next !== OPERATOR_HOME ? `/console/login?next=${encodeURIComponent(next)}` : '/console/login';
}

/** Remembers, for the merchant's sign-in later, the portal page this signed-out request asked for. */
export function rememberPortalTarget(
  request: FastifyRequest,
  reply: FastifyReply,
  signer: { mac(text: string): string },
): boolean {
  const target = request.method === 'GET' ? safeTarget(request.url, 'portal') : undefined;
  if (!target || target === PORTAL_HOME) {
    // The portal's home asked for last: an older target is no longer what the merchant wants.
    if (target && cookiesOf(request)[PORTAL_NEXT_COOKIE]) forgetPortalTarget(request, reply);
    return false;
  }
  const body = Buffer.from(target).toString('base64url');
  setCookie(request, reply, PORTAL_NEXT_COOKIE, `${body}.${signer.mac(`next.${body}`)}`, PORTAL_NEXT_MAX_AGE_SEC);
  return true;
}

/** The portal page remembered for this browser, when it is signed and still safe. */
export function rememberedPortalTarget(
  request: FastifyRequest,
  signer: { checkMac(text: string, given: string | undefined): boolean },
): string | undefined {
  const [body, mac, extra] = (cookiesOf(request)[PORTAL_NEXT_COOKIE] ?? '').split('.');
  if (!body || extra !== undefined || !signer.checkMac(`next.${body}`, mac)) return undefined;
  return safeTarget(Buffer.from(body, 'base64url').toString('utf8'), 'portal');
}

export const forgetPortalTarget = (request: FastifyRequest, reply: FastifyReply): void =>
  setCookie(request, reply, PORTAL_NEXT_COOKIE, '', 0);

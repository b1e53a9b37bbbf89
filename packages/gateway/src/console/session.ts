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
  setCookie(request, reply, NOTICE_COOKIE, `${body}.${signer.mac(`notice.${body}`)}`, 120);
}

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
  if (parsed.p !== request.url.split('?')[0] || typeof parsed.t !== 'string') return undefined;
  setCookie(request, reply, NOTICE_COOKIE, '', 0);
  return { kind: parsed.k === 'ok' ? 'ok' : 'error', text: parsed.t };
}

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

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { AdminKeyService, AdminScope } from '../operators/admin-keys.ts';
import { type Caller, operatorCaller } from '../operators/caller.ts';
import type { AuthFailureLimiter } from './auth-failures.ts';
import { bearerToken } from './bearer.ts';
import { ProblemError } from './problem.ts';

/** The admin key a request was made with. */
export interface AdminCaller {
  id: string;
  name: string;
  scope: AdminScope;
}

const CALLER = Symbol('snapgate.adminCaller');
type WithCaller = FastifyRequest & { [CALLER]?: AdminCaller };

export const adminCallerOf = (request: FastifyRequest): AdminCaller | undefined => (request as WithCaller)[CALLER];

/** The operator behind an authenticated admin request, as the services take it. */
export function callerOf(request: FastifyRequest): Caller {
  const key = adminCallerOf(request);
  if (!key) throw new TypeError('an admin route ran without its admin-key check');
  return operatorCaller(key);
}

// `approve` covers no other scope: such a key reaches only APPROVE_ROUTES.
const RANK: Record<AdminScope, number> = { approve: -1, read: 0, operate: 1, admin: 2 };

/** Whether a key of scope `have` may do what needs `needed` (admin ⊃ operate ⊃ read). */
export const scopeCovers = (have: AdminScope, needed: AdminScope): boolean => RANK[have] >= RANK[needed];

// What an `operate` key may do beyond reading: deliveries and the sandbox. Everything else that
// changes state (merchants, providers, keys) takes an `admin` key.
const OPERATE_ROUTES = [
  /^\/admin\/v1\/notifications\/:id\/replay$/,
  /^\/admin\/v1\/merchants\/:id\/recover$/,
  /^\/admin\/v1\/sandbox\//,
  // Paying a settlement through the bank (docs/payouts.md); recording one paid by hand needs admin.
  /^\/admin\/v1\/settlements\/:id\/payout$/,
  // A full verification of the books in the background (it only reads, but it is work to start).
  /^\/admin\/v1\/ledger\/verifications$/,
];

// What an `approve` key may do, and nothing else (an `admin` key may too): the second pair of eyes on a payout.
const APPROVE_ROUTES = [/^\/admin\/v1\/payouts\/:id\/(approve|reject)$/];

/** Whether a key of scope `have` may call the route, which needs `needed`. */
export const mayCall = (have: AdminScope, needed: AdminScope, route: string): boolean =>
  scopeCovers(have, needed) || (have === 'approve' && APPROVE_ROUTES.some((r) => r.test(route)));

// What only an `admin` key may even look at: which master key seals how many secrets.
const ADMIN_READS = [/^\/admin\/v1\/keys$/];

/** The scope a route needs: `read` to look, `operate` to deliver and simulate, `admin` to change. */
export function requiredScope(method: string, route: string): AdminScope {
  if (method === 'GET' || method === 'HEAD') return ADMIN_READS.some((r) => r.test(route)) ? 'admin' : 'read';
  return OPERATE_ROUTES.some((r) => r.test(route)) ? 'operate' : 'admin';
}

/** The admin-key check, an onRequest hook (adminAuth). */
export type AdminAuth = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * An onRequest hook for the admin API: `Authorization: Bearer <admin key>`. The key is looked up by
 * its SHA-256 in the database on every request, so a revoked key is refused at once by every
 * instance; its scope must cover the route (403 otherwise). Its last-used time is kept to the minute.
 * Made once per gateway (app.ts) and given to every route that takes an admin key, so that minute
 * is counted once per key, not once per route group.
 */
export function adminAuth(deps: {
  adminKeys: AdminKeyService;
  clock: Clock;
  authFailures: AuthFailureLimiter;
}): AdminAuth {
  const touched = new Map<string, number>();
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = bearerToken(request.headers.authorization);
    const key = await deps.adminKeys.authenticate(presented);
    if (!key) {
      // Guessing costs time: past the limit, a failure waits (a valid key never does).
      const waitSec = deps.authFailures.fail('admin', request.ip, presented);
      if (waitSec !== undefined) {
        reply.header('retry-after', String(waitSec));
        throw new ProblemError(429, 'Too Many Requests', `too many failed authentications: try again in ${waitSec} s`);
      }
      throw new ProblemError(401, 'Unauthorized', 'a valid admin key is required (Authorization: Bearer <key>)');
    }
    const needed = requiredScope(request.method, request.routeOptions.url ?? '');
    if (!mayCall(key.scope, needed, request.routeOptions.url ?? '')) {
      throw new ProblemError(403, 'Forbidden', `the key ${key.name} has the ${key.scope} scope; this needs ${needed}`);
    }
    (request as WithCaller)[CALLER] = { id: key.id, name: key.name, scope: key.scope };
    const now = deps.clock.now();
    if ((touched.get(key.id) ?? 0) <= now - 60_000) {
      touched.set(key.id, now);
      await deps.adminKeys.touch(key.id, now);
    }
  };
}

import type { FastifyInstance } from 'fastify';
import { USER_COOKIE } from './merchant-sign-in.ts';
import { type ConsoleDeps, config } from './operator.ts';
import { portalGate } from './portal/portal-gate.ts';
import { refundCard, refundPages } from './portal/refunds.ts';
import { twoFactorPages } from './portal/two-factor.ts';
import { merchantOwnPages } from './portal-routes.ts';
import { setCookie } from './session.ts';

/**
 * The merchant dashboard under /merchant (docs/merchant-users.md): what a merchant user reads and
 * changes, by role, after signing in at /merchant. The portal's pages, at their own address, and
 * the dashboard's own: refunds, and the user's two-factor sign-in.
 */
export function dashboardRoutes(d: FastifyInstance, deps: ConsoleDeps): void {
  const pages = portalGate(d, deps, '/merchant');

  d.post('/logout', { config }, async (request, reply) => {
    const { user } = pages.sessionOf(request);
    if (user) {
      // Every session of this user ends, on every instance.
      await deps.sessions.endUserSessions(user.id);
      await pages.audit(request, { action: 'merchant user: sign out', target: user.id, httpStatus: 303 });
    }
    setCookie(request, reply, USER_COOKIE, '', 0, '/merchant');
    return reply.redirect('/merchant/signed-out', 303);
  });

  const show = merchantOwnPages(d, pages, refundCard(pages));
  refundPages(d, pages, show);
  twoFactorPages(d, pages);
}

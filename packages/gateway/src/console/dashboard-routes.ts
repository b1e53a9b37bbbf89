import type { FastifyInstance } from 'fastify';
import { USER_COOKIE } from './merchant-sign-in.ts';
import { type ConsoleDeps, config } from './operator.ts';
import { clientSecretPages } from './portal/client-secret.ts';
import { linkPages } from './portal/links.ts';
import { portalGate } from './portal/portal-gate.ts';
import { refundCard, refundPages } from './portal/refunds.ts';
import { twoFactorPages } from './portal/two-factor.ts';
import { dashboardUserPages } from './portal/users.ts';
import { merchantOwnPages } from './portal-routes.ts';
import { setCookie } from './session.ts';

/**
 * The merchant dashboard under /merchant (docs/merchant-users.md): what a merchant user reads and
 * changes, by role, after signing in at /merchant. The portal's pages, at their own address, and
 * the dashboard's own: refunds, payment links, the client secret, the users (an owner's), and the user's own
 * two-factor sign-in.
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
  linkPages(d, pages);
  clientSecretPages(d, pages);
  dashboardUserPages(d, pages);
  twoFactorPages(d, pages);
}

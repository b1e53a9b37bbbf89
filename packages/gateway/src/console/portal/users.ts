import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ConsoleError } from '../kit.ts';
import { merchantUserPages } from '../merchant-user-pages.ts';
import type { PortalPages } from './portal-gate.ts';

/**
 * The merchant's own users in the dashboard (merchant-user-pages.ts), for an owner: the same pages
 * as the operator's, confined to the signed-in merchant. An owner's own row offers nothing: another
 * owner, or the operator, changes it, so no merchant locks out its last owner by a click.
 */
export function dashboardUserPages(d: FastifyInstance, pages: PortalPages): void {
  const roleOf = (request: FastifyRequest) => pages.sessionOf(request).user?.role;
  merchantUserPages(d, {
    deps: pages.deps,
    route: '/users',
    actor: 'dashboard',
    merchantOf: async (request) => {
      const m = pages.sessionOf(request).merchant;
      return { id: m.id, name: m.name, href: `${pages.base}/users` };
    },
    csrfOf: (request) => pages.sessionOf(request).csrf,
    canEdit: (request) => roleOf(request) === 'owner',
    need(request) {
      const role = roleOf(request);
      if (role !== 'owner') {
        throw new ConsoleError(403, `your role (${role ?? 'none'}) may not do this: ask an owner of your merchant`);
      }
    },
    selfOf: (request) => pages.sessionOf(request).user?.id,
    page: (request, reply, title, body) => pages.page(request, reply, title, 'users', body),
    audit: pages.audit,
    refused: pages.refused,
    done: pages.done,
    showOnce: pages.showOnce,
    takeOnce: pages.takeOnce,
  });
}

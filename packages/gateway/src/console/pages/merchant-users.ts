import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from '../../web/html.ts';
import { merchantUserPages, type UserAction } from '../merchant-user-pages.ts';
import { merchantHref } from '../merchant-views.ts';
import type { OperatorPages } from '../operator.ts';

const USERS = '/admin/v1/merchants/:id/users';
const USER = '/admin/v1/merchants/:id/users/:userId';
/** The admin API route (and method) whose scope each action of the users pages needs. */
const ROUTES: Record<UserAction, [string, string]> = {
  list: ['GET', USERS],
  invite: ['POST', USERS],
  role: ['PATCH', USER],
  reinvite: ['POST', `${USER}/invitation`],
  'reset-two-factor': ['POST', `${USER}/reset-two-factor`],
  disable: ['POST', `${USER}/disable`],
};

/** A merchant's users in the console (merchant-user-pages.ts), by an admin key whose scope may. */
export function consoleUserPages(op: FastifyInstance, pages: OperatorPages): void {
  const idOf = (request: FastifyRequest) => (request.params as { id?: string }).id ?? '';
  merchantUserPages(op, {
    deps: pages.deps,
    route: '/merchants/:id/users',
    actor: 'console',
    async merchantOf(request) {
      const m = await pages.deps.merchants.get(idOf(request));
      return { id: m.id, name: m.name, href: `${merchantHref(m.id)}/users` };
    },
    csrfOf: (request) => pages.operatorOf(request).csrf,
    canEdit: (request) => pages.can(request, 'POST', USERS),
    need: (request, action) => pages.need(request, ...ROUTES[action]),
    selfOf: () => undefined,
    page: (request, reply, title, body) => pages.page(request, reply, title, 'merchants', body),
    audit: pages.audit,
    refused: pages.refused,
    done: (request, reply, path, text) => pages.done(request, reply, path, text),
    showOnce: pages.showOnce,
    takeOnce: pages.takeOnce,
    back: (m) => html`<p><a class="button secondary" href="${merchantHref(m.id)}">Back to the merchant</a></p>`,
  });
}

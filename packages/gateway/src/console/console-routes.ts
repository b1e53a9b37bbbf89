import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { refuseBadAdminText } from '../http/admin-input.ts';
import { CONSOLE_CSS, FAVICON_PATH, FAVICON_SVG, IMMUTABLE } from './assets.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { ConsoleError, errorBody, errorPage, errorTitle, securityHeaders, sendError, sendHtml } from './kit.ts';
import { merchantSignInPages, USER_COOKIE } from './merchant-sign-in.ts';
import { type ConsoleDeps, config, menuOf, operatorGate } from './operator.ts';
import { accessPages } from './pages/access.ts';
import { bookPages } from './pages/books.ts';
import { certificationPages } from './pages/certifications.ts';
import { journalPages } from './pages/journal.ts';
import { merchantPages } from './pages/merchants.ts';
import { notificationPages } from './pages/notifications.ts';
import { overviewPages } from './pages/overview.ts';
import { payoutPages } from './pages/payouts.ts';
import { providerPages } from './pages/providers.ts';
import { reconciliationPages } from './pages/reconciliations.ts';
import { sandboxPages } from './pages/sandbox.ts';
import { settlementPages } from './pages/settlements.ts';
import { signInPages, signOutRoute } from './pages/sign-in.ts';
import { transactionPages } from './pages/transactions.ts';
import { dashboardMenuOf } from './portal/portal-gate.ts';
import { portalRoutes } from './portal-routes.ts';
import { CONSOLE_JS } from './script.ts';
import { cookiesOf, OPERATOR_COOKIE, PORTAL_COOKIE, pathOf } from './session.ts';
import { layout, operatorSignOutNote, portalSignOutNote, USER_SIGN_OUT_NOTE } from './views.ts';

export type { ConsoleDeps } from './operator.ts';

/**
 * The web console at /console (operators, with an admin key) and the merchant portal at
 * /console/portal (a merchant, through a sign-in link an operator made). Server-rendered HTML; one
 * small script and one stylesheet, served from here. Every page reaches the gateway through its
 * services (ConsoleDeps), one module per area under pages/ and portal/.
 */
export function consoleRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  app.register(async (root) => {
    // The session key every instance shares, read before the first page is served.
    await deps.sessions.load();
    root.register(async (scope) => operatorConsole(scope, deps), { prefix: '/console' });
    root.register(
      async (scope) => {
        securityHeaders(scope);
        scope.addHook('preValidation', refuseBadAdminText);
        scope.setErrorHandler((error, request, reply) => sendError(error, request, reply));
        scope.setNotFoundHandler((request, reply) => notFound(deps, request, reply));
        merchantSignInPages(scope, deps);
        scope.register(async (d) => dashboardRoutes(d, deps));
      },
      { prefix: '/merchant' },
    );
  });
}

function operatorConsole(scope: FastifyInstance, deps: ConsoleDeps): void {
  securityHeaders(scope);
  scope.addHook('preValidation', refuseBadAdminText);
  scope.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  scope.setNotFoundHandler((request, reply) => notFound(deps, request, reply));

  const asset = (type: string, body: string, cache: string) => async (_request: unknown, reply: FastifyReply) =>
    reply.header('cache-control', cache).type(type).send(body);
  scope.get('/assets/console.css', { config }, asset('text/css; charset=utf-8', CONSOLE_CSS, 'public, max-age=300'));
  scope.get(
    '/assets/console.js',
    { config },
    asset('text/javascript; charset=utf-8', CONSOLE_JS, 'public, max-age=300'),
  );
  // Its name carries a hash of its content: it may be kept a year, a new icon is a new name.
  scope.get(FAVICON_PATH.slice('/console'.length), { config }, asset('image/svg+xml', FAVICON_SVG, IMMUTABLE));

  signInPages(scope, deps);
  // Portal pages live under /console/portal with their own session.
  scope.register(async (portal) => portalRoutes(portal, deps), { prefix: '/portal' });

  // Everything below needs an operator.
  scope.register(async (op) => {
    const pages = operatorGate(op, deps);
    signOutRoute(op, pages);
    overviewPages(op, pages);
    merchantPages(op, pages);
    transactionPages(op, pages);
    notificationPages(op, pages);
    bookPages(op, pages);
    journalPages(op, pages);
    settlementPages(op, pages);
    payoutPages(op, pages);
    reconciliationPages(op, pages);
    if (deps.payer && pages.sandbox) sandboxPages(op, pages, deps.payer);
    providerPages(op, pages);
    certificationPages(op, pages);
    accessPages(op, pages);
  });
}

/**
 * A page that does not exist (404), in the frame of whoever is signed in: the operator's menu, or
 * under /console/portal the merchant's, under /merchant the user's; nobody signed in, the plain error page.
 */
async function notFound(deps: ConsoleDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const e = new ConsoleError(404, `there is no page ${pathOf(request)}`);
  const path = pathOf(request);
  const inPortal = path.startsWith('/console/portal');
  const inDashboard = path === '/merchant' || path.startsWith('/merchant/');
  const home = inPortal ? '/console/portal' : inDashboard ? '/merchant' : '/console';
  const cookies = cookiesOf(request);
  const frame = inPortal
    ? await deps.sessions.portalSessionOf(cookies[PORTAL_COOKIE]).then(
        (s) =>
          s && {
            area: 'portal' as const,
            who: s.merchant.name,
            csrf: s.csrf,
            signOut: portalSignOutNote(s.merchant.name),
          },
      )
    : inDashboard
      ? await deps.sessions.userOf('user', cookies[USER_COOKIE]).then(
          (s) =>
            s?.user && {
              area: 'merchant' as const,
              who: `${s.user.email} · ${s.merchant.name}`,
              csrf: s.csrf,
              signOut: USER_SIGN_OUT_NOTE,
              menu: dashboardMenuOf(s.user.role),
            },
        )
      : await deps.sessions.operatorOf(cookies[OPERATOR_COOKIE]).then(
          (o) =>
            o && {
              area: 'operator' as const,
              who: `${o.key.name} (${o.key.scope})`,
              csrf: o.csrf,
              signOut: operatorSignOutNote(o.key.name),
              sandbox: deps.config.mode === 'sandbox',
              menu: menuOf(o.key.scope),
            },
        );
  if (!frame) return sendHtml(reply, errorPage(e, home), 404);
  return sendHtml(reply, layout({ title: errorTitle(404), ...frame }, errorBody(e, home)), 404);
}

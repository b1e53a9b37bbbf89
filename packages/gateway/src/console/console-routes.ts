import type { FastifyInstance } from 'fastify';
import { refuseBadAdminText } from '../http/admin-input.ts';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.ts';
import { asConsoleError, ConsoleError, errorPage, securityHeaders, sendHtml } from './kit.ts';
import { type ConsoleDeps, config, operatorGate } from './operator.ts';
import { bookPages } from './pages/books.ts';
import { merchantPages } from './pages/merchants.ts';
import { notificationPages } from './pages/notifications.ts';
import { overviewPages } from './pages/overview.ts';
import { providerPages } from './pages/providers.ts';
import { reconciliationPages } from './pages/reconciliations.ts';
import { sandboxPages } from './pages/sandbox.ts';
import { settlementPages } from './pages/settlements.ts';
import { signInPages, signOutRoute } from './pages/sign-in.ts';
import { transactionPages } from './pages/transactions.ts';
import { portalRoutes } from './portal-routes.ts';

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
  });
}

function operatorConsole(scope: FastifyInstance, deps: ConsoleDeps): void {
  securityHeaders(scope);
  scope.addHook('preValidation', refuseBadAdminText);
  scope.setErrorHandler((error, request, reply) => {
    const e = asConsoleError(error);
    if (!e) {
      request.log.error({ err: error }, 'console request failed');
      return sendHtml(
        reply,
        errorPage(new ConsoleError(500, 'the gateway failed to answer; see its log'), '/console'),
        500,
      );
    }
    const back = request.url.startsWith('/console/portal')
      ? '/console/portal'
      : request.method === 'GET'
        ? '/console'
        : (request.url.split('?')[0] ?? '/console');
    return sendHtml(reply, errorPage(e, back), e.status);
  });
  scope.setNotFoundHandler((request, reply) =>
    sendHtml(reply, errorPage(new ConsoleError(404, `there is no page ${request.url.split('?')[0]}`), '/console'), 404),
  );

  scope.get('/assets/console.css', { config }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
  scope.get('/assets/console.js', { config }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );

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
    settlementPages(op, pages);
    reconciliationPages(op, pages);
    if (deps.payer && pages.sandbox) sandboxPages(op, pages, deps.payer);
    providerPages(op, pages);
  });
}

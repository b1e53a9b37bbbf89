import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, merchantCaller } from '../../operators/caller.ts';
import type { PortalSession } from '../../operators/sessions.ts';
import type { Html } from '../../web/html.ts';
import {
  acceptForm,
  audit,
  ConsoleError,
  closeFormAudits,
  flashOf,
  type Refusal,
  refuseTo,
  sendError,
  sendHtml,
} from '../kit.ts';
import type { ConsoleDeps } from '../operator.ts';
import { rememberPortalTarget } from '../return-to.ts';
import { cookiesOf, PORTAL_COOKIE, pathOf, setCookie, takeNotice } from '../session.ts';
import { layout, portalSignOutNote } from '../views.ts';

/** What every portal page module is given. */
export interface PortalPages {
  deps: ConsoleDeps;
  sessionOf(request: FastifyRequest): PortalSession;
  /** The signed-in merchant, as the services take it: they confine it to its own records. */
  callerOf(request: FastifyRequest): Caller;
  /** A page in the portal's frame. */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    active: string,
    body: Html,
    status?: number,
  ): FastifyReply;
  /** Records the merchant's action in the audit log. */
  audit(request: FastifyRequest, entry: Parameters<typeof audit>[3]): Promise<void>;
  /**
   * A refused action (Post/Redirect/Get): back to the page at `path`, which shows `why` once; its
   * audit row says it was refused, with the status the refusal stands for.
   */
  refused(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    why: string,
    refusal: Refusal,
  ): Promise<FastifyReply>;
}

/**
 * Every route registered on `p` after this needs a merchant's portal session (from its cookie
 * only), re-checked on every request; a state-changing request must carry its CSRF token.
 */
export function portalGate(p: FastifyInstance, deps: ConsoleDeps): PortalPages {
  const sessions = new WeakMap<FastifyRequest, PortalSession>();
  p.addHook('preHandler', async (request, reply) => {
    const token = cookiesOf(request)[PORTAL_COOKIE];
    const s = await deps.sessions.portalSessionOf(token);
    if (!s) {
      setCookie(request, reply, PORTAL_COOKIE, '', 0);
      // The page asked for is where the next sign-in in this browser lands (return-to.ts).
      const remembered = rememberPortalTarget(request, reply, deps.sessions);
      throw new ConsoleError(
        401,
        `you are not signed in to the portal (the session expired, was signed out, or the merchant was disabled): ask your gateway operator for a new sign-in link${remembered ? '. Signing in with it in this browser within the hour brings you back to this page' : ''}`,
      );
    }
    sessions.set(request, s);
    await acceptForm(request, deps, `csrf.${token}`, merchantCaller(s.merchant.id), 'portal');
  });
  closeFormAudits(p, deps.audit);

  const sessionOf = (request: FastifyRequest) => sessions.get(request) as PortalSession;
  const callerOf = (request: FastifyRequest) => merchantCaller(sessionOf(request).merchant.id);
  const page: PortalPages['page'] = (request, reply, title, active, body, status = 200) => {
    const s = sessionOf(request);
    return sendHtml(
      reply,
      layout(
        {
          title,
          area: 'portal',
          active,
          who: s.merchant.name,
          csrf: s.csrf,
          signOut: portalSignOutNote(s.merchant.name),
          flash: takeNotice(request, reply, deps.sessions) ?? flashOf(request.query),
        },
        body,
      ),
      status,
    );
  };
  // A refusal keeps the portal's menu while the merchant's session is known.
  p.setErrorHandler((error, request, reply) =>
    sendError(error, request, reply, (title, body, status) => {
      if (!sessions.has(request)) return undefined;
      const area = pathOf(request).split('/')[3] ?? '';
      const active = ['settlements', 'payouts', 'deliveries', 'settings'].includes(area) ? `portal/${area}` : 'portal';
      return page(request, reply, title, active, body, status);
    }),
  );
  return {
    deps,
    sessionOf,
    callerOf,
    page,
    audit: (request, entry) => audit(deps.audit, request, callerOf(request), entry),
    refused: (request, reply, path, why, refusal) =>
      refuseTo(deps, request, reply, callerOf(request), path, why, refusal),
  };
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, merchantCaller } from '../../operators/caller.ts';
import type { PortalSession } from '../../operators/sessions.ts';
import type { MerchantRole } from '../../records/merchant-user-records.ts';
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
import { TWO_FACTOR_PAGE, USER_COOKIE } from '../merchant-sign-in.ts';
import type { ConsoleDeps } from '../operator.ts';
import { rememberPortalTarget } from '../return-to.ts';
import { cookiesOf, PORTAL_COOKIE, pathOf, setCookie, takeNotice } from '../session.ts';
import { LINK_PORTAL_MENU, layout, portalSignOutNote } from '../views.ts';

const LOGOUT = '/console/portal/logout';

/**
 * What a merchant user's role may change (docs/merchant-users.md#roles): callback settings, test
 * callbacks and replays are a developer's; signing out and their own two-factor sign-in anyone's;
 * anything else an owner's.
 */
function mayAct(role: MerchantRole, path: string): boolean {
  if (path === LOGOUT || path === TWO_FACTOR_PAGE || path.startsWith(`${TWO_FACTOR_PAGE}/`)) return true;
  if (role === 'owner') return true;
  const isDevelopers = /^\/console\/portal\/(?:settings|test-callback|notifications\/[^/]+\/replay)$/.test(path);
  return isDevelopers && role === 'developer';
}

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
    // A merchant user's session (docs/merchant-users.md), else a portal link's.
    const cookies = cookiesOf(request);
    let token = cookies[USER_COOKIE];
    let s = token ? await deps.sessions.userOf('user', token) : undefined;
    if (!s) {
      token = cookies[PORTAL_COOKIE];
      s = await deps.sessions.portalSessionOf(token);
    }
    if (!s) {
      setCookie(request, reply, PORTAL_COOKIE, '', 0);
      setCookie(request, reply, USER_COOKIE, '', 0);
      // The page asked for is where the next sign-in in this browser lands (return-to.ts).
      const remembered = rememberPortalTarget(request, reply, deps.sessions);
      throw new ConsoleError(
        401,
        `you are not signed in (the session expired, was signed out, or was ended): sign in again at /merchant, or ask your gateway operator for a new sign-in link${remembered ? '. Signing in with a link in this browser within the hour brings you back to this page' : ''}`,
      );
    }
    sessions.set(request, s);
    if (s.user) {
      const path = pathOf(request);
      const isTwoFactor = path === TWO_FACTOR_PAGE || path.startsWith(`${TWO_FACTOR_PAGE}/`) || path === LOGOUT;
      // SNAPGATE_MERCHANT_2FA=required: two-factor sign-in first, before any other page.
      if (deps.config.merchantTwoFactor === 'required' && s.user.totpEnabledAt === null && !isTwoFactor) {
        return reply.redirect(TWO_FACTOR_PAGE, 303);
      }
      if (request.method !== 'GET' && request.method !== 'HEAD' && !mayAct(s.user.role, path)) {
        throw new ConsoleError(403, `your role (${s.user.role}) may not do this: ask an owner of your merchant`);
      }
    }
    await acceptForm(request, deps, `csrf.${token}`, merchantCaller(s.merchant.id, s.user), 'portal');
  });
  closeFormAudits(p, deps.audit);

  const sessionOf = (request: FastifyRequest) => sessions.get(request) as PortalSession;
  const callerOf = (request: FastifyRequest) => {
    const s = sessionOf(request);
    return merchantCaller(s.merchant.id, s.user);
  };
  const page: PortalPages['page'] = (request, reply, title, active, body, status = 200) => {
    const s = sessionOf(request);
    return sendHtml(
      reply,
      layout(
        {
          title,
          area: 'portal',
          active,
          who: s.user ? `${s.user.email} · ${s.merchant.name}` : s.merchant.name,
          csrf: s.csrf,
          signOut: s.user
            ? 'Log out signs you out in every browser where you are signed in'
            : portalSignOutNote(s.merchant.name),
          ...(s.user ? { product: 'merchant dashboard' } : { menu: LINK_PORTAL_MENU }),
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

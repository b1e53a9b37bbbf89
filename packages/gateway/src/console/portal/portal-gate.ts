import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Caller, merchantCaller } from '../../operators/caller.ts';
import type { PortalSession } from '../../operators/sessions.ts';
import type { MerchantRole } from '../../records/merchant-user-records.ts';
import type { Html } from '../../web/html.ts';
import type { MerchantBase } from '../book-views.ts';
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
import { SIGN_IN, TWO_FACTOR_PAGE, USER_COOKIE } from '../merchant-sign-in.ts';
import type { ConsoleDeps } from '../operator.ts';
import { rememberPortalTarget } from '../return-to.ts';
import { cookiesOf, PORTAL_COOKIE, pathOf, resultPages, setCookie, takeNotice } from '../session.ts';
import { LINK_PORTAL_MENU, layout, portalSignOutNote, USER_SIGN_OUT_NOTE } from '../views.ts';

/** Paths under /merchant any signed-in user may post to: signing out, and their own two-factor sign-in. */
const ANYONE = /^\/merchant\/(?:logout|two-factor(?:\/.*)?)$/;
/** What each role besides owner may change (docs/merchant-users.md#roles); anything else is an owner's. */
const ROLE_PATHS: Record<Exclude<MerchantRole, 'owner'>, RegExp> = {
  developer: /^\/merchant\/(?:settings|test-callback|client-secret|notifications\/[^/]+\/replay)$/,
  finance: /^\/merchant\/(?:transactions\/[^/]+\/refund(?:\/confirm)?|links|links\/[^/]+\/deactivate)$/,
  viewer: /^$/,
};

function mayAct(role: MerchantRole, path: string): boolean {
  return ANYONE.test(path) || role === 'owner' || ROLE_PATHS[role].test(path);
}

/** A page's place in the menu: the dashboard's own sections (the portal's are the same, fewer). */
export type Section =
  | 'transactions'
  | 'links'
  | 'settlements'
  | 'payouts'
  | 'deliveries'
  | 'settings'
  | 'client-secret'
  | 'users'
  | 'two-factor';
const SECTIONS: readonly Section[] = [
  'transactions',
  'links',
  'settlements',
  'payouts',
  'deliveries',
  'settings',
  'client-secret',
  'users',
  'two-factor',
];

/** What every portal page module is given. */
export interface PortalPages {
  deps: ConsoleDeps;
  /** Where these pages are: the portal of an operator's sign-in link, or the dashboard of a merchant user. */
  base: MerchantBase;
  /** The transactions list, where each area starts: `/console/portal`, `/merchant/transactions`. */
  home: string;
  /** Who acts, as the audit log's actions name it: `portal` (a link's session), `dashboard` (a user's). */
  actor: 'portal' | 'dashboard';
  sessionOf(request: FastifyRequest): PortalSession;
  /** The signed-in merchant, as the services take it: they confine it to its own records. */
  callerOf(request: FastifyRequest): Caller;
  /** A page in the portal's frame. */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    section: Section,
    body: Html,
    status?: number,
  ): FastifyReply;
  /** A done action (Post/Redirect/Get): back to `path`, which says `text` once. */
  done(request: FastifyRequest, reply: FastifyReply, path: string, text: string): FastifyReply;
  /** Leaves `value` for the page at `path`, bound to this session, and redirects there; that page shows it once. */
  showOnce(request: FastifyRequest, reply: FastifyReply, path: string, value: Record<string, string>): FastifyReply;
  /** What was left for this page by this session (then gone), never kept by a cache. */
  takeOnce(request: FastifyRequest, reply: FastifyReply): Record<string, string> | undefined;
  /** Whether the signed-in user's role may post to `path` (a form is offered only where it may). */
  mayPost(request: FastifyRequest, path: string): boolean;
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
 * Every route registered on `p` after this needs a merchant's session, re-checked on every request
 * (from its cookie only): under /merchant a merchant user's (docs/merchant-users.md), under
 * /console/portal a portal link's. A state-changing request must carry its CSRF token.
 */
export function portalGate(p: FastifyInstance, deps: ConsoleDeps, base: MerchantBase): PortalPages {
  const isDashboard = base === '/merchant';
  const actor = isDashboard ? 'dashboard' : 'portal';
  const cookieName = isDashboard ? USER_COOKIE : PORTAL_COOKIE;
  const sessions = new WeakMap<FastifyRequest, PortalSession>();
  p.addHook('preHandler', async (request, reply) => {
    const token = cookiesOf(request)[cookieName];
    const s = isDashboard ? await deps.sessions.userOf('user', token) : await deps.sessions.portalSessionOf(token);
    if (!s) {
      if (isDashboard) {
        setCookie(request, reply, USER_COOKIE, '', 0, base);
        // A page opened signed out: the sign-in form, which says why.
        if (request.method === 'GET') return reply.redirect(`${SIGN_IN}?ended=1`, 303);
        throw new ConsoleError(
          401,
          'you are not signed in (the session expired or was signed out): sign in again at /merchant',
        );
      }
      setCookie(request, reply, PORTAL_COOKIE, '', 0);
      // The page asked for is where the next sign-in in this browser lands (return-to.ts).
      const remembered = rememberPortalTarget(request, reply, deps.sessions);
      throw new ConsoleError(
        401,
        `you are not signed in (the session expired, was signed out, or was ended): ask your gateway operator for a new sign-in link (a merchant user signs in at /merchant)${remembered ? '. Signing in with a link in this browser within the hour brings you back to this page' : ''}`,
      );
    }
    sessions.set(request, s);
    if (s.user) {
      const path = pathOf(request);
      // SNAPGATE_MERCHANT_2FA=required: two-factor sign-in first, before any other page.
      if (deps.config.merchantTwoFactor === 'required' && s.user.totpEnabledAt === null && !ANYONE.test(path)) {
        return reply.redirect(TWO_FACTOR_PAGE, 303);
      }
      if (request.method !== 'GET' && request.method !== 'HEAD' && !mayAct(s.user.role, path)) {
        throw new ConsoleError(403, `your role (${s.user.role}) may not do this: ask an owner of your merchant`);
      }
    }
    await acceptForm(request, deps, `csrf.${token}`, merchantCaller(s.merchant.id, s.user), actor);
  });
  closeFormAudits(p, deps.audit);

  const sessionOf = (request: FastifyRequest) => sessions.get(request) as PortalSession;
  const callerOf = (request: FastifyRequest) => {
    const s = sessionOf(request);
    return merchantCaller(s.merchant.id, s.user);
  };
  const binding = (request: FastifyRequest) => ({ bind: sessionOf(request).csrf, now: deps.clock.now() });
  const page: PortalPages['page'] = (request, reply, title, section, body, status = 200) => {
    const s = sessionOf(request);
    return sendHtml(
      reply,
      layout(
        {
          title,
          ...(s.user
            ? {
                area: 'merchant',
                active: section,
                who: `${s.user.email} · ${s.merchant.name}`,
                signOut: USER_SIGN_OUT_NOTE,
                menu: dashboardMenuOf(s.user.role),
              }
            : {
                area: 'portal',
                active: section === 'transactions' ? 'portal' : `portal/${section}`,
                who: s.merchant.name,
                signOut: portalSignOutNote(s.merchant.name),
                menu: LINK_PORTAL_MENU,
              }),
          csrf: s.csrf,
          flash: takeNotice(request, reply, deps.sessions) ?? flashOf(request.query),
        },
        body,
      ),
      status,
    );
  };
  // A refusal keeps the menu while the merchant's session is known.
  p.setErrorHandler((error, request, reply) =>
    sendError(error, request, reply, (title, body, status) => {
      if (!sessions.has(request)) return undefined;
      const first = pathOf(request).slice(base.length).split('/')[1] ?? '';
      const section = (SECTIONS as readonly string[]).includes(first) ? (first as Section) : 'transactions';
      return page(request, reply, title, section, body, status);
    }),
  );
  return {
    deps,
    base,
    home: isDashboard ? `${base}/transactions` : base,
    actor,
    sessionOf,
    callerOf,
    page,
    ...resultPages(deps.sessions, binding),
    mayPost: (request, path) => {
      const { user } = sessionOf(request);
      return user === undefined || mayAct(user.role, path);
    },
    audit: (request, entry) => audit(deps.audit, request, callerOf(request), entry),
    refused: (request, reply, path, why, refusal) =>
      refuseTo(deps, request, reply, callerOf(request), path, why, refusal),
  };
}

/** The dashboard's menu for a role: Users is an owner's page. */
export const dashboardMenuOf = (role: MerchantRole): readonly string[] =>
  SECTIONS.filter((s) => s !== 'users' || role === 'owner');

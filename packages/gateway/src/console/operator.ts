import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LedgerService } from '../books/ledger-service.ts';
import type { ReconciliationService } from '../books/reconciliation-service.ts';
import type { SettlementService } from '../books/settlement-service.ts';
import type { CertificationService } from '../certification/certification-service.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { NotificationOperations } from '../delivery/notification-operations.ts';
import { mayCall, requiredScope } from '../http/admin-auth.ts';
import type { AuthFailureLimiter } from '../http/auth-failures.ts';
import type { MerchantService } from '../merchants/merchant-service.ts';
import type { MerchantUserService } from '../merchants/merchant-users.ts';
import type { AdminKeyService, AdminScope } from '../operators/admin-keys.ts';
import type { AuditLog } from '../operators/audit-log.ts';
import { type Caller, operatorCaller } from '../operators/caller.ts';
import type { MasterKeyService } from '../operators/master-keys.ts';
import type { OverviewService } from '../operators/overview.ts';
import type { OperatorSession, SessionService } from '../operators/sessions.ts';
import type { EwalletService } from '../payments/ewallet-service.ts';
import type { PaymentLinkService } from '../payments/payment-links.ts';
import type { QrisService } from '../payments/qris-service.ts';
import type { TransactionReads } from '../payments/transaction-reads.ts';
import type { VaService } from '../payments/va-service.ts';
import type { PayoutService } from '../payouts/payout-service.ts';
import type { ProviderService } from '../providers/provider-service.ts';
import type { SandboxPayer } from '../providers/sandbox-providers.ts';
import type { Html } from '../web/html.ts';
import {
  acceptForm,
  audit,
  auditRefusedForm,
  ConsoleError,
  closeFormAudits,
  flashOf,
  type Refusal,
  refuseTo,
  sendError,
  sendHtml,
} from './kit.ts';
import { loginUrl } from './return-to.ts';
import { cookiesOf, OPERATOR_COOKIE, pathOf, resultPages, setCookie, takeNotice } from './session.ts';
import { type Flash, layout, operatorSignOutNote } from './views.ts';

/** What the console and the portal reach the gateway through: its services, never the store. */
export interface ConsoleDeps {
  config: Config;
  clock: Clock;
  merchants: MerchantService;
  providers: ProviderService;
  transactions: TransactionReads;
  notifications: NotificationOperations;
  adminKeys: AdminKeyService;
  audit: AuditLog;
  sessions: SessionService;
  overview: OverviewService;
  qris: QrisService;
  va: VaService;
  ewallet: EwalletService;
  /** Payment links (docs/payment-links.md): a merchant's own, in its dashboard. */
  links: PaymentLinkService;
  /** The master keys that seal stored secrets: status and re-sealing. */
  masterKeys: MasterKeyService;
  /** Webhook certification runs (they run in sandbox mode only). */
  certifications: CertificationService;
  /** Where this process itself answers (a conformance run calls the gateway there). */
  selfUrl: () => string;
  /** The books (docs/books.md): balances and the journal, settlements, reconciliation runs. */
  ledger: LedgerService;
  settlements: SettlementService;
  reconciliations: ReconciliationService;
  /** Payouts through the payout bank (docs/payouts.md): listed, shown with their exchanges, decided. */
  payouts: PayoutService;
  /** The sandbox bank and acquirer (sandbox mode only): they pay through the provider API. */
  payer: SandboxPayer | undefined;
  /** Failed sign-ins count with the admin API's failed authentications, per address and key prefix. */
  authFailures: AuthFailureLimiter;
  /** Merchant users (docs/merchant-users.md): invitations, passwords, two-factor sign-in. */
  users: MerchantUserService;
  /** Failed merchant-user sign-ins per address (50 a minute). */
  merchantSignIns: AuthFailureLimiter;
}

/** The route config of every console page: errors are the console's, not SNAP's. */
export const config = { api: 'admin' as const };

/**
 * What an `approve` key reaches in the console: the Payouts pages, to see what it is asked to
 * decide and approve or reject it, and logging out. Nothing else, as in the admin API.
 */
const APPROVE_PAGES = /^\/console\/(?:payouts(?:\/|$)|logout$)/;

/** The menu of a key's scope: an `approve` key has Payouts alone; undefined, the whole menu. */
export const menuOf = (scope: AdminScope): readonly string[] | undefined =>
  scope === 'approve' ? ['payouts'] : undefined;

/** What every operator page module is given. */
export interface OperatorPages {
  deps: ConsoleDeps;
  /** Sandbox mode: the sandbox pages and actions are shown. */
  sandbox: boolean;
  operatorOf(request: FastifyRequest): OperatorSession;
  callerOf(request: FastifyRequest): Caller;
  /** Refuses (403) unless the operator's key has the scope the admin API route for this action needs. */
  need(request: FastifyRequest, method: string, adminRoute: string): void;
  /** Whether the operator's key has the scope the admin API route for this action needs. */
  can(request: FastifyRequest, method: string, adminRoute: string): boolean;
  /** A page in the operator's frame (navigation, who is signed in, the flash message). */
  page(
    request: FastifyRequest,
    reply: FastifyReply,
    title: string,
    active: string,
    body: Html,
    status?: number,
  ): FastifyReply;
  /** Records the operator's action in the audit log. */
  audit(request: FastifyRequest, entry: Parameters<typeof audit>[3]): Promise<void>;
  /** Records a form refused and shown again (not redirected): its action `(refused)` and the problems. */
  refusedForm(request: FastifyRequest, refusal: Refusal, problems: readonly string[]): Promise<void>;
  /**
   * A refused action (Post/Redirect/Get): back to the page at `path` (no query), which shows `why`
   * once, instead of an error page a reload would post again. Its audit row says it was refused,
   * with the status the refusal stands for (`refusal`: 400 what was typed, 409 the state).
   */
  refused(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    why: string,
    refusal: Refusal,
  ): Promise<FastifyReply>;
  /**
   * Leaves a value (a secret, a sign-in link) for the page at `path`, sealed in a cookie of this
   * session, and redirects there (Post/Redirect/Get); that page shows it once (`takeOnce`).
   */
  showOnce(request: FastifyRequest, reply: FastifyReply, path: string, value: Record<string, string>): FastifyReply;
  /**
   * A done action (Post/Redirect/Get): back to the page at `path` (a query kept), which shows `text`
   * once as its outcome (what was done, with its counts), so a reload repeats nothing and says
   * nothing twice. `kind` `error`: what was done ended badly (the bank refused a transfer).
   */
  done(request: FastifyRequest, reply: FastifyReply, path: string, text: string, kind?: Flash['kind']): FastifyReply;
  /** The value left for this page by this session, opened and deleted: a reload finds none. */
  takeOnce(request: FastifyRequest, reply: FastifyReply): Record<string, string> | undefined;
}

/**
 * Every route registered on `op` after this needs a signed-in operator: a GET without one goes to
 * the log-in page, anything else is refused; a state-changing request must carry the session's
 * CSRF token.
 */
export function operatorGate(op: FastifyInstance, deps: ConsoleDeps): OperatorPages {
  const sessions = new WeakMap<FastifyRequest, OperatorSession>();
  op.addHook('preHandler', async (request, reply) => {
    const token = cookiesOf(request)[OPERATOR_COOKIE];
    const o = await deps.sessions.operatorOf(token);
    if (!o) {
      setCookie(request, reply, OPERATOR_COOKIE, '', 0);
      // Signed out, a page is asked for again after the log-in (return-to.ts checks it there too).
      if (request.method === 'GET') return reply.redirect(loginUrl(request.url), 303);
      throw new ConsoleError(
        401,
        'your session ended (expired, logged out, or its admin key was revoked): log in again',
      );
    }
    sessions.set(request, o);
    if (o.key.scope === 'approve' && !APPROVE_PAGES.test(pathOf(request))) {
      // Where the log-in lands (the overview) is the payouts for a key that only decides them.
      if (request.method === 'GET' && pathOf(request) === '/console/overview')
        return reply.redirect('/console/payouts', 303);
      throw new ConsoleError(
        403,
        `the key ${o.key.name} has the approve scope: it sees and decides payouts, nothing else`,
      );
    }
    await acceptForm(request, deps, `csrf.${token}`, operatorCaller(o.key), 'console');
  });
  closeFormAudits(op, deps.audit);

  const operatorOf = (request: FastifyRequest) => sessions.get(request) as OperatorSession;
  const callerOf = (request: FastifyRequest) => operatorCaller(operatorOf(request).key);
  // As the admin API decides (admin-auth.ts): the scope's rank, and the routes of an `approve` key.
  const can = (request: FastifyRequest, method: string, adminRoute: string) =>
    mayCall(operatorOf(request).key.scope, requiredScope(method, adminRoute), adminRoute);
  const sandbox = deps.config.mode === 'sandbox';
  const page: OperatorPages['page'] = (request, reply, title, active, body, status = 200) => {
    const o = operatorOf(request);
    return sendHtml(
      reply,
      layout(
        {
          title,
          area: 'operator',
          active,
          who: `${o.key.name} (${o.key.scope})`,
          csrf: o.csrf,
          signOut: operatorSignOutNote(o.key.name),
          sandbox,
          menu: menuOf(o.key.scope),
          flash: takeNotice(request, reply, deps.sessions) ?? flashOf(request.query),
        },
        body,
      ),
      status,
    );
  };
  // A refusal keeps the menu when the operator is known (an expired session has none to keep).
  op.setErrorHandler((error, request, reply) =>
    sendError(error, request, reply, (title, body, status) =>
      sessions.has(request)
        ? page(request, reply, title, pathOf(request).split('/')[2] ?? '', body, status)
        : undefined,
    ),
  );
  const binding = (request: FastifyRequest) => ({ bind: operatorOf(request).csrf, now: deps.clock.now() });
  return {
    deps,
    sandbox,
    operatorOf,
    callerOf,
    can,
    need(request, method, adminRoute) {
      const { key } = operatorOf(request);
      const needed = requiredScope(method, adminRoute);
      if (!mayCall(key.scope, needed, adminRoute)) {
        throw new ConsoleError(403, `the key ${key.name} has the ${key.scope} scope; this needs ${needed}`);
      }
    },
    page,
    audit: (request, entry) => audit(deps.audit, request, callerOf(request), entry),
    refusedForm: (request, refusal, problems) =>
      auditRefusedForm(deps.audit, request, callerOf(request), refusal, problems),
    refused: (request, reply, path, why, refusal) =>
      refuseTo(deps, request, reply, callerOf(request), path, why, refusal),
    ...resultPages(deps.sessions, binding),
  };
}

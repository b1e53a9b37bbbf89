import { randomInt } from 'node:crypto';
import { TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Dispatcher } from '../delivery/dispatcher.ts';
import { registerAudit } from '../http/admin-audit.ts';
import { type AdminAuth, hashAdminToken, requiredScope, scopeCovers } from '../http/admin-auth.ts';
import { refuseBadAdminText } from '../http/admin-input.ts';
import { badRequest, conflict, notFound } from '../http/problem.ts';
import { rawBodyOf } from '../http/raw-body.ts';
import { createSchema, patchSchema } from '../http/routes/admin-merchants.ts';
import type { Logger } from '../logger.ts';
import { type MerchantService, merchantView } from '../merchants/merchant-service.ts';
import type { QrisService } from '../payments/qris-service.ts';
import { IllegalStatusChange } from '../payments/status-change.ts';
import { createSandboxPayer, ProviderRefusal } from '../providers/sandbox-providers.ts';
import type { SnapClient } from '../providers/snap-client.ts';
import type { AdminKeyRecord, NotificationState, Store, TransactionKind, TransactionRecord } from '../store/store.ts';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.ts';
import {
  age,
  jakartaDayStart,
  jakartaMinute,
  jakartaTime,
  parseJakartaDate,
  parseJakartaDateTime,
  statusName,
} from './format.ts';
import { type Html, html } from './html.ts';
import {
  allMerchants,
  asConsoleError,
  audit,
  ConsoleError,
  checkCsrf,
  errorPage,
  flashOf,
  formOf,
  q,
  securityHeaders,
  selfUrlOf,
  sendHtml,
} from './kit.ts';
import { portalRoutes } from './portal-routes.ts';
import {
  cookiesOf,
  endedSince,
  loadSigner,
  nonce,
  OPERATOR_COOKIE,
  OPERATOR_SESSION_MS,
  PORTAL_LINK_MS,
  PRE_COOKIE,
  type Signer,
  setCookie,
} from './session.ts';
import {
  badge,
  csrfField,
  empty,
  type Flash,
  layout,
  notificationTable,
  transactionDetail,
  transactionTable,
} from './views.ts';

export interface ConsoleDeps {
  config: Config;
  store: Store;
  clock: Clock;
  merchants: MerchantService;
  qris: QrisService;
  dispatcher: Dispatcher;
  /** The gateway's outbound SNAP client: the sandbox bank and acquirer pay through it. */
  snapClient: SnapClient;
  logger: Logger;
  /** The gateway's one admin-key check (app.ts), for the portal-link admin route. */
  adminAuth: AdminAuth;
}

interface Operator {
  key: AdminKeyRecord;
  csrf: string;
}

const PAGE = 50;
const STATES: NotificationState[] = ['dead', 'retrying', 'pending', 'delivering', 'delivered', 'superseded'];
const config = { api: 'admin' as const };

const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/**
 * The web console at /console (operators, with an admin key) and the merchant portal at
 * /console/portal (a merchant, through a sign-in link an operator made), plus the admin API route
 * `POST /admin/v1/merchants/:id/portal-link`. Server-rendered HTML; one small script and one
 * stylesheet, served from here.
 */
export function consoleRoutes(app: FastifyInstance, deps: ConsoleDeps): void {
  app.register(async (root) => {
    const signer = await loadSigner(deps.store);
    root.register(async (admin) => portalLinkRoute(admin, deps, signer), { prefix: '/admin/v1' });
    root.register(async (scope) => operatorConsole(app, scope, deps, signer), { prefix: '/console' });
  });
}

/** A portal sign-in link for a merchant, valid PORTAL_LINK_MS. */
export function portalLink(deps: Pick<ConsoleDeps, 'config' | 'clock'>, signer: Signer, merchantId: string) {
  const now = deps.clock.now();
  const expiresAt = now + PORTAL_LINK_MS;
  const token = signer.sign({ t: 'link', m: merchantId, iat: now, exp: expiresAt, n: nonce() });
  return {
    url: `${deps.config.publicUrl}/console/portal/enter?token=${encodeURIComponent(token)}`,
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

async function activeMerchant(store: Store, id: string) {
  const m = await store.findMerchantById(id);
  if (!m) throw notFound('merchant');
  if (m.status !== 'active') throw new ConsoleError(409, 'the merchant is disabled');
  return m;
}

function portalLinkRoute(admin: FastifyInstance, deps: ConsoleDeps, signer: Signer): void {
  const { store, clock } = deps;
  admin.addHook('onRequest', deps.adminAuth);
  admin.addHook('preValidation', refuseBadAdminText);
  // Audited like every admin action, refusals included; the link is a credential: the audit log
  // keeps that one was made, never the link itself.
  registerAudit(admin, { store, clock, logger: deps.logger });
  const routeConfig = { ...config, auditRedacts: ['url'] };
  admin.post<{ Params: { id: string } }>(
    '/merchants/:id/portal-link',
    { config: routeConfig },
    async (request, reply) => {
      const body = rawBodyOf(request);
      if (body.length > 0 && body.toString('utf8').trim() !== '{}') throw badRequest('this route takes no body');
      const merchant = await store.findMerchantById(request.params.id.slice(0, 64));
      if (!merchant) throw notFound('merchant');
      if (merchant.status !== 'active') throw conflict('the merchant is disabled');
      return reply.code(201).send(portalLink(deps, signer, merchant.id));
    },
  );
}

function operatorConsole(app: FastifyInstance, scope: FastifyInstance, deps: ConsoleDeps, signer: Signer): void {
  const { store, clock, merchants, dispatcher } = deps;
  const sandbox = deps.config.mode === 'sandbox';
  const payer = sandbox
    ? createSandboxPayer({ store, client: deps.snapClient, selfUrl: () => selfUrlOf(app) })
    : undefined;
  const operators = new WeakMap<FastifyRequest, Operator>();

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

  // ── Sign-in ───────────────────────────────────────────────────────────────────────────────
  /** The operator behind the session cookie, re-checked against the store on every request. */
  async function operatorOf(request: FastifyRequest): Promise<Operator | undefined> {
    const token = cookiesOf(request)[OPERATOR_COOKIE];
    const s = signer.verify(token, clock.now());
    if (s?.t !== 'op' || !token) return undefined;
    const key = (await store.listAdminKeys()).find((k) => k.id === s.k);
    if (!key || key.revokedAt !== null || !signer.checkMac(`key.${key.tokenSha256}`, s.h)) return undefined;
    if (endedSince(s.iat, key.sessionsNotBefore)) return undefined;
    return { key, csrf: signer.mac(`csrf.${token}`) };
  }

  function loginPage(request: FastifyRequest, reply: FastifyReply, flash?: Flash, status = 200) {
    const pre = nonce();
    setCookie(request, reply, PRE_COOKIE, pre, 3600);
    return sendHtml(
      reply,
      layout(
        { title: 'Log in', area: 'none', flash },
        html`<section class="card login"><h1>Log in to the snapgate console</h1>
<form method="post" action="/console/login">
<input type="hidden" name="_csrf" value="${signer.mac(`pre.${pre}`)}">
<label for="key">Admin key</label>
<input id="key" name="key" type="password" class="wide" autocomplete="current-password" required autofocus>
<p class="muted">An admin API key (read, operate or admin scope): SNAPGATE_ADMIN_TOKEN, or one made with <code>snapgate keys create</code>. It is exchanged for a session cookie and never stored in the browser.</p>
<button type="submit">Log in</button>
</form></section>`,
      ),
      status,
    );
  }

  scope.get('/', { config }, async (request, reply) =>
    reply.redirect((await operatorOf(request)) ? '/console/overview' : '/console/login', 303),
  );
  scope.get('/login', { config }, async (request, reply) => loginPage(request, reply));
  scope.post('/login', { config }, async (request, reply) => {
    const fields = formOf(request);
    const pre = cookiesOf(request)[PRE_COOKIE] ?? '';
    checkCsrf(request, signer, `pre.${pre}`, fields);
    const key = fields.key ? await store.findAdminKeyByHash(hashAdminToken(fields.key)) : undefined;
    if (!key || key.revokedAt !== null) {
      return loginPage(
        request,
        reply,
        { kind: 'error', text: 'That admin key is not valid (or it was revoked).' },
        401,
      );
    }
    const now = clock.now();
    // A session issued in the same millisecond as a log-out would be refused: issue it after.
    const iat = Math.max(now, (key.sessionsNotBefore ?? 0) + 1);
    const token = signer.sign({
      t: 'op',
      k: key.id,
      h: signer.mac(`key.${key.tokenSha256}`),
      iat,
      exp: now + OPERATOR_SESSION_MS,
      n: nonce(),
    });
    setCookie(request, reply, OPERATOR_COOKIE, token, OPERATOR_SESSION_MS / 1000);
    setCookie(request, reply, PRE_COOKIE, '', 0);
    await audit(
      deps,
      request,
      { keyId: key.id, keyName: key.name },
      { action: 'console: log in', target: key.id, httpStatus: 303 },
    );
    return reply.redirect('/console/overview', 303);
  });

  // Portal pages live under /console/portal with their own session.
  scope.register(async (portal) => portalRoutes(portal, { ...deps, signer }), { prefix: '/portal' });

  // ── Everything below needs an operator ──────────────────────────────────────────────────────
  scope.register(async (op) => {
    op.addHook('preHandler', async (request, reply) => {
      const o = await operatorOf(request);
      if (!o) {
        setCookie(request, reply, OPERATOR_COOKIE, '', 0);
        if (request.method === 'GET') return reply.redirect('/console/login', 303);
        throw new ConsoleError(
          401,
          'your session ended (expired, logged out, or its admin key was revoked): log in again',
        );
      }
      operators.set(request, o);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        checkCsrf(request, signer, `csrf.${cookiesOf(request)[OPERATOR_COOKIE]}`, formOf(request));
      }
    });
    const opOf = (request: FastifyRequest) => operators.get(request) as Operator;
    /** The same scope the admin API route for this action needs. */
    const need = (request: FastifyRequest, method: string, adminRoute: string) => {
      const { key } = opOf(request);
      const needed = requiredScope(method, adminRoute);
      if (!scopeCovers(key.scope, needed)) {
        throw new ConsoleError(403, `the key ${key.name} has the ${key.scope} scope; this needs ${needed}`);
      }
      return key;
    };
    const can = (request: FastifyRequest, method: string, adminRoute: string) =>
      scopeCovers(opOf(request).key.scope, requiredScope(method, adminRoute));
    const who = (key: AdminKeyRecord) => ({ keyId: key.id, keyName: key.name });
    const page = (
      request: FastifyRequest,
      reply: FastifyReply,
      title: string,
      active: string,
      body: Html,
      status = 200,
    ) => {
      const o = opOf(request);
      return sendHtml(
        reply,
        layout(
          {
            title,
            area: 'operator',
            active,
            who: `${o.key.name} (${o.key.scope})`,
            csrf: o.csrf,
            sandbox,
            flash: flashOf(request.query),
          },
          body,
        ),
        status,
      );
    };

    op.post('/logout', { config }, async (request, reply) => {
      // Every session of this key ends on the server too, not only this browser's cookie.
      await store.endConsoleSessions({ adminKeyId: opOf(request).key.id }, clock.now());
      setCookie(request, reply, OPERATOR_COOKIE, '', 0);
      await audit(deps, request, who(opOf(request).key), { action: 'console: log out', target: null, httpStatus: 303 });
      return reply.redirect('/console/login', 303);
    });

    // ── Overview ──
    op.get('/overview', { config }, async (request, reply) => {
      const now = clock.now();
      const dayStart = jakartaDayStart(now);
      const hourAgo = Math.floor((now - 3600_000) / 60_000) * 60_000 + 60_000;
      const [byStatus, byState, backlog, minutes, inbound, providers] = await Promise.all([
        store.countTransactionsByStatus(dayStart),
        store.countNotificationsByState(),
        store.deliveryBacklog(),
        store.attemptsPerMinute(hourAgo),
        store.countInboundByProvider(dayStart),
        store.listProviders({ limit: 500 }),
      ]);
      const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
      return page(
        request,
        reply,
        'Overview',
        'overview',
        html`<h1>Overview</h1>
<div class="grid">
<section class="card" aria-labelledby="h-today"><h2 id="h-today">Transactions today</h2>
<p class="stat">${total}</p><p class="muted">since ${jakartaTime(dayStart)}</p>
${
  total === 0
    ? html`<p class="muted">No transaction yet today.</p>`
    : html`<table><tbody>${Object.entries(byStatus)
        .sort()
        .map(
          ([s, n]) => html`<tr><td>${badge(`s-${s}`, statusName(s))}</td><td class="num">${n}</td></tr>`,
        )}</tbody></table>`
}</section>
<section class="card" aria-labelledby="h-callbacks"><h2 id="h-callbacks">Callbacks</h2>
<dl class="kv">
<dt>Delivered</dt><dd id="count-delivered">${byState.delivered ?? 0}</dd>
<dt>Retrying</dt><dd id="count-retrying">${byState.retrying ?? 0}</dd>
<dt>Dead</dt><dd id="count-dead">${(byState.dead ?? 0) > 0 ? html`<a href="/console/notifications?state=dead">${byState.dead}</a>` : 0}</dd>
<dt>Pending</dt><dd>${(byState.pending ?? 0) + (byState.delivering ?? 0)}</dd>
</dl></section>
<section class="card" aria-labelledby="h-backlog"><h2 id="h-backlog">Backlog</h2>
<p class="stat">${backlog.undelivered}</p>
<p class="muted">${backlog.oldestUndeliveredAt === null ? 'Nothing waiting.' : `oldest waiting ${age(now - backlog.oldestUndeliveredAt)} (since ${jakartaTime(backlog.oldestUndeliveredAt)})`}</p>
</section>
</div>
<section class="card" aria-labelledby="h-chart"><h2 id="h-chart">Deliveries per minute, last hour</h2>
${deliveryChart(minutes, hourAgo)}</section>
<section class="card" aria-labelledby="h-inbound"><h2 id="h-inbound">Inbound provider calls today</h2>
${
  providers.items.length === 0
    ? empty('No provider is registered.')
    : html`<div class="table-wrap"><table><thead><tr><th>Provider</th><th class="num">Calls</th></tr></thead><tbody>${providers.items.map(
        (p) =>
          html`<tr><td><a href="/console/providers/${encodeURIComponent(p.id)}">${p.name}</a></td><td class="num">${inbound[p.id] ?? 0}</td></tr>`,
      )}</tbody></table></div>`
}</section>`,
      );
    });

    // ── Merchants ──
    op.get('/merchants', { config }, async (request, reply) => {
      const term = q(request.query, 'q')?.toLowerCase();
      const all = await allMerchants(store);
      const list = term
        ? all.filter((m) =>
            [m.id, m.name, m.clientKey, m.partnerId, m.merchantName].some((v) => v.toLowerCase().includes(term)),
          )
        : all;
      return page(
        request,
        reply,
        'Merchants',
        'merchants',
        html`<h1>Merchants</h1>
<div class="actions">
<form class="filters" method="get" action="/console/merchants" role="search">
<label>Search<input name="q" type="search" value="${term ?? ''}" placeholder="name, id, client key"></label>
<button type="submit" class="secondary">Search</button></form>
${can(request, 'POST', '/admin/v1/merchants') ? html`<a class="button" href="/console/merchants/new">New merchant</a>` : ''}
</div>
${
  list.length === 0
    ? empty(term ? 'No merchant matches this search.' : 'No merchant yet: create the first one.')
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Client key</th><th class="hide-narrow">Partner id</th><th>Status</th><th class="hide-narrow">Created</th></tr></thead><tbody>${list.map(
        (m) =>
          html`<tr><td><a href="/console/merchants/${encodeURIComponent(m.id)}">${m.name}</a></td><td>${m.clientKey}</td><td class="hide-narrow">${m.partnerId}</td><td>${badge(m.status, m.status)}</td><td class="hide-narrow">${jakartaTime(m.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
}`,
      );
    });

    op.get('/merchants/new', { config }, async (request, reply) => {
      need(request, 'POST', '/admin/v1/merchants');
      return page(
        request,
        reply,
        'New merchant',
        'merchants',
        html`<h1>New merchant</h1>
<form method="post" action="/console/merchants" class="card">${csrfField(opOf(request).csrf)}
<div class="form-grid">${merchantFields(undefined)}</div>
<button type="submit">Create merchant</button></form>`,
      );
    });

    op.post('/merchants', { config }, async (request, reply) => {
      const key = need(request, 'POST', '/admin/v1/merchants');
      const fields = formOf(request);
      const input: Record<string, string> = {};
      for (const f of [
        'name',
        'callbackBaseUrl',
        'qrisCallbackUrl',
        'vaCallbackUrl',
        'callbackSignature',
        'callbackJson',
      ]) {
        const v = blank(fields[f]);
        if (v !== undefined) input[f] = v;
      }
      const parsed = createSchema.safeParse(input);
      if (!parsed.success) {
        throw new ConsoleError(
          400,
          'the merchant was not created',
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
        );
      }
      const { merchant, clientSecret } = await merchants.create(parsed.data);
      await audit(deps, request, who(key), {
        action: 'console: create merchant',
        target: merchant.id,
        httpStatus: 201,
        fields,
        after: merchantView(merchant),
      });
      reply.header('cache-control', 'no-store');
      return page(
        request,
        reply,
        'Merchant created',
        'merchants',
        html`<h1>Merchant ${merchant.name} created</h1>
<section class="card"><h2>Credentials</h2>
<p><strong>The client secret is shown this once.</strong> Copy it now and give it to the merchant; the gateway keeps it sealed and never shows it again (rotate it to get a new one).</p>
<dl class="kv"><dt>Merchant id</dt><dd id="merchant-id">${merchant.id}</dd><dt>Client key</dt><dd id="client-key">${merchant.clientKey}</dd><dt>Partner id</dt><dd>${merchant.partnerId}</dd></dl>
${secretField('client-secret', 'Client secret', clientSecret)}
<p><a class="button secondary" href="/console/merchants/${encodeURIComponent(merchant.id)}">Open the merchant</a></p></section>`,
        201,
      );
    });

    op.get<{ Params: { id: string } }>('/merchants/:id', { config }, async (request, reply) => {
      const m = await store.findMerchantById(request.params.id);
      if (!m) throw notFound('merchant');
      const csrf = opOf(request).csrf;
      const base = `/console/merchants/${encodeURIComponent(m.id)}`;
      const canEdit = can(request, 'PATCH', '/admin/v1/merchants/:id');
      const canRecover = can(request, 'POST', '/admin/v1/merchants/:id/recover');
      return page(
        request,
        reply,
        m.name,
        'merchants',
        html`<h1>${m.name} ${badge(m.status, m.status)}</h1>
<div class="grid">
<section class="card"><h2>Merchant</h2><dl class="kv">
<dt>Id</dt><dd>${m.id}</dd><dt>Client key</dt><dd>${m.clientKey}</dd><dt>Partner id</dt><dd>${m.partnerId}</dd>
<dt>QRIS name</dt><dd>${m.merchantName}, ${m.merchantCity}</dd><dt>NMID</dt><dd>${m.nmid}</dd>
<dt>Secret version</dt><dd>${m.secretVersion}${m.previousValidUntil ? html` <span class="muted">(previous secret valid until ${jakartaTime(m.previousValidUntil)})</span>` : ''}</dd>
<dt>Created</dt><dd>${jakartaTime(m.createdAt)}</dd></dl>
<p><a href="/console/transactions?merchant=${encodeURIComponent(m.id)}">Transactions</a> · <a href="/console/notifications?state=dead&amp;merchant=${encodeURIComponent(m.id)}">Dead notifications</a></p></section>
${
  canEdit
    ? html`<section class="card"><h2>Actions</h2>
<div class="actions">
<form method="post" action="${base}/status" data-confirm="${m.status === 'active' ? 'Disable this merchant? Its tokens stop working at once.' : 'Enable this merchant?'}">${csrfField(csrf)}
<input type="hidden" name="status" value="${m.status === 'active' ? 'disabled' : 'active'}">
<button type="submit" class="${m.status === 'active' ? 'danger' : ''}">${m.status === 'active' ? 'Disable merchant' : 'Enable merchant'}</button></form>
${m.status === 'active' ? html`<form method="post" action="${base}/portal-link">${csrfField(csrf)}<button type="submit" class="secondary">Create portal link</button></form>` : ''}
</div>
<form method="post" action="${base}/rotate-secret" class="filters" data-confirm="Rotate the client secret? The old one keeps working for the overlap only.">${csrfField(csrf)}
<label>Overlap (seconds)<input name="overlapSec" type="number" min="0" max="2592000" value="86400"></label>
<button type="submit" class="secondary">Rotate secret</button></form></section>`
    : ''
}
</div>
${
  canEdit
    ? html`<section class="card"><h2>Callbacks and signatures</h2>
<form method="post" action="${base}">${csrfField(csrf)}<div class="form-grid">${merchantFields(m)}</div>
<button type="submit">Save</button></form></section>`
    : html`<section class="card"><h2>Callbacks and signatures</h2><dl class="kv">
<dt>Callback base URL</dt><dd>${m.callbackBaseUrl ?? '—'}</dd><dt>QRIS callback URL</dt><dd>${m.qrisCallbackUrl ?? '—'}</dd>
<dt>VA callback URL</dt><dd>${m.vaCallbackUrl ?? '—'}</dd><dt>Callback signature</dt><dd>${m.callbackSignature}</dd><dt>Callback JSON</dt><dd>${m.callbackJson}</dd></dl></section>`
}
${
  canRecover
    ? html`<section class="card"><h2>Recover dead notifications</h2>
<form method="post" action="${base}/recover" class="filters">${csrfField(csrf)}
<label>Created since (WIB)<input name="since" type="datetime-local" required></label>
<button type="submit">Recover</button></form></section>`
    : ''
}`,
      );
    });

    op.post<{ Params: { id: string } }>('/merchants/:id', { config }, async (request, reply) => {
      const key = need(request, 'PATCH', '/admin/v1/merchants/:id');
      const fields = formOf(request);
      const before = await store.findMerchantById(request.params.id);
      if (!before) throw notFound('merchant');
      const patch: Record<string, string | null> = {};
      const name = blank(fields.name);
      if (name !== undefined) patch.name = name;
      for (const f of ['callbackBaseUrl', 'qrisCallbackUrl', 'vaCallbackUrl', 'callbackTokenUrl']) {
        if (f in fields) patch[f] = blank(fields[f]) ?? null;
      }
      for (const f of ['callbackSignature', 'callbackJson', 'tokenSignature']) {
        const v = blank(fields[f]);
        if (v !== undefined) patch[f] = v;
      }
      const parsed = patchSchema.safeParse(patch);
      if (!parsed.success) {
        throw new ConsoleError(
          400,
          'nothing was saved',
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
        );
      }
      const after = await merchants.update(before.id, parsed.data);
      await audit(deps, request, who(key), {
        action: 'console: edit merchant',
        target: before.id,
        httpStatus: 200,
        fields,
        before: merchantView(before),
        after: merchantView(after),
      });
      return reply.redirect(`/console/merchants/${encodeURIComponent(before.id)}?ok=saved`, 303);
    });

    op.post<{ Params: { id: string } }>('/merchants/:id/status', { config }, async (request, reply) => {
      const key = need(request, 'PATCH', '/admin/v1/merchants/:id');
      const fields = formOf(request);
      const status = fields.status === 'disabled' ? 'disabled' : fields.status === 'active' ? 'active' : undefined;
      if (!status) throw new ConsoleError(400, 'status must be active or disabled');
      const before = await store.findMerchantById(request.params.id);
      if (!before) throw notFound('merchant');
      const after = await merchants.update(before.id, { status });
      await audit(deps, request, who(key), {
        action: status === 'disabled' ? 'console: disable merchant' : 'console: enable merchant',
        target: before.id,
        httpStatus: 200,
        fields,
        before: merchantView(before),
        after: merchantView(after),
      });
      return reply.redirect(
        `/console/merchants/${encodeURIComponent(before.id)}?ok=${status === 'disabled' ? 'disabled' : 'enabled'}`,
        303,
      );
    });

    op.post<{ Params: { id: string } }>('/merchants/:id/rotate-secret', { config }, async (request, reply) => {
      const key = need(request, 'POST', '/admin/v1/merchants/:id/rotate-secret');
      const fields = formOf(request);
      const overlapSec = Number(fields.overlapSec ?? 86_400);
      if (!Number.isInteger(overlapSec) || overlapSec < 0 || overlapSec > 30 * 86_400) {
        throw new ConsoleError(400, 'the overlap is a whole number of seconds, at most 30 days');
      }
      const before = await store.findMerchantById(request.params.id);
      if (!before) throw notFound('merchant');
      const r = await merchants.rotateSecret(before.id, overlapSec);
      await audit(deps, request, who(key), {
        action: 'console: rotate merchant secret',
        target: before.id,
        httpStatus: 200,
        fields,
        before: merchantView(before),
        after: { clientSecret: '<redacted>', previousValidUntil: new Date(r.previousValidUntil).toISOString() },
      });
      return page(
        request,
        reply,
        'Secret rotated',
        'merchants',
        html`<h1>New secret for ${before.name}</h1><section class="card">
<p><strong>Shown this once.</strong> The previous secret keeps working until ${jakartaTime(r.previousValidUntil)}.</p>
${secretField('client-secret', 'New client secret', r.clientSecret)}
<p><a class="button secondary" href="/console/merchants/${encodeURIComponent(before.id)}">Back to the merchant</a></p></section>`,
      );
    });

    op.post<{ Params: { id: string } }>('/merchants/:id/portal-link', { config }, async (request, reply) => {
      const key = need(request, 'POST', '/admin/v1/merchants/:id/portal-link');
      const m = await activeMerchant(store, request.params.id);
      const link = portalLink(deps, signer, m.id);
      await audit(deps, request, who(key), {
        action: 'console: create portal link',
        target: m.id,
        httpStatus: 201,
        after: { url: '<redacted>', expiresAt: link.expiresAt },
      });
      return page(
        request,
        reply,
        'Portal link',
        'merchants',
        html`<h1>Portal link for ${m.name}</h1><section class="card">
<p>Send this link to the merchant over a channel you trust. It signs them in to their own portal and works until ${jakartaTime(Date.parse(link.expiresAt))}. Anyone holding it can sign in as this merchant until then.</p>
${secretField('portal-link', 'Sign-in link', link.url)}
<p><a class="button secondary" href="/console/merchants/${encodeURIComponent(m.id)}">Back to the merchant</a></p></section>`,
        201,
      );
    });

    /** Recovers a merchant's dead notifications since a time (both forms that offer it). */
    const recover = async (request: FastifyRequest, reply: FastifyReply, merchantId: string) => {
      const key = need(request, 'POST', '/admin/v1/merchants/:id/recover');
      const fields = formOf(request);
      const since = parseJakartaDateTime(fields.since);
      if (since === undefined) throw new ConsoleError(400, 'give the time to recover from');
      const m = await store.findMerchantById(merchantId);
      if (!m) throw notFound('merchant');
      const recovered = await store.recoverDead(m.id, since, clock.now());
      dispatcher.wake();
      await audit(deps, request, who(key), {
        action: 'console: recover dead notifications',
        target: m.id,
        httpStatus: 200,
        fields,
        after: { recovered },
      });
      return reply.redirect(
        `/console/notifications?state=pending&merchant=${encodeURIComponent(m.id)}&ok=recovered`,
        303,
      );
    };

    op.post<{ Params: { id: string } }>('/merchants/:id/recover', { config }, (request, reply) =>
      recover(request, reply, request.params.id),
    );

    // ── Transactions ──
    op.get('/transactions', { config }, async (request, reply) => {
      const filter = searchOf(request.query);
      const pageNo = Math.max(1, Math.min(1000, Number(q(request.query, 'page') ?? 1) || 1));
      const [rows, all] = await Promise.all([
        store.searchTransactions(filter.search, PAGE + 1, (pageNo - 1) * PAGE),
        allMerchants(store),
      ]);
      const names = new Map(all.map((m) => [m.id, m.name]));
      const more = rows.length > PAGE;
      const link = (p: number) => {
        const params = new URLSearchParams(filter.params);
        params.set('page', String(p));
        return `/console/transactions?${params}`;
      };
      return page(
        request,
        reply,
        'Transactions',
        'transactions',
        html`<h1>Transactions</h1>
<form class="filters card" method="get" action="/console/transactions" role="search">
<label>Merchant<select name="merchant"><option value="">All</option>${all.map(
          (m) =>
            html`<option value="${m.id}"${filter.params.merchant === m.id ? html` selected` : ''}>${m.name}</option>`,
        )}</select></label>
<label>Status<select name="status"><option value="">All</option>${Object.keys(TRANSACTION_STATUS).map(
          (s) =>
            html`<option value="${s}"${filter.params.status === s ? html` selected` : ''}>${statusName(s)}</option>`,
        )}</select></label>
<label>Kind<select name="kind"><option value="">All</option><option value="qris"${filter.params.kind === 'qris' ? html` selected` : ''}>QRIS</option><option value="va"${filter.params.kind === 'va' ? html` selected` : ''}>VA</option></select></label>
<label>From<input type="date" name="from" value="${filter.params.from ?? ''}"></label>
<label>To<input type="date" name="to" value="${filter.params.to ?? ''}"></label>
<label>Reference<input name="ref" value="${filter.params.ref ?? ''}" placeholder="reference or partner reference"></label>
<button type="submit">Filter</button> <a href="/console/transactions">Clear</a>
</form>
${transactionTable(rows.slice(0, PAGE), '/console', names)}
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="${link(pageNo - 1)}">← Newer</a>` : ''}${more ? html`<a href="${link(pageNo + 1)}">Older →</a>` : ''}</nav>`,
      );
    });

    op.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, async (request, reply) => {
      const t = await store.findTransaction(request.params.referenceNo);
      if (!t) throw notFound('transaction');
      const [history, notifications, merchant] = await Promise.all([
        store.statusHistory(t.referenceNo),
        store.notificationsOf(t.referenceNo),
        store.findMerchantById(t.merchantId),
      ]);
      const withAttempts = await Promise.all(
        notifications.map(async (n) => ({ n, attempts: await store.attemptsOf(n.id) })),
      );
      const csrf = opOf(request).csrf;
      return page(
        request,
        reply,
        `Transaction ${t.referenceNo}`,
        'transactions',
        transactionDetail(t, history, withAttempts.reverse(), {
          base: '/console',
          csrf,
          canReplay: can(request, 'POST', '/admin/v1/notifications/:id/replay'),
          merchantName: merchant?.name ?? t.merchantId,
          sandbox:
            sandbox && can(request, 'POST', '/admin/v1/sandbox/qris/:referenceNo/pay')
              ? sandboxActions(t, csrf)
              : undefined,
        }),
      );
    });

    op.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, async (request, reply) => {
      const key = need(request, 'POST', '/admin/v1/notifications/:id/replay');
      const fields = formOf(request);
      const existing = await store.findNotification(request.params.id);
      if (!existing) throw notFound('notification');
      const n = await store.replayNotification(existing.id, clock.now());
      await audit(deps, request, who(key), {
        action: 'console: replay notification',
        target: existing.id,
        httpStatus: n ? 202 : 409,
        fields,
        after: n ? { id: n.id, state: n.state } : undefined,
      });
      if (!n) {
        throw new ConsoleError(
          409,
          existing.state === 'delivering'
            ? 'the notification is being delivered right now'
            : 'a newer notification exists for this transaction: replay that one',
        );
      }
      dispatcher.wake();
      return reply.redirect(`/console/transactions/${encodeURIComponent(n.referenceNo)}?ok=replayed#n-${n.id}`, 303);
    });

    // ── Notifications ──
    op.get('/notifications', { config }, async (request, reply) => {
      const view = q(request.query, 'view');
      const merchantId = q(request.query, 'merchant');
      const state = (STATES as string[]).includes(q(request.query, 'state') ?? '')
        ? (q(request.query, 'state') as NotificationState)
        : 'dead';
      const cursor = q(request.query, 'cursor');
      const all = await allMerchants(store);
      const names = new Map(all.map((m) => [m.id, m.name]));
      const list =
        view === 'undelivered'
          ? { items: await store.undelivered(merchantId, 500), nextCursor: null }
          : await store.listNotifications({ merchantId, state }, { limit: PAGE, cursor });
      const tab = (label: string, href: string, current: boolean) =>
        html`<a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a>`;
      const suffix = merchantId ? `&merchant=${encodeURIComponent(merchantId)}` : '';
      const canRecover = can(request, 'POST', '/admin/v1/merchants/:id/recover');
      return page(
        request,
        reply,
        'Notifications',
        'notifications',
        html`<h1>Notifications${merchantId ? html` of ${names.get(merchantId) ?? merchantId}` : ''}</h1>
<nav class="tabs" aria-label="States">${STATES.map((s) => tab(s, `/console/notifications?state=${s}${suffix}`, view !== 'undelivered' && s === state))}
${tab('undelivered report', `/console/notifications?view=undelivered${suffix}`, view === 'undelivered')}</nav>
${view === 'undelivered' ? html`<p class="muted">The latest notification of every transaction whose latest status the merchant has not acknowledged.</p>` : ''}
${notificationTable(list.items, '/console', names)}
${list.nextCursor ? html`<nav class="pager"><a href="/console/notifications?state=${state}${suffix}&cursor=${encodeURIComponent(list.nextCursor)}">More →</a></nav>` : ''}
${
  canRecover && all.length > 0
    ? html`<section class="card"><h2>Recover a merchant's dead notifications</h2>
<form method="post" action="/console/notifications/recover" class="filters">${csrfField(opOf(request).csrf)}
<label>Merchant<select name="merchantId" required>${all.map((m) => html`<option value="${m.id}"${merchantId === m.id ? html` selected` : ''}>${m.name}</option>`)}</select></label>
<label>Created since (WIB)<input name="since" type="datetime-local" required></label>
<button type="submit">Recover</button></form></section>`
    : ''
}`,
      );
    });

    op.post('/notifications/recover', { config }, (request, reply) =>
      recover(request, reply, formOf(request).merchantId ?? ''),
    );

    // ── Sandbox ──
    if (sandbox && payer) {
      op.get('/sandbox', { config }, async (request, reply) => {
        const [open, all] = await Promise.all([
          Promise.all(
            (['01', '03'] as TransactionStatus[]).map((status) => store.searchTransactions({ status }, PAGE, 0)),
          ),
          allMerchants(store),
        ]);
        const rows = open.flat().sort((a, b) => b.createdAt - a.createdAt);
        return page(
          request,
          reply,
          'Sandbox',
          'sandbox',
          html`<h1>Sandbox</h1><p>Open transactions: open one to pay, pend or fail it as the sandbox acquirer (QRIS) or bank (VA) would, through the provider API.</p>
${transactionTable(rows, '/console', new Map(all.map((m) => [m.id, m.name])))}`,
        );
      });

      const refused = (e: unknown): never => {
        if (e instanceof IllegalStatusChange) throw new ConsoleError(409, e.message);
        if (e instanceof ProviderRefusal)
          throw new ConsoleError(e.httpStatus, `${e.responseCode} ${e.responseMessage}`);
        throw e;
      };
      const payerOf = (fields: Record<string, string>) => ({
        payerName: blank(fields.payerName)?.slice(0, 100) ?? 'SANDBOX PAYER',
        payerIssuer: '93600009',
        payerRefId: String(100_000_000_000 + randomInt(900_000_000_000)),
      });

      op.post<{ Params: { referenceNo: string } }>('/sandbox/qris/:referenceNo', { config }, async (request, reply) => {
        const key = need(request, 'POST', '/admin/v1/sandbox/qris/:referenceNo/pay');
        const fields = formOf(request);
        const status = fields.status;
        if (status !== '00' && status !== '01' && status !== '06')
          throw new ConsoleError(400, 'status must be 00, 01 or 06');
        const ref = request.params.referenceNo;
        let txn: TransactionRecord | undefined;
        if (status === '01') txn = await deps.qris.renotify({ referenceNo: ref }, clock.now(), request.id);
        else
          txn = await payer
            .payQris({ referenceNo: ref }, { status, payer: payerOf(fields), requestId: request.id })
            .catch(refused);
        if (!txn) throw notFound('QRIS transaction');
        await audit(deps, request, who(key), {
          action: `console: sandbox qris ${status === '00' ? 'pay' : status === '01' ? 'pend' : 'fail'}`,
          target: ref,
          httpStatus: 200,
          fields,
          after: { referenceNo: txn.referenceNo, status: txn.status },
        });
        const ok = status === '00' ? 'paid' : status === '01' ? 'pending' : 'failed';
        return reply.redirect(`/console/transactions/${encodeURIComponent(txn.referenceNo)}?ok=${ok}`, 303);
      });

      op.post<{ Params: { virtualAccountNo: string } }>(
        '/sandbox/va/:virtualAccountNo',
        { config },
        async (request, reply) => {
          const key = need(request, 'POST', '/admin/v1/sandbox/va/:virtualAccountNo/pay');
          const fields = formOf(request);
          const amount = blank(fields.amount);
          if (amount !== undefined && !/^(0|[1-9]\d{0,15})\.\d{2}$/.test(amount)) {
            throw new ConsoleError(400, 'the amount is a money value like 10000.00');
          }
          const txn = await payer
            .payVa(request.params.virtualAccountNo, {
              ...(amount ? { amount } : {}),
              payer: payerOf(fields),
              requestId: request.id,
            })
            .catch(refused);
          await audit(deps, request, who(key), {
            action: 'console: sandbox va pay',
            target: request.params.virtualAccountNo,
            httpStatus: 200,
            fields,
            after: { referenceNo: txn.referenceNo, status: txn.status },
          });
          return reply.redirect(`/console/transactions/${encodeURIComponent(txn.referenceNo)}?ok=paid`, 303);
        },
      );
    }

    // ── Providers ──
    op.get('/providers', { config }, async (request, reply) => {
      const now = clock.now();
      const [providers, inbound] = await Promise.all([
        store.listProviders({ limit: 500 }),
        store.countInboundByProvider(now - 86_400_000),
      ]);
      return page(
        request,
        reply,
        'Providers',
        'providers',
        html`<h1>Providers</h1>${
          providers.items.length === 0
            ? empty('No provider is registered.')
            : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Kind</th><th>Bank code</th><th>Status</th><th class="num">Calls (24 h)</th></tr></thead><tbody>${providers.items.map(
                (p) =>
                  html`<tr><td><a href="/console/providers/${encodeURIComponent(p.id)}">${p.name}</a>${p.isSandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td>${p.kind}</td><td>${p.bankCode}</td><td>${badge(p.status, p.status)}</td><td class="num">${inbound[p.id] ?? 0}</td></tr>`,
              )}</tbody></table></div>`
        }`,
      );
    });

    op.get<{ Params: { id: string } }>('/providers/:id', { config }, async (request, reply) => {
      const p = await store.findProviderById(request.params.id);
      if (!p) throw notFound('provider');
      const cursor = q(request.query, 'cursor');
      const calls = await store.listInbound(p.id, { limit: PAGE, cursor });
      return page(
        request,
        reply,
        p.name,
        'providers',
        html`<h1>${p.name} ${badge(p.status, p.status)}</h1>
<section class="card"><dl class="kv"><dt>Id</dt><dd>${p.id}</dd><dt>Kind</dt><dd>${p.kind}</dd><dt>Bank code</dt><dd>${p.bankCode}</dd><dt>Client key</dt><dd>${p.clientKey}</dd>
<dt>Calls out to</dt><dd>${p.outbound?.baseUrl ?? '—'}</dd></dl></section>
<h2>Inbound log</h2>
${
  calls.items.length === 0
    ? empty('This provider has not called the gateway yet.')
    : calls.items.map(
        (
          c,
        ) => html`<details><summary>${jakartaTime(c.at)} · ${c.method} ${c.path} · HTTP ${c.httpStatus} ${c.responseCode ?? ''} · ${c.durationMs} ms</summary>
<h4>Request body</h4><pre>${c.requestBody}</pre><h4>Response body</h4><pre>${c.responseBody}</pre></details>`,
      )
}
${calls.nextCursor ? html`<nav class="pager"><a href="/console/providers/${encodeURIComponent(p.id)}?cursor=${encodeURIComponent(calls.nextCursor)}">Older →</a></nav>` : ''}`,
      );
    });
  });
}

function secretField(id: string, label: string, value: string): Html {
  return html`<div class="secret"><label for="${id}">${label}</label>
<input id="${id}" readonly value="${value}">
<button type="button" data-copy="${id}">Copy</button><span id="${id}-status" role="status" class="muted"></span></div>`;
}

function merchantFields(
  m:
    | {
        name: string;
        callbackBaseUrl: string | null;
        qrisCallbackUrl: string | null;
        vaCallbackUrl: string | null;
        callbackSignature: string;
        callbackJson: string;
      }
    | undefined,
): Html {
  const opt = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<label>Name<input name="name" required maxlength="100" class="wide" value="${m?.name ?? ''}"></label>
<label>Callback base URL<input name="callbackBaseUrl" type="url" value="${m?.callbackBaseUrl ?? ''}" placeholder="https://merchant.example"></label>
<label>QRIS callback URL<input name="qrisCallbackUrl" type="url" value="${m?.qrisCallbackUrl ?? ''}"></label>
<label>VA callback URL<input name="vaCallbackUrl" type="url" value="${m?.vaCallbackUrl ?? ''}"></label>
<label>Callback signature<select name="callbackSignature">${opt('hmac-sha512', m?.callbackSignature, 'HMAC-SHA512 (merchant secret)')}${opt('rsa-sha256', m?.callbackSignature, 'RSA-SHA256 (gateway key)')}${opt('snap-b2b', m?.callbackSignature, 'SNAP B2B token')}</select></label>
<label>Callback JSON<select name="callbackJson">${opt('standard', m?.callbackJson)}${opt('php', m?.callbackJson, 'php (json_encode bytes)')}</select></label>`;
}

function sandboxActions(t: TransactionRecord, csrf: string): Html | undefined {
  if (t.kind === 'qris') {
    const form = (status: string, label: string, cls = '') =>
      html`<form method="post" action="/console/sandbox/qris/${encodeURIComponent(t.referenceNo)}" class="inline">${csrfField(csrf)}<input type="hidden" name="status" value="${status}"><button type="submit" class="${cls}">${label}</button></form>`;
    return html`<section class="card" aria-labelledby="h-sandbox"><h2 id="h-sandbox">Sandbox</h2>
<p class="muted">Act as the sandbox acquirer: the report goes through the provider API like a real one.</p>
<div class="actions">${form('00', 'Pay (00)')}${form('01', 'Pend (01, notify again)', 'secondary')}${form('06', 'Fail (06)', 'danger')}</div></section>`;
  }
  if (t.virtualAccountNo) {
    return html`<section class="card" aria-labelledby="h-sandbox"><h2 id="h-sandbox">Sandbox</h2>
<p class="muted">Act as the sandbox bank: inquiry then payment, through the provider API.</p>
<form method="post" action="/console/sandbox/va/${encodeURIComponent(t.virtualAccountNo)}" class="filters">${csrfField(csrf)}
<label>Amount (empty: the bill)<input name="amount" inputmode="decimal" placeholder="${t.amount ?? '10000.00'}"></label>
<button type="submit">Pay VA</button></form></section>`;
  }
  return undefined;
}

function searchOf(query: unknown) {
  const params: Record<string, string> = {};
  for (const k of ['merchant', 'status', 'kind', 'from', 'to', 'ref']) {
    const v = q(query, k);
    if (v !== undefined) params[k] = v;
  }
  const status =
    params.status && params.status in TRANSACTION_STATUS ? (params.status as TransactionStatus) : undefined;
  const kind = params.kind === 'qris' || params.kind === 'va' ? (params.kind as TransactionKind) : undefined;
  const to = parseJakartaDate(params.to);
  return {
    params,
    search: {
      merchantId: params.merchant,
      status,
      kind,
      from: parseJakartaDate(params.from),
      to: to === undefined ? undefined : to + 86_400_000,
      reference: params.ref?.trim() || undefined,
    },
  };
}

function deliveryChart(minutes: Array<{ minute: number; acknowledged: number; failed: number }>, from: number): Html {
  const byMinute = new Map(minutes.map((m) => [m.minute, m]));
  const bars = Array.from({ length: 60 }, (_, i) => {
    const minute = from + i * 60_000;
    const m = byMinute.get(minute);
    return { minute, ok: m?.acknowledged ?? 0, failed: m?.failed ?? 0 };
  });
  const max = Math.max(1, ...bars.map((b) => b.ok + b.failed));
  const total = bars.reduce((a, b) => a + b.ok, 0);
  const failed = bars.reduce((a, b) => a + b.failed, 0);
  const W = 600;
  const H = 160;
  const bw = W / 60;
  const scale = (n: number) => (n / max) * (H - 20);
  return html`<svg class="chart" viewBox="0 0 ${W} ${H + 18}" role="img" aria-labelledby="chart-title">
<title id="chart-title">${total} callbacks delivered and ${failed} failed attempts in the last hour (at most ${max} a minute)</title>
${bars.map((b) => {
  const okH = scale(b.ok);
  const failH = scale(b.failed);
  const x = (bars.indexOf(b) * bw).toFixed(1);
  return html`<g><title>${jakartaMinute(b.minute)}: ${b.ok} delivered, ${b.failed} failed</title>
<rect class="ok" x="${x}" y="${(H - okH).toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${okH.toFixed(1)}"></rect>
<rect class="failed" x="${x}" y="${(H - okH - failH).toFixed(1)}" width="${(bw - 1).toFixed(1)}" height="${failH.toFixed(1)}"></rect></g>`;
})}
<line x1="0" y1="${H}" x2="${W}" y2="${H}" stroke="#aab4c1"></line>
<text x="0" y="${H + 14}">${jakartaMinute(from)}</text><text x="${W / 2 - 15}" y="${H + 14}">${jakartaMinute(from + 30 * 60_000)}</text><text x="${W - 34}" y="${H + 14}">${jakartaMinute(from + 59 * 60_000)}</text>
<text x="2" y="12">max ${max}/min</text>
</svg>
<p class="muted">${total} delivered, ${failed} failed attempts in the last hour. Green: acknowledged; red: rejected or failed.</p>`;
}

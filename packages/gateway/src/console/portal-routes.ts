import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Dispatcher } from '../delivery/dispatcher.ts';
import { patchSchema } from '../http/routes/admin-merchants.ts';
import { type MerchantService, merchantView } from '../merchants/merchant-service.ts';
import type { MerchantRecord, NotificationState, Store } from '../store/store.ts';
import { type Html, html } from './html.ts';
import { audit, ConsoleError, checkCsrf, flashOf, formOf, q, sendHtml } from './kit.ts';
import {
  cookiesOf,
  endedSince,
  nonce,
  PORTAL_COOKIE,
  PORTAL_SESSION_MS,
  PRE_COOKIE,
  type Signer,
  setCookie,
} from './session.ts';
import { csrfField, layout, notificationTable, transactionDetail, transactionTable } from './views.ts';

export interface PortalDeps {
  store: Store;
  clock: Clock;
  merchants: MerchantService;
  dispatcher: Dispatcher;
  signer: Signer;
}

interface PortalSession {
  merchant: MerchantRecord;
  csrf: string;
}

const config = { api: 'admin' as const };
const STATES: NotificationState[] = ['dead', 'retrying', 'pending', 'delivering', 'delivered', 'superseded'];

/**
 * The merchant portal. The merchant comes only from the signed session; every record a page or an
 * action touches is checked to be that merchant's, and anything else answers 404, exactly as a
 * reference that does not exist.
 */
export function portalRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const { store, clock, signer, dispatcher } = deps;
  const sessions = new WeakMap<FastifyRequest, PortalSession>();
  const who = (m: MerchantRecord) => ({ keyId: `portal:${m.id}`, keyName: 'merchant portal' });
  const gone = (what: string) => new ConsoleError(404, `${what} not found`);

  portal.get('/enter', { config }, async (request, reply) => {
    // A signed link is longer than other query values (session.ts caps tokens at 2048).
    const token = q(request.query, 'token', 2048) ?? '';
    const link = signer.verify(token, clock.now());
    const merchant = link?.t === 'link' ? await store.findMerchantById(link.m) : undefined;
    if (
      merchant?.status !== 'active' ||
      endedSince(link?.iat ?? 0, merchant.portalNotBefore, merchant.tokensNotBefore)
    ) {
      throw new ConsoleError(
        401,
        'this sign-in link is not valid: it expired, or the merchant is disabled. Ask your gateway operator for a new one.',
      );
    }
    const pre = nonce();
    setCookie(request, reply, PRE_COOKIE, pre, 3600);
    return sendHtml(
      reply,
      layout(
        { title: 'Sign in', area: 'none' },
        html`<section class="card login"><h1>Merchant portal</h1>
<p>Sign in as <strong>${merchant.name}</strong>.</p>
<form method="post" action="/console/portal/enter">
<input type="hidden" name="_csrf" value="${signer.mac(`pre.${pre}`)}"><input type="hidden" name="token" value="${token}">
<button type="submit" autofocus>Continue to the portal</button></form></section>`,
      ),
    );
  });

  portal.post('/enter', { config }, async (request, reply) => {
    const fields = formOf(request);
    checkCsrf(request, signer, `pre.${cookiesOf(request)[PRE_COOKIE] ?? ''}`, fields);
    const link = signer.verify(fields.token, clock.now());
    const merchant = link?.t === 'link' ? await store.findMerchantById(link.m) : undefined;
    if (
      merchant?.status !== 'active' ||
      endedSince(link?.iat ?? 0, merchant.portalNotBefore, merchant.tokensNotBefore)
    ) {
      throw new ConsoleError(401, 'this sign-in link is not valid any more');
    }
    const now = clock.now();
    const iat = Math.max(now, (merchant.portalNotBefore ?? 0) + 1, (merchant.tokensNotBefore ?? 0) + 1);
    const token = signer.sign({ t: 'portal', m: merchant.id, iat, exp: now + PORTAL_SESSION_MS, n: nonce() });
    setCookie(request, reply, PORTAL_COOKIE, token, PORTAL_SESSION_MS / 1000);
    setCookie(request, reply, PRE_COOKIE, '', 0);
    await audit(deps, request, who(merchant), { action: 'portal: sign in', target: merchant.id, httpStatus: 303 });
    return reply.redirect('/console/portal', 303);
  });

  portal.register(async (p) => {
    p.addHook('preHandler', async (request, reply) => {
      const token = cookiesOf(request)[PORTAL_COOKIE];
      const s = signer.verify(token, clock.now());
      const merchant = s?.t === 'portal' ? await store.findMerchantById(s.m) : undefined;
      if (
        merchant?.status !== 'active' ||
        endedSince(s?.iat ?? 0, merchant.portalNotBefore, merchant.tokensNotBefore)
      ) {
        setCookie(request, reply, PORTAL_COOKIE, '', 0);
        throw new ConsoleError(
          401,
          'your portal session ended (expired, signed out, or the merchant was disabled): ask your gateway operator for a new sign-in link',
        );
      }
      sessions.set(request, { merchant, csrf: signer.mac(`csrf.${token}`) });
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        checkCsrf(request, signer, `csrf.${token}`, formOf(request));
      }
    });
    const sessionOf = (request: FastifyRequest) => sessions.get(request) as PortalSession;
    const page = (
      request: FastifyRequest,
      reply: FastifyReply,
      title: string,
      active: string,
      body: Html,
      status = 200,
    ) => {
      const s = sessionOf(request);
      return sendHtml(
        reply,
        layout(
          { title, area: 'portal', active, who: s.merchant.name, csrf: s.csrf, flash: flashOf(request.query) },
          body,
        ),
        status,
      );
    };

    p.post('/logout', { config }, async (request, reply) => {
      // Every portal session and sign-in link of this merchant ends on the server too.
      await store.endConsoleSessions({ merchantId: sessionOf(request).merchant.id }, clock.now());
      setCookie(request, reply, PORTAL_COOKIE, '', 0);
      return sendHtml(
        reply,
        layout(
          { title: 'Signed out', area: 'none' },
          html`<section class="card login"><h1>Signed out</h1><p>Ask your gateway operator for a new sign-in link to come back.</p></section>`,
        ),
      );
    });

    p.get('/', { config }, async (request, reply) => {
      const m = sessionOf(request).merchant;
      const ref = q(request.query, 'ref')?.trim();
      const pageNo = Math.max(1, Math.min(1000, Number(q(request.query, 'page') ?? 1) || 1));
      const rows = await store.searchTransactions(
        { merchantId: m.id, reference: ref || undefined },
        51,
        (pageNo - 1) * 50,
      );
      return page(
        request,
        reply,
        'Transactions',
        'portal',
        html`<h1>Transactions of ${m.name}</h1>
<form class="filters card" method="get" action="/console/portal" role="search"><label>Reference<input name="ref" value="${ref ?? ''}" placeholder="reference or partner reference"></label><button type="submit">Find</button> <a href="/console/portal">Clear</a></form>
${transactionTable(rows.slice(0, 50), '/console/portal')}
<nav class="pager">${pageNo > 1 ? html`<a href="/console/portal?page=${pageNo - 1}">← Newer</a>` : ''}${rows.length > 50 ? html`<a href="/console/portal?page=${pageNo + 1}">Older →</a>` : ''}</nav>`,
      );
    });

    p.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, async (request, reply) => {
      const m = sessionOf(request).merchant;
      const t = await store.findTransaction(request.params.referenceNo);
      if (!t || t.merchantId !== m.id) throw gone('transaction');
      const [history, notifications] = await Promise.all([
        store.statusHistory(t.referenceNo),
        store.notificationsOf(t.referenceNo),
      ]);
      const withAttempts = await Promise.all(
        notifications
          .filter((n) => n.merchantId === m.id)
          .map(async (n) => ({ n, attempts: await store.attemptsOf(n.id) })),
      );
      return page(
        request,
        reply,
        `Transaction ${t.referenceNo}`,
        'portal',
        transactionDetail(t, history, withAttempts.reverse(), {
          base: '/console/portal',
          csrf: sessionOf(request).csrf,
          canReplay: true,
        }),
      );
    });

    p.get('/deliveries', { config }, async (request, reply) => {
      const m = sessionOf(request).merchant;
      const raw = q(request.query, 'state');
      const state = (STATES as string[]).includes(raw ?? '') ? (raw as NotificationState) : undefined;
      const list = await store.listNotifications(
        { merchantId: m.id, state },
        { limit: 100, cursor: q(request.query, 'cursor') },
      );
      return page(
        request,
        reply,
        'Deliveries',
        'portal/deliveries',
        html`<h1>Deliveries</h1>
<nav class="tabs" aria-label="States"><a href="/console/portal/deliveries"${state === undefined ? html` aria-current="page"` : ''}>all</a>${STATES.map(
          (s) =>
            html`<a href="/console/portal/deliveries?state=${s}"${state === s ? html` aria-current="page"` : ''}>${s}</a>`,
        )}</nav>
${notificationTable(list.items, '/console/portal')}
${list.nextCursor ? html`<nav class="pager"><a href="/console/portal/deliveries?${new URLSearchParams({ ...(state ? { state } : {}), cursor: list.nextCursor })}">More →</a></nav>` : ''}`,
      );
    });

    p.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, async (request, reply) => {
      const m = sessionOf(request).merchant;
      const existing = await store.findNotification(request.params.id);
      if (!existing || existing.merchantId !== m.id) throw gone('notification');
      const n = await store.replayNotification(existing.id, clock.now());
      await audit(deps, request, who(m), {
        action: 'portal: replay notification',
        target: existing.id,
        httpStatus: n ? 202 : 409,
      });
      if (!n)
        throw new ConsoleError(
          409,
          existing.state === 'delivering'
            ? 'the notification is being delivered right now'
            : 'a newer notification exists for this transaction: replay that one',
        );
      dispatcher.wake();
      return reply.redirect(
        `/console/portal/transactions/${encodeURIComponent(n.referenceNo)}?ok=replayed#n-${n.id}`,
        303,
      );
    });

    p.get('/settings', { config }, async (request, reply) => {
      const { merchant: m, csrf } = sessionOf(request);
      return page(
        request,
        reply,
        'Callback settings',
        'portal/settings',
        html`<h1>Callback settings</h1>
<section class="card"><form method="post" action="/console/portal/settings">${csrfField(csrf)}<div class="form-grid">
<label>Callback base URL<input name="callbackBaseUrl" type="url" value="${m.callbackBaseUrl ?? ''}"></label>
<label>QRIS callback URL<input name="qrisCallbackUrl" type="url" value="${m.qrisCallbackUrl ?? ''}"></label>
<label>VA callback URL<input name="vaCallbackUrl" type="url" value="${m.vaCallbackUrl ?? ''}"></label></div>
<button type="submit">Save</button></form></section>
<section class="card"><h2>Test callback</h2><p>Delivers your latest notification again (the newest transaction that has one), signed exactly as before, to the URLs above. Watch it under Deliveries.</p>
<form method="post" action="/console/portal/test-callback">${csrfField(csrf)}<button type="submit">Send a test callback</button></form></section>`,
      );
    });

    p.post('/settings', { config }, async (request, reply) => {
      const before = sessionOf(request).merchant;
      const fields = formOf(request);
      const patch: Record<string, string | null> = {};
      for (const f of ['callbackBaseUrl', 'qrisCallbackUrl', 'vaCallbackUrl']) {
        if (f in fields) patch[f] = fields[f]?.trim() || null;
      }
      const parsed = patchSchema.safeParse(patch);
      if (!parsed.success)
        throw new ConsoleError(
          400,
          'nothing was saved',
          parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
        );
      const after = await deps.merchants.update(before.id, parsed.data);
      await audit(deps, request, who(before), {
        action: 'portal: edit callback URLs',
        target: before.id,
        httpStatus: 200,
        fields,
        before: merchantView(before),
        after: merchantView(after),
      });
      return reply.redirect('/console/portal/settings?ok=saved', 303);
    });

    p.post('/test-callback', { config }, async (request, reply) => {
      const m = sessionOf(request).merchant;
      const recent = await store.searchTransactions({ merchantId: m.id }, 50, 0);
      for (const t of recent) {
        const ns = (await store.notificationsOf(t.referenceNo)).filter((n) => n.merchantId === m.id);
        const latest = ns.sort((a, b) => b.txnSeq - a.txnSeq || Number(b.id) - Number(a.id))[0];
        if (!latest) continue;
        const n = await store.replayNotification(latest.id, clock.now());
        await audit(deps, request, who(m), {
          action: 'portal: test callback',
          target: latest.id,
          httpStatus: n ? 202 : 409,
        });
        if (!n)
          throw new ConsoleError(409, 'your latest notification is being delivered right now: try again in a moment');
        dispatcher.wake();
        return reply.redirect('/console/portal/deliveries?ok=test-sent', 303);
      }
      throw new ConsoleError(409, 'there is no notification to send yet: a transaction must change status first');
    });
  });
}

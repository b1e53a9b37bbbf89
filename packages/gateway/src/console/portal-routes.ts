import type { FastifyInstance, FastifyReply } from 'fastify';
import { merchantCaller } from '../operators/caller.ts';
import { nonce } from '../operators/sessions.ts';
import { html } from '../web/html.ts';
import { audit, ConsoleError, checkCsrf, formOf, q, sendHtml } from './kit.ts';
import { type ConsoleDeps, config } from './operator.ts';
import { deliveryPages } from './portal/deliveries.ts';
import { portalPayoutPages } from './portal/payouts.ts';
import { type PortalPages, portalGate } from './portal/portal-gate.ts';
import { settingsPages } from './portal/settings.ts';
import { portalSettlementPages } from './portal/settlements.ts';
import { portalTransactionPages, type ShowMerchantTransaction, type TransactionExtras } from './portal/transactions.ts';
import { forgetPortalTarget, landingOf, rememberedPortalTarget, safeTarget } from './return-to.ts';
import { cookiesOf, leaveNotice, PORTAL_COOKIE, PRE_COOKIE, setCookie, takeNotice } from './session.ts';
import { layout } from './views.ts';

/**
 * A sign-in link used before: it signs in once (sessions.ts), so this says so, and what to do,
 * rather than that the link is not valid. 410: the link existed and is gone for good.
 */
function sendUsedLink(reply: FastifyReply): FastifyReply {
  return sendHtml(
    reply,
    layout(
      { title: 'Sign-in link already used', area: 'none' },
      html`<section class="card login" role="alert"><h1>This sign-in link was already used</h1>
<p id="link-used">A sign-in link signs in once, and this one has been used already. Ask your gateway operator for a new one. If it was not you who used it, tell them that too.</p></section>`,
    ),
    410,
  );
}

/**
 * The merchant portal. The merchant comes only from the signed session, and the services confine
 * it to its own records: anything else answers 404, exactly as a reference that does not exist.
 */
export function portalRoutes(portal: FastifyInstance, deps: ConsoleDeps): void {
  const { sessions } = deps;

  portal.get('/enter', { config }, async (request, reply) => {
    // A signed link is longer than other query values (sessions cap tokens at 2048).
    const token = q(request.query, 'token', 2048) ?? '';
    // Opening the link uses nothing (a mail scanner may open it first): only the post below does.
    const link = await sessions.checkPortalLink(token);
    if (link.outcome === 'invalid') {
      throw new ConsoleError(
        401,
        'this sign-in link is not valid: it expired, or the merchant is disabled. Ask your gateway operator for a new one.',
      );
    }
    if (link.outcome === 'used') return sendUsedLink(reply);
    const { merchant } = link;
    const pre = nonce();
    setCookie(request, reply, PRE_COOKIE, pre, 3600);
    // Where entering lands: the link's own `next`, or the portal page this browser asked for
    // while signed out (return-to.ts); both checked again on the post.
    const next = safeTarget(q(request.query, 'next', 1000), 'portal') ?? rememberedPortalTarget(request, sessions);
    return sendHtml(
      reply,
      layout(
        { title: 'Sign in', area: 'none' },
        html`<section class="card login"><h1>Merchant portal</h1>
<p>Sign in as <strong>${merchant.name}</strong>.</p>
<form method="post" action="/console/portal/enter">
<input type="hidden" name="_csrf" value="${sessions.mac(`pre.${pre}`)}"><input type="hidden" name="token" value="${token}"><input type="hidden" name="next" value="${next ?? ''}">
${next ? html`<p class="muted" id="enter-next">Then you go back to <code>${next}</code>.</p>` : ''}
<button type="submit" autofocus>Continue to the portal</button></form></section>`,
      ),
    );
  });

  portal.post('/enter', { config }, async (request, reply) => {
    const fields = formOf(request);
    checkCsrf(request, sessions, `pre.${cookiesOf(request)[PRE_COOKIE] ?? ''}`, fields);
    const session = await sessions.enterPortal(fields.token);
    if (session.outcome === 'invalid') throw new ConsoleError(401, 'this sign-in link is not valid any more');
    if (session.outcome === 'used') {
      // Someone else may hold the link: the operator sees the attempt in the audit log.
      await audit(deps.audit, request, merchantCaller(session.merchant.id), {
        action: 'portal: sign in (refused)',
        target: session.merchant.id,
        httpStatus: 410,
        after: { refused: 'the sign-in link was already used' },
      });
      return sendUsedLink(reply);
    }
    // The page shown may have had no cookie to read (a link opened from another site sends no
    // SameSite=Strict cookie); this post, from the portal's own page, does.
    const next = safeTarget(fields.next, 'portal') ?? rememberedPortalTarget(request, sessions);
    forgetPortalTarget(request, reply);
    setCookie(request, reply, PORTAL_COOKIE, session.token, session.maxAgeSec);
    setCookie(request, reply, PRE_COOKIE, '', 0);
    await audit(deps.audit, request, merchantCaller(session.merchant.id), {
      action: 'portal: sign in',
      target: session.merchant.id,
      httpStatus: 303,
    });
    return reply.redirect(landingOf(next, 'portal'), 303);
  });

  // Where signing out leads (Post/Redirect/Get): no session needed, nothing to repeat. Right after
  // a sign-out it says, once, whose portal it ended and that every browser in it is signed out.
  portal.get('/signed-out', { config }, async (request, reply) =>
    sendHtml(
      reply,
      layout(
        { title: 'Signed out', area: 'none', flash: takeNotice(request, reply, sessions) },
        html`<section class="card login"><h1>Signed out</h1><p>Ask your gateway operator for a new sign-in link to come back.</p></section>`,
      ),
    ),
  );

  portal.register(async (p) => {
    const pages = portalGate(p, deps, '/console/portal');

    p.post('/logout', { config }, async (request, reply) => {
      const { merchant } = pages.sessionOf(request);
      // Every portal session and sign-in link of this merchant ends on the server too.
      await sessions.endPortalSessions(merchant.id);
      setCookie(request, reply, PORTAL_COOKIE, '', 0);
      await pages.audit(request, { action: 'portal: sign out', target: merchant.id, httpStatus: 303 });
      leaveNotice(request, reply, sessions, '/console/portal/signed-out', {
        kind: 'ok',
        text: `Signed out of the portal of ${merchant.name}: every browser that was signed in to it is signed out now, not only this one, and its unused sign-in links no longer work.`,
      });
      return reply.redirect('/console/portal/signed-out', 303);
    });

    merchantOwnPages(p, pages);
  });
}

/**
 * The pages a merchant's own session reads, alike in the portal and the merchant dashboard (which
 * adds `extras` below a transaction's page). Answers how to show a transaction's page again.
 */
export function merchantOwnPages(
  p: FastifyInstance,
  pages: PortalPages,
  extras?: TransactionExtras,
): ShowMerchantTransaction {
  const show = portalTransactionPages(p, pages, extras);
  portalSettlementPages(p, pages);
  portalPayoutPages(p, pages);
  deliveryPages(p, pages);
  settingsPages(p, pages);
  return show;
}

import type { FastifyInstance } from 'fastify';
import { merchantView } from '../../merchants/merchant-service.ts';
import { jakartaTime } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { asConsoleError, formOf } from '../kit.ts';
import { merchantHref, portalLinkForm, secretField } from '../merchant-views.ts';
import { config, type OperatorPages } from '../operator.ts';

const CREATE = '/admin/v1/merchants';
const ROTATE = '/admin/v1/merchants/:id/rotate-secret';
const LINK = '/admin/v1/merchants/:id/portal-link';

/**
 * What is shown once: a new merchant's client secret, a rotated secret, a portal sign-in link. The
 * form acts, then redirects (Post/Redirect/Get) to a page of its own, which shows the value left
 * for it in a sealed one-time cookie (OperatorPages.showOnce) and deletes it: a reload repeats
 * nothing and shows nothing again, only how to get a new one. Never in a URL, a log or the audit.
 */
export function credentialPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, sessions } = pages.deps;

  op.get<{ Params: { id: string } }>('/merchants/:id/created', { config }, async (request, reply) => {
    pages.need(request, 'POST', CREATE);
    const m = await merchants.get(request.params.id);
    const secret = pages.takeOnce(request, reply)?.clientSecret;
    return pages.page(
      request,
      reply,
      'Merchant created',
      'merchants',
      html`<h1>Merchant ${m.name} created</h1>
<section class="card"><h2>Credentials</h2>
${
  secret
    ? html`<p id="shown-once"><strong>The client secret is shown this once.</strong> Copy it now and give it to the merchant: the gateway keeps it sealed, and neither reloading nor coming back to this page shows it again.</p>`
    : html`<p id="shown-once" class="flash error"><strong>The client secret was shown once</strong>, right after the merchant was created, and is not shown again: the gateway keeps it sealed. To give the merchant a new one, rotate the secret on the merchant’s page (the old one keeps working for the overlap you choose).</p>`
}
<dl class="kv"><dt>Merchant id</dt><dd id="merchant-id">${m.id}</dd><dt>Client key</dt><dd id="client-key">${m.clientKey}</dd><dt>Partner id</dt><dd>${m.partnerId}</dd><dt>Created</dt><dd>${jakartaTime(m.createdAt)}</dd></dl>
${secret ? secretField('client-secret', 'Client secret', secret) : ''}
<p><a class="button secondary" href="${merchantHref(m.id)}">Open the merchant</a></p></section>`,
    );
  });

  op.post<{ Params: { id: string } }>('/merchants/:id/rotate-secret', { config }, async (request, reply) => {
    pages.need(request, 'POST', ROTATE);
    const fields = formOf(request);
    const before = await merchants.get(request.params.id);
    const overlapSec = Number(fields.overlapSec ?? 86_400);
    if (!Number.isInteger(overlapSec) || overlapSec < 0 || overlapSec > 30 * 86_400) {
      return pages.refused(
        request,
        reply,
        merchantHref(before.id),
        'The secret was not rotated: the overlap is a whole number of seconds, at most 30 days (2592000).',
        { status: 400, action: 'console: rotate merchant secret', target: before.id },
      );
    }
    const r = await merchants.rotateSecret(before.id, overlapSec);
    await pages.audit(request, {
      action: 'console: rotate merchant secret',
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: { clientSecret: '<redacted>', previousValidUntil: new Date(r.previousValidUntil).toISOString() },
    });
    return pages.showOnce(request, reply, `${merchantHref(before.id)}/secret`, {
      clientSecret: r.clientSecret,
      previousValidUntil: String(r.previousValidUntil),
    });
  });

  op.get<{ Params: { id: string } }>('/merchants/:id/secret', { config }, async (request, reply) => {
    pages.need(request, 'POST', ROTATE);
    const m = await merchants.get(request.params.id);
    const shown = pages.takeOnce(request, reply);
    const until = Number(shown?.previousValidUntil);
    return pages.page(
      request,
      reply,
      'Secret rotated',
      'merchants',
      html`<h1>New secret for ${m.name}</h1><section class="card">
${
  shown?.clientSecret
    ? html`<p id="shown-once"><strong>Shown this once.</strong> Copy it now: neither reloading nor coming back to this page shows it again. The previous secret keeps working until ${jakartaTime(Number.isFinite(until) ? until : m.previousValidUntil)}.</p>
${secretField('client-secret', 'New client secret', shown.clientSecret)}`
    : html`<p id="shown-once" class="flash error"><strong>The new client secret was shown once</strong>, right after the rotation, and is not shown again: the gateway keeps it sealed. If it was not copied, rotate the secret again on the merchant’s page.</p>`
}
<p><a class="button secondary" href="${merchantHref(m.id)}">Back to the merchant</a></p></section>`,
    );
  });

  op.post<{ Params: { id: string } }>('/merchants/:id/portal-link', { config }, async (request, reply) => {
    pages.need(request, 'POST', LINK);
    let made: Awaited<ReturnType<typeof sessions.portalLink>>;
    try {
      made = await sessions.portalLink(request.params.id);
    } catch (e) {
      // A disabled merchant gets no link: said on its page.
      if (asConsoleError(e)?.status !== 409) throw e;
      return pages.refused(
        request,
        reply,
        merchantHref(request.params.id),
        'No portal link was made: the merchant is disabled. Enable it first.',
        { status: 409, action: 'console: create portal link', target: request.params.id },
      );
    }
    const { merchant: m, ...link } = made;
    await pages.audit(request, {
      action: 'console: create portal link',
      target: m.id,
      httpStatus: 201,
      after: { url: '<redacted>', expiresAt: link.expiresAt },
    });
    return pages.showOnce(request, reply, `${merchantHref(m.id)}/portal-link`, {
      url: link.url,
      expiresAt: link.expiresAt,
    });
  });

  op.get<{ Params: { id: string } }>('/merchants/:id/portal-link', { config }, async (request, reply) => {
    pages.need(request, 'POST', LINK);
    const m = await merchants.get(request.params.id);
    const shown = pages.takeOnce(request, reply);
    const expiresAt = Date.parse(shown?.expiresAt ?? '');
    return pages.page(
      request,
      reply,
      'Portal link',
      'merchants',
      html`<h1>Portal link for ${m.name}</h1><section class="card">
${
  shown?.url
    ? html`<p id="shown-once">Send this link to the merchant over a channel you trust. It signs them in to their own portal once, and works until ${jakartaTime(Number.isFinite(expiresAt) ? expiresAt : undefined)}. Anyone holding it can sign in as this merchant until then, unless it was used already. <strong>It is shown this once:</strong> neither reloading nor coming back to this page shows it again.</p>
${secretField('portal-link', 'Sign-in link', shown.url)}`
    : html`<p id="shown-once" class="flash error"><strong>The sign-in link was shown once</strong>, right after it was made, and is not shown again. To send the merchant a link, make a new one${m.status === 'active' ? ':' : ' once the merchant is enabled again.'}</p>
${m.status === 'active' ? html`<div class="actions">${portalLinkForm(m.id, pages.operatorOf(request).csrf)}</div>` : ''}`
}
<p><a class="button secondary" href="${merchantHref(m.id)}">Back to the merchant</a></p></section>`,
    );
  });
}

import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../domain-error.ts';
import { jakartaTime } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { formOf } from '../kit.ts';
import { secretField } from '../merchant-views.ts';
import { config } from '../operator.ts';
import { csrfField } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** How long the old secret may keep working after a rotation, as the form offers it. */
const OVERLAPS: ReadonlyArray<[number, string]> = [
  [0, 'no overlap: the old secret stops now'],
  [3_600, '1 hour'],
  [86_400, '24 hours'],
  [7 * 86_400, '7 days'],
];
const DEFAULT_OVERLAP_SEC = 86_400;

/**
 * The merchant's client key and secret in the dashboard (docs/merchant-users.md#the-dashboard): a
 * developer or an owner rotates the secret, with the old one accepted for the overlap chosen; the
 * new one is shown once (sealed in a cookie bound to the session and the page, console/session.ts),
 * never logged or audited.
 */
export function clientSecretPages(p: FastifyInstance, pages: PortalPages): void {
  const { merchants, clock } = pages.deps;
  const PAGE = `${pages.base}/client-secret`;
  const NEW = `${PAGE}/new`;

  p.get('/client-secret', { config }, async (request, reply) => {
    const m = await merchants.get(pages.sessionOf(request).merchant.id);
    const inOverlap = m.previousValidUntil !== null && m.previousValidUntil > clock.now();
    const mayRotate = pages.mayPost(request, PAGE);
    return pages.page(
      request,
      reply,
      'Client secret',
      'client-secret',
      html`<h1>Client key and secret</h1>
<section class="card" aria-labelledby="h-key"><h2 id="h-key">Client key</h2>
<p>Your server sends it as <code>X-CLIENT-KEY</code> when it asks for an access token; the secret signs that request.</p>
<p><code id="client-key" class="ids">${m.clientKey}</code></p>
<p class="muted" id="previous-secret">${
        inOverlap
          ? html`The previous secret still works until <strong>${jakartaTime(m.previousValidUntil as number)}</strong>.`
          : 'Only the current secret works.'
      }</p></section>
<section class="card" aria-labelledby="h-rotate"><h2 id="h-rotate">Rotate the secret</h2>
${
  mayRotate
    ? html`<p>A new secret is made and shown once. Put it in your server's settings; until the overlap ends the old one keeps working, so nothing stops while you change it.</p>
${inOverlap ? html`<p class="flash error" id="rotate-again-warning">A rotation is still in its overlap: rotating again ends the previous secret <strong>now</strong>, and the current one becomes the previous.</p>` : ''}
<form method="post" action="${PAGE}" id="rotate-form">${csrfField(pages.sessionOf(request).csrf)}<input type="hidden" name="version" value="${m.secretVersion}">
<label>The old secret keeps working for<select name="overlapSec">${OVERLAPS.map(
        ([sec, label]) =>
          html`<option value="${sec}"${sec === DEFAULT_OVERLAP_SEC ? html` selected` : ''}>${label}</option>`,
      )}</select></label>
<div class="actions"><button type="submit" class="danger" id="rotate">Rotate the secret</button></div></form>`
    : html`<p class="muted" id="rotate-not-yours">A developer or an owner of your merchant rotates the secret.</p>`
}</section>`,
    );
  });

  p.post('/client-secret', { config }, async (request, reply) => {
    const fields = formOf(request);
    const overlapSec = Number(fields.overlapSec ?? DEFAULT_OVERLAP_SEC);
    const merchantId = pages.sessionOf(request).merchant.id;
    if (!OVERLAPS.some(([sec]) => sec === overlapSec)) {
      return pages.refused(request, reply, PAGE, 'The secret was not rotated: choose one of the overlaps offered.', {
        status: 400,
        action: 'dashboard: rotate client secret',
        target: merchantId,
      });
    }
    const version = Number(fields.version);
    let r: Awaited<ReturnType<typeof merchants.rotateSecret>>;
    try {
      r = await merchants.rotateSecret(merchantId, overlapSec, Number.isInteger(version) ? version : -1);
    } catch (e) {
      if (!(e instanceof DomainError) || e.kind !== 'conflict') throw e;
      // Sent twice (a double click, another tab, another developer): the first rotation stands.
      return pages.refused(
        request,
        reply,
        PAGE,
        'The secret was not rotated again: it was rotated meanwhile (this page was sent twice, or from another tab). The newest secret was shown once to whoever rotated it.',
        { status: 409, action: 'dashboard: rotate client secret', target: merchantId },
      );
    }
    await pages.audit(request, {
      action: 'dashboard: rotate client secret',
      target: merchantId,
      httpStatus: 303,
      fields,
      after: { clientSecret: '<redacted>', previousValidUntil: new Date(r.previousValidUntil).toISOString() },
    });
    return pages.showOnce(request, reply, NEW, {
      clientSecret: r.clientSecret,
      previousValidUntil: String(r.previousValidUntil),
    });
  });

  p.get('/client-secret/new', { config }, async (request, reply) => {
    const shown = pages.takeOnce(request, reply);
    const until = Number(shown?.previousValidUntil);
    return pages.page(
      request,
      reply,
      'New client secret',
      'client-secret',
      html`<h1>New client secret</h1><section class="card">
${
  shown?.clientSecret
    ? html`<p id="shown-once"><strong>Shown this once.</strong> Copy it now: neither reloading nor coming back to this page shows it again. ${
        until > clock.now()
          ? html`The previous secret keeps working until ${jakartaTime(until)}.`
          : 'The previous secret no longer works.'
      }</p>
${secretField('client-secret', 'New client secret', shown.clientSecret)}`
    : html`<p id="shown-once" class="flash error"><strong>The new client secret was shown once</strong>, right after the rotation, and is not shown again: the gateway keeps it sealed. If it was not copied, rotate the secret again.</p>`
}
<p><a class="button secondary" href="${PAGE}">Back</a></p></section>`,
    );
  });
}

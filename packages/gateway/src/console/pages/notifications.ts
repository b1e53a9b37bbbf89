import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NOTIFICATION_STATES, type NotificationState } from '../../delivery/notification-operations.ts';
import { jakartaTime, parseJakartaDateTime } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { formOf, PAGE, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { csrfField, notificationTable } from '../views.ts';

/** Notifications by state, the undelivered report, and recovering a merchant's dead notifications. */
export function notificationPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, notifications } = pages.deps;

  op.get('/notifications', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const view = q(request.query, 'view');
    const merchantId = q(request.query, 'merchant');
    const asked = q(request.query, 'state') ?? '';
    // Every state (`all`), one of them, or the dead ones first.
    const state =
      asked === 'all'
        ? undefined
        : (NOTIFICATION_STATES as readonly string[]).includes(asked)
          ? (asked as NotificationState)
          : 'dead';
    const sinceText = q(request.query, 'since', 19);
    const since = parseJakartaDateTime(sinceText);
    const cursor = q(request.query, 'cursor');
    const all = await merchants.all();
    const names = new Map(all.map((m) => [m.id, m.name]));
    const list =
      view === 'undelivered'
        ? { items: await notifications.undelivered(caller, merchantId, 500), nextCursor: null }
        : await notifications.list(caller, { merchantId, state, since }, { limit: PAGE, cursor });
    const tab = (label: string, href: string, current: boolean) =>
      html`<a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a>`;
    const suffix = `${merchantId ? `&merchant=${encodeURIComponent(merchantId)}` : ''}${since !== undefined && sinceText ? `&since=${encodeURIComponent(sinceText)}` : ''}`;
    const canRecover = pages.can(request, 'POST', '/admin/v1/merchants/:id/recover');
    const shown = state ?? 'all';
    return pages.page(
      request,
      reply,
      'Notifications',
      'notifications',
      html`<h1>Notifications${merchantId ? html` of ${names.get(merchantId) ?? merchantId}` : ''}</h1>
<nav class="tabs" aria-label="States">${[...NOTIFICATION_STATES, 'all'].map((s) => tab(s, `/console/notifications?state=${s}${suffix}`, view !== 'undelivered' && s === shown))}
${tab('undelivered report', `/console/notifications?view=undelivered${merchantId ? `&merchant=${encodeURIComponent(merchantId)}` : ''}`, view === 'undelivered')}</nav>
${view === 'undelivered' ? html`<p class="muted">The latest notification of every transaction whose latest status the merchant has not acknowledged.</p>` : ''}
${since !== undefined && view !== 'undelivered' ? html`<p class="muted" id="since-note">${shown === 'all' ? 'Every' : `The ${shown}`} notification${merchantId ? html` of ${names.get(merchantId) ?? merchantId}` : ''} created since ${jakartaTime(since)}, newest first. <a href="/console/notifications?state=${shown}${merchantId ? `&merchant=${encodeURIComponent(merchantId)}` : ''}">Any time</a></p>` : ''}
${notificationTable(list.items, '/console', names)}
${list.nextCursor ? html`<nav class="pager"><a href="/console/notifications?state=${shown}${suffix}&cursor=${encodeURIComponent(list.nextCursor)}">More →</a></nav>` : ''}
${
  canRecover && all.length > 0
    ? html`<section class="card"><h2>Recover a merchant's dead notifications</h2>
<form method="post" action="/console/notifications/recover" class="filters">${csrfField(pages.operatorOf(request).csrf)}
<label>Merchant<select name="merchantId" required>${all.map((m) => html`<option value="${m.id}"${merchantId === m.id ? html` selected` : ''}>${m.name}</option>`)}</select></label>
<label>Created since (WIB)<input name="since" type="datetime-local" required></label>
<button type="submit">Recover</button></form></section>`
    : ''
}`,
    );
  });

  /**
   * Recovers a merchant's dead notifications since a time (both forms that offer it); a refusal is
   * said on the page of the form (`back`).
   */
  const recover = async (request: FastifyRequest, reply: FastifyReply, merchantId: string, back: string) => {
    pages.need(request, 'POST', '/admin/v1/merchants/:id/recover');
    const fields = formOf(request);
    const since = parseJakartaDateTime(fields.since);
    if (since === undefined) {
      return pages.refused(request, reply, back, 'Nothing was recovered: give the time to recover from.', {
        status: 400,
        action: 'console: recover dead notifications',
        target: merchantId,
      });
    }
    const recovered = await notifications.recover(pages.callerOf(request), merchantId, since);
    await pages.audit(request, {
      action: 'console: recover dead notifications',
      target: merchantId,
      httpStatus: 200,
      fields,
      after: { recovered },
    });
    // Recovered ones move on at once (delivered, retrying, dead again): the list that shows them is
    // every state of that merchant's notifications created since that time.
    const name = (await merchants.find(merchantId))?.name ?? merchantId;
    const when = jakartaTime(since);
    return pages.done(
      request,
      reply,
      `/console/notifications?${new URLSearchParams({ state: 'all', merchant: merchantId, since: fields.since ?? '' })}`,
      recovered === 0
        ? `Nothing to recover: ${name} has no dead notification created since ${when}.`
        : `${recovered} queued again: the dead notification${recovered === 1 ? '' : 's'} of ${name} created since ${when} ${recovered === 1 ? 'is' : 'are'} being delivered again.`,
    );
  };

  op.post('/notifications/recover', { config }, (request, reply) =>
    recover(request, reply, formOf(request).merchantId ?? '', '/console/notifications'),
  );
  // The merchant page's form (merchant-views.ts) posts here.
  op.post<{ Params: { id: string } }>('/merchants/:id/recover', { config }, (request, reply) =>
    recover(request, reply, request.params.id, `/console/merchants/${encodeURIComponent(request.params.id)}`),
  );
}

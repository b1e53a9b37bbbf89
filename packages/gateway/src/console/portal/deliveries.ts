import type { FastifyInstance } from 'fastify';
import { NOTIFICATION_STATES, type NotificationState } from '../../delivery/notification-operations.ts';
import { html } from '../../web/html.ts';
import { q } from '../kit.ts';
import { config } from '../operator.ts';
import { notificationTable } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** The merchant's deliveries, by state. */
export function deliveryPages(p: FastifyInstance, pages: PortalPages): void {
  const { notifications } = pages.deps;
  const { base } = pages;

  p.get('/deliveries', { config }, async (request, reply) => {
    const raw = q(request.query, 'state');
    const state = (NOTIFICATION_STATES as readonly string[]).includes(raw ?? '')
      ? (raw as NotificationState)
      : undefined;
    const list = await notifications.list(
      pages.callerOf(request),
      { state },
      { limit: 100, cursor: q(request.query, 'cursor') },
    );
    return pages.page(
      request,
      reply,
      'Deliveries',
      'deliveries',
      html`<h1>Deliveries</h1>
<nav class="tabs" aria-label="States"><a href="${base}/deliveries"${state === undefined ? html` aria-current="page"` : ''}>all</a>${NOTIFICATION_STATES.map(
        (s) => html`<a href="${base}/deliveries?state=${s}"${state === s ? html` aria-current="page"` : ''}>${s}</a>`,
      )}</nav>
${notificationTable(list.items, base)}
${list.nextCursor ? html`<nav class="pager"><a href="${base}/deliveries?${new URLSearchParams({ ...(state ? { state } : {}), cursor: list.nextCursor })}">More →</a></nav>` : ''}`,
    );
  });
}

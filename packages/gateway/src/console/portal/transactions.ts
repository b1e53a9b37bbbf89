import type { FastifyInstance } from 'fastify';
import { ReplayRefused } from '../../delivery/notification-operations.ts';
import { html } from '../html.ts';
import { q } from '../kit.ts';
import { config } from '../operator.ts';
import { transactionDetail } from '../transaction-views.ts';
import { transactionTable } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** The merchant's transactions, one transaction's page, and replaying its notifications. */
export function portalTransactionPages(p: FastifyInstance, pages: PortalPages): void {
  const { transactions, notifications } = pages.deps;

  p.get('/', { config }, async (request, reply) => {
    const m = pages.sessionOf(request).merchant;
    const ref = q(request.query, 'ref')?.trim();
    const pageNo = Math.max(1, Math.min(1000, Number(q(request.query, 'page') ?? 1) || 1));
    const rows = await transactions.search(
      pages.callerOf(request),
      { reference: ref || undefined },
      51,
      (pageNo - 1) * 50,
    );
    return pages.page(
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
    const d = await transactions.detail(pages.callerOf(request), request.params.referenceNo);
    const withAttempts = await notifications.withAttempts(d.notifications);
    return pages.page(
      request,
      reply,
      `Transaction ${d.transaction.referenceNo}`,
      'portal',
      transactionDetail(d.transaction, d.history, withAttempts.reverse(), {
        base: '/console/portal',
        csrf: pages.sessionOf(request).csrf,
        canReplay: true,
      }),
    );
  });

  p.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, async (request, reply) => {
    const action = 'portal: replay notification';
    const caller = pages.callerOf(request);
    let n: Awaited<ReturnType<typeof notifications.replay>>;
    try {
      n = await notifications.replay(caller, request.params.id);
    } catch (e) {
      if (!(e instanceof ReplayRefused)) throw e;
      // Said on the transaction's page, where the Replay button was.
      const { notification } = await notifications.show(caller, e.notificationId);
      return pages.refused(
        request,
        reply,
        `/console/portal/transactions/${encodeURIComponent(notification.referenceNo)}`,
        `Notification ${e.notificationId} was not replayed: ${e.message}.`,
        { status: 409, action, target: e.notificationId },
      );
    }
    await pages.audit(request, { action, target: n.id, httpStatus: 202 });
    return reply.redirect(
      `/console/portal/transactions/${encodeURIComponent(n.referenceNo)}?ok=replayed#n-${n.id}`,
      303,
    );
  });
}

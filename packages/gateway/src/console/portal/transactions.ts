import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ReplayRefused } from '../../delivery/notification-operations.ts';
import { html } from '../html.ts';
import { q, sendHtml } from '../kit.ts';
import { config } from '../operator.ts';
import {
  type DetailOptions,
  liveParts,
  reasonText,
  transactionDetail,
  watchOf,
  watchQuery,
} from '../transaction-views.ts';
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

  /** What the page and its live parts have in common: the merchant reads `the acquirer`, never a provider's id. */
  const detailOf = async (request: FastifyRequest, referenceNo: string) => {
    const d = await transactions.detail(pages.callerOf(request), referenceNo);
    const deliveries = (await notifications.withAttempts(d.notifications)).reverse();
    const watch = watchOf(request.query);
    const options: DetailOptions = {
      base: '/console/portal',
      csrf: pages.sessionOf(request).csrf,
      canReplay: true,
      reason: (r) => reasonText(r, { kind: 'merchant' }),
      watch: watch && deliveries.some((x) => x.notification.id === watch.id) ? watch : undefined,
      now: pages.deps.clock.now(),
    };
    return { ...d, deliveries, options };
  };

  p.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, async (request, reply) => {
    const { transaction, history, deliveries, options } = await detailOf(request, request.params.referenceNo);
    return pages.page(
      request,
      reply,
      `Transaction ${transaction.referenceNo}`,
      'portal',
      transactionDetail(transaction, history, deliveries, options),
    );
  });

  // The page's live parts alone, polled by the console script while a delivery is pending.
  p.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo/live', { config }, async (request, reply) => {
    const { transaction, deliveries, options } = await detailOf(request, request.params.referenceNo);
    return sendHtml(reply, liveParts(transaction, deliveries, options).value);
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
    // Back to the top of the transaction's page, which waits on this replay's attempt and says how it went.
    return reply.redirect(
      `/console/portal/transactions/${encodeURIComponent(n.referenceNo)}?ok=replayed&${watchQuery(n)}`,
      303,
    );
  });
}

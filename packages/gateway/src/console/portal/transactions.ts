import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html } from '../../web/html.ts';
import { q, sendHtml } from '../kit.ts';
import { config } from '../operator.ts';
import { replayFromPage } from '../replay.ts';
import { type DetailOptions, liveParts, reasonText, transactionDetail, watchOf } from '../transaction-views.ts';
import { transactionTable } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** The merchant's transactions, one transaction's page, and replaying its notifications. */
export function portalTransactionPages(p: FastifyInstance, pages: PortalPages): void {
  const { transactions, notifications } = pages.deps;
  const { base, home } = pages;

  // The list is where the area starts: /console/portal, or /merchant/transactions.
  p.get(pages.home.slice(pages.base.length) || '/', { config }, async (request, reply) => {
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
      'transactions',
      html`<h1>Transactions of ${m.name}</h1>
<form class="filters card" method="get" action="${home}" role="search"><label>Reference<input name="ref" value="${ref ?? ''}" placeholder="reference or partner reference"></label><button type="submit">Find</button> <a href="${home}">Clear</a></form>
${transactionTable(rows.slice(0, 50), base, { withNet: true })}
<nav class="pager">${pageNo > 1 ? html`<a href="${home}?page=${pageNo - 1}">← Newer</a>` : ''}${rows.length > 50 ? html`<a href="${home}?page=${pageNo + 1}">Older →</a>` : ''}</nav>`,
    );
  });

  /** What the page and its live parts have in common: the merchant reads `the acquirer`, never a provider's id. */
  const detailOf = async (request: FastifyRequest, referenceNo: string) => {
    const d = await transactions.detail(pages.callerOf(request), referenceNo);
    const deliveries = (await notifications.withAttempts(d.notifications)).reverse();
    const watch = watchOf(request.query);
    const options: DetailOptions = {
      base,
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
      'transactions',
      transactionDetail(transaction, history, deliveries, options),
    );
  });

  // The page's live parts alone, polled by the console script while a delivery is pending.
  p.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo/live', { config }, async (request, reply) => {
    const { transaction, deliveries, options } = await detailOf(request, request.params.referenceNo);
    return sendHtml(reply, liveParts(transaction, deliveries, options).value);
  });

  p.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, (request, reply) =>
    replayFromPage(pages, notifications, request, reply, {
      base,
      action: 'portal: replay notification',
    }),
  );
}

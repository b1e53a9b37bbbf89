import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TransactionRecord } from '../../payments/transaction-reads.ts';
import { type Html, html } from '../../web/html.ts';
import { q, sendHtml } from '../kit.ts';
import { config } from '../operator.ts';
import { replayFromPage } from '../replay.ts';
import { type DetailOptions, liveParts, reasonText, transactionDetail, watchOf } from '../transaction-views.ts';
import { transactionTable } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** What a page of the dashboard adds below a transaction's own (its refund form), with a refused form as typed. */
export type TransactionExtras = (request: FastifyRequest, t: TransactionRecord, typed?: TypedRefund) => Html;

/** A refused refund form: what was typed, and why (shown again, 400). */
export interface TypedRefund {
  fields: Record<string, string>;
  problems: string[];
}

/** Shows a transaction's page (with a refused form as typed, and its status). */
export type ShowMerchantTransaction = (
  request: FastifyRequest,
  reply: FastifyReply,
  referenceNo: string,
  typed?: TypedRefund,
  status?: number,
) => Promise<FastifyReply>;

/**
 * The merchant's transactions, one transaction's page (with `extras` below it), and replaying its
 * notifications. Answers how to show a transaction's page again.
 */
export function portalTransactionPages(
  p: FastifyInstance,
  pages: PortalPages,
  extras?: TransactionExtras,
): ShowMerchantTransaction {
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
      canReplay: pages.mayPost(request, `${base}/notifications/0/replay`),
      reason: (r) => reasonText(r, { kind: 'merchant' }),
      watch: watch && deliveries.some((x) => x.notification.id === watch.id) ? watch : undefined,
      now: pages.deps.clock.now(),
    };
    return { ...d, deliveries, options };
  };

  const show: ShowMerchantTransaction = async (request, reply, referenceNo, typed, status = 200) => {
    const { transaction, history, deliveries, options } = await detailOf(request, referenceNo);
    return pages.page(
      request,
      reply,
      `Transaction ${transaction.referenceNo}`,
      'transactions',
      html`${transactionDetail(transaction, history, deliveries, options)}${extras?.(request, transaction, typed) ?? ''}`,
      status,
    );
  };

  p.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, (request, reply) =>
    show(request, reply, request.params.referenceNo),
  );

  // The page's live parts alone, polled by the console script while a delivery is pending.
  p.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo/live', { config }, async (request, reply) => {
    const { transaction, deliveries, options } = await detailOf(request, request.params.referenceNo);
    return sendHtml(reply, liveParts(transaction, deliveries, options).value);
  });

  p.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, (request, reply) =>
    replayFromPage(pages, notifications, request, reply, {
      base,
      action: `${pages.actor}: replay notification`,
    }),
  );
  return show;
}

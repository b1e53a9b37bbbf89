import { TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isTransactionKind, methodOf, TRANSACTION_KINDS } from '../../methods/index.ts';
import { parseJakartaDate, statusName } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { ledgerTable } from '../book-views.ts';
import { formOf, PAGE, q, sendHtml } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { replayFromPage } from '../replay.ts';
import { type DetailOptions, liveParts, reasonText, transactionDetail, watchOf } from '../transaction-views.ts';
import { transactionTable } from '../views.ts';
import { sandboxActions, sandboxState } from './sandbox.ts';
import { ACT_ROUTE, type ShowTransaction, transactionActionPages, transactionActions } from './transaction-actions.ts';

/**
 * Transactions: the search, one transaction with its history, notifications (live while a delivery
 * is pending) and ledger entries, refund and cancel (transaction-actions.ts), and replay.
 */
export function transactionPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, transactions, notifications, ledger, providers } = pages.deps;

  op.get('/transactions', { config }, async (request, reply) => {
    const filter = searchOf(request.query);
    const pageNo = Math.max(1, Math.min(1000, Number(q(request.query, 'page') ?? 1) || 1));
    const [rows, all] = await Promise.all([
      transactions.search(pages.callerOf(request), filter.search, PAGE + 1, (pageNo - 1) * PAGE),
      merchants.all(),
    ]);
    const names = new Map(all.map((m) => [m.id, m.name]));
    const more = rows.length > PAGE;
    const link = (p: number) => {
      const params = new URLSearchParams(filter.params);
      params.set('page', String(p));
      return `/console/transactions?${params}`;
    };
    return pages.page(
      request,
      reply,
      'Transactions',
      'transactions',
      html`<h1>Transactions</h1>
<form class="filters card" method="get" action="/console/transactions" role="search">
<label>Merchant<select name="merchant"><option value="">All</option>${all.map(
        (m) =>
          html`<option value="${m.id}"${filter.params.merchant === m.id ? html` selected` : ''}>${m.name}</option>`,
      )}</select></label>
<label>Status<select name="status"><option value="">All</option>${Object.keys(TRANSACTION_STATUS).map(
        (s) => html`<option value="${s}"${filter.params.status === s ? html` selected` : ''}>${statusName(s)}</option>`,
      )}</select></label>
<label>Kind<select name="kind"><option value="">All</option>${TRANSACTION_KINDS.map(
        (k) =>
          html`<option value="${k}"${filter.params.kind === k ? html` selected` : ''}>${methodOf(k).label.short}</option>`,
      )}</select></label>
<label>From<input type="date" name="from" value="${filter.params.from ?? ''}"></label>
<label>To<input type="date" name="to" value="${filter.params.to ?? ''}"></label>
<label>Reference<input name="ref" value="${filter.params.ref ?? ''}" placeholder="part of a reference, partner reference or VA number"></label>
<button type="submit">Filter</button> <a href="/console/transactions">Clear</a>
</form>
${transactionTable(rows.slice(0, PAGE), '/console', { names })}
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="${link(pageNo - 1)}">← Newer</a>` : ''}${more ? html`<a href="${link(pageNo + 1)}">Older →</a>` : ''}</nav>`,
    );
  });

  /** The provider names an operator reads in a status change's reason instead of their ids. */
  const reader = async () => {
    const list = await providers.list({ limit: 500 });
    return {
      kind: 'operator' as const,
      names: new Map(list.items.map((p) => [p.id, p.name])),
      banks: new Map(list.items.filter((p) => p.kind === 'bank').map((p) => [p.bankCode, p.name])),
    };
  };

  /** What the page and its live parts have in common. */
  const detailOf = async (request: FastifyRequest, referenceNo: string) => {
    const d = await transactions.detail(pages.callerOf(request), referenceNo);
    const deliveries = (await notifications.withAttempts(d.notifications)).reverse();
    const watch = watchOf(request.query);
    const options: DetailOptions = {
      base: '/console',
      csrf: pages.operatorOf(request).csrf,
      canReplay: pages.can(request, 'POST', ACT_ROUTE),
      reason: (r) => r,
      watch: watch && deliveries.some((x) => x.notification.id === watch.id) ? watch : undefined,
      now: pages.deps.clock.now(),
    };
    return { ...d, deliveries, options };
  };

  const show: ShowTransaction = async (request, reply, referenceNo, typed, status = 200) => {
    const caller = pages.callerOf(request);
    const { transaction: t, history, deliveries, options } = await detailOf(request, referenceNo);
    const [merchant, entries, names] = await Promise.all([
      merchants.find(t.merchantId),
      ledger.entries(caller, { referenceNo: t.referenceNo }, { limit: PAGE }),
      reader(),
    ]);
    const sandbox =
      pages.sandbox && pages.can(request, 'POST', '/admin/v1/sandbox/qris/:referenceNo/pay')
        ? sandboxActions(t, options.csrf, await sandboxState(pages, t, merchant), options.now)
        : undefined;
    return pages.page(
      request,
      reply,
      `Transaction ${t.referenceNo}`,
      'transactions',
      transactionDetail(t, history, deliveries, {
        ...options,
        merchantName: merchant?.name ?? t.merchantId,
        reason: (r) => reasonText(r, names),
        actions: options.canReplay ? transactionActions(t, options.csrf, options.now, typed) : undefined,
        // Oldest first, as the status history reads.
        ledger: html`<section aria-labelledby="h-ledger"><h2 id="h-ledger">Ledger entries</h2>
${ledgerTable([...entries.items].reverse(), 'operator', 'No ledger entry: nothing is posted before a payment.')}</section>`,
        sandbox,
      }),
      status,
    );
  };

  op.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, (request, reply) =>
    show(request, reply, request.params.referenceNo),
  );

  // The page's live parts alone (transaction-views.ts), polled by the console script while a
  // delivery is pending.
  op.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo/live', { config }, async (request, reply) => {
    const { transaction, deliveries, options } = await detailOf(request, request.params.referenceNo);
    return sendHtml(reply, liveParts(transaction, deliveries, options).value);
  });

  transactionActionPages(op, pages, show);

  op.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, (request, reply) => {
    pages.need(request, 'POST', ACT_ROUTE);
    const fields = formOf(request);
    return replayFromPage(pages, notifications, request, reply, {
      base: '/console',
      action: 'console: replay notification',
      fields,
    });
  });
}

/** The search form's fields as the query gave them, and as a transaction search. */
function searchOf(query: unknown) {
  const params: Record<string, string> = {};
  for (const k of ['merchant', 'status', 'kind', 'from', 'to', 'ref']) {
    const v = q(query, k);
    if (v !== undefined) params[k] = v;
  }
  const status =
    params.status && params.status in TRANSACTION_STATUS ? (params.status as TransactionStatus) : undefined;
  const kind = isTransactionKind(params.kind) ? params.kind : undefined;
  const to = parseJakartaDate(params.to);
  return {
    params,
    search: {
      merchantId: params.merchant,
      status,
      kind,
      from: parseJakartaDate(params.from),
      to: to === undefined ? undefined : to + 86_400_000,
      reference: params.ref?.trim() || undefined,
    },
  };
}

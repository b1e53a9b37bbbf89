import { TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { ReplayRefused } from '../../delivery/notification-operations.ts';
import type { TransactionKind } from '../../payments/transaction-reads.ts';
import { ledgerTable } from '../book-views.ts';
import { parseJakartaDate, statusName } from '../format.ts';
import { html } from '../html.ts';
import { formOf, PAGE, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { transactionDetail } from '../transaction-views.ts';
import { transactionTable } from '../views.ts';
import { sandboxActions, sandboxState } from './sandbox.ts';

/** Transactions: the search, one transaction with its history and notifications, and replay. */
export function transactionPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, transactions, notifications, ledger } = pages.deps;

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
<label>Kind<select name="kind"><option value="">All</option><option value="qris"${filter.params.kind === 'qris' ? html` selected` : ''}>QRIS</option><option value="va"${filter.params.kind === 'va' ? html` selected` : ''}>VA</option></select></label>
<label>From<input type="date" name="from" value="${filter.params.from ?? ''}"></label>
<label>To<input type="date" name="to" value="${filter.params.to ?? ''}"></label>
<label>Reference<input name="ref" value="${filter.params.ref ?? ''}" placeholder="part of a reference, partner reference or VA number"></label>
<button type="submit">Filter</button> <a href="/console/transactions">Clear</a>
</form>
${transactionTable(rows.slice(0, PAGE), '/console', names)}
<nav class="pager" aria-label="Pages">${pageNo > 1 ? html`<a href="${link(pageNo - 1)}">← Newer</a>` : ''}${more ? html`<a href="${link(pageNo + 1)}">Older →</a>` : ''}</nav>`,
    );
  });

  op.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const d = await transactions.detail(caller, request.params.referenceNo);
    const t = d.transaction;
    const [withAttempts, merchant, entries] = await Promise.all([
      notifications.withAttempts(d.notifications),
      merchants.find(t.merchantId),
      ledger.entries(caller, { referenceNo: t.referenceNo }, { limit: PAGE }),
    ]);
    const csrf = pages.operatorOf(request).csrf;
    const sandbox =
      pages.sandbox && pages.can(request, 'POST', '/admin/v1/sandbox/qris/:referenceNo/pay')
        ? sandboxActions(t, csrf, await sandboxState(pages, t, merchant), pages.deps.clock.now())
        : undefined;
    return pages.page(
      request,
      reply,
      `Transaction ${t.referenceNo}`,
      'transactions',
      transactionDetail(t, d.history, withAttempts.reverse(), {
        base: '/console',
        csrf,
        canReplay: pages.can(request, 'POST', '/admin/v1/notifications/:id/replay'),
        merchantName: merchant?.name ?? t.merchantId,
        // Oldest first, as the status history reads.
        ledger: html`<section aria-labelledby="h-ledger"><h2 id="h-ledger">Ledger entries</h2>
${ledgerTable([...entries.items].reverse(), 'operator', 'No ledger entry: nothing is posted before a payment.')}</section>`,
        sandbox,
      }),
    );
  });

  op.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/notifications/:id/replay');
    const fields = formOf(request);
    const action = 'console: replay notification';
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
        `/console/transactions/${encodeURIComponent(notification.referenceNo)}`,
        `Notification ${e.notificationId} was not replayed: ${e.message}.`,
        { status: 409, action, target: e.notificationId },
      );
    }
    await pages.audit(request, { action, target: n.id, httpStatus: 202, fields, after: { id: n.id, state: n.state } });
    return reply.redirect(`/console/transactions/${encodeURIComponent(n.referenceNo)}?ok=replayed#n-${n.id}`, 303);
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
  const kind = params.kind === 'qris' || params.kind === 'va' ? (params.kind as TransactionKind) : undefined;
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

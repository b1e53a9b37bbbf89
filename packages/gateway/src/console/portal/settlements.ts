import type { FastifyInstance } from 'fastify';
import { reportFileName } from '../../books/settlement-report.ts';
import { html } from '../../web/html.ts';
import { balanceStats, layoutOf, ledgerTable, reportLinks, settlementSummary, settlementTable } from '../book-views.ts';
import { sendAttachment } from '../kit.ts';
import { config } from '../operator.ts';
import type { PortalPages } from './portal-gate.ts';

/**
 * The merchant's balance and settlements, each settlement with its entries and its CSV report.
 * The services confine the portal's caller to its own: another merchant's settlement is not found.
 */
export function portalSettlementPages(p: FastifyInstance, pages: PortalPages): void {
  const { ledger, settlements } = pages.deps;

  p.get('/settlements', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const m = pages.sessionOf(request).merchant;
    const [balance, rows] = await Promise.all([ledger.balance(caller, m.id), settlements.list(caller, {}, 100)]);
    return pages.page(
      request,
      reply,
      'Settlements',
      'settlements',
      html`<h1>Balance and settlements of ${m.name}</h1>
${balanceStats(balance)}
<section aria-labelledby="h-settlements"><h2 id="h-settlements">Settlements</h2>
<p class="muted">Each settlement takes your payments and refunds up to its cutoff; its net is transferred to you, then it shows paid out with the bank's reference. Each has a report (CSV) of its payments and refunds.</p>
${settlementTable(rows, pages.base)}</section>`,
    );
  });

  p.get<{ Params: { id: string } }>('/settlements/:id', { config }, async (request, reply) => {
    const { settlement: s, entries } = await settlements.show(pages.callerOf(request), request.params.id);
    return pages.page(
      request,
      reply,
      `Settlement ${s.id}`,
      'settlements',
      html`<h1>Settlement ${s.id}</h1>
<section class="card" aria-labelledby="h-settlement"><h2 id="h-settlement">Settlement</h2>
${settlementSummary(s, undefined, pages.base)}
${reportLinks(pages.base, s.id)}</section>
<section aria-labelledby="h-entries"><h2 id="h-entries">Entries</h2>
${ledgerTable(entries, pages.base)}</section>`,
    );
  });

  p.get<{ Params: { id: string } }>('/settlements/:id/report.csv', { config }, async (request, reply) => {
    const layout = layoutOf(request.query);
    const { settlement, csv } = await settlements.report(pages.callerOf(request), request.params.id, layout);
    return sendAttachment(reply, 'text/csv; charset=utf-8', reportFileName(settlement.id, layout), csv);
  });
}

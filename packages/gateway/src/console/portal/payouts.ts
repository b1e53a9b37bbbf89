import type { FastifyInstance } from 'fastify';
import { html } from '../../web/html.ts';
import { config } from '../operator.ts';
import { payoutAccountCard, payoutTable } from '../payout-views.ts';
import type { PortalPages } from './portal-gate.ts';

/**
 * The merchant's bank account (read-only: its gateway operator sets it, and the payout bank verifies
 * it) and its own payouts, both kinds, newest first. The payout service confines the portal's caller
 * to its own: no other merchant's payout is listed. Nothing here asks the bank.
 */
export function portalPayoutPages(p: FastifyInstance, pages: PortalPages): void {
  const { payouts } = pages.deps;

  p.get('/payouts', { config }, async (request, reply) => {
    const m = pages.sessionOf(request).merchant;
    const rows = await payouts.list(pages.callerOf(request), {}, 100);
    return pages.page(
      request,
      reply,
      'Payouts',
      'payouts',
      html`<h1>Payouts to ${m.name}</h1>
${payoutAccountCard(m, 'No bank account yet: your gateway operator sets the account your payouts go to, and the payout bank verifies it.')}
<section aria-labelledby="h-payouts"><h2 id="h-payouts">Payouts</h2>
<p class="muted">Money sent to your bank account through the gateway’s payout bank: your settlements paid out, and disbursements. A payout that is pending waits for the bank to confirm it; one that failed sent nothing, and its settlement may be paid out again.</p>
${payoutTable(rows, { area: pages.base, links: true })}
${rows.length === 100 ? html`<p class="muted">The newest 100 are shown.</p>` : ''}</section>`,
    );
  });
}

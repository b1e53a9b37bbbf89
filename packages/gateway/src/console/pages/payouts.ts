import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { money } from '../../books/ledger-service.ts';
import { payoutView, SCHEDULE } from '../../payouts/payout-service.ts';
import { rupiah } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { payoutHref } from '../book-views.ts';
import { asConsoleError, formOf, PAGE, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import {
  exchangeList,
  type KeyNamer,
  PAYOUT_KINDS,
  PAYOUT_STATES,
  type PayoutRecord,
  payoutSummary,
  payoutTable,
} from '../payout-views.ts';
import { csrfField } from '../views.ts';

const DECIDE = (verb: 'approve' | 'reject') => `/admin/v1/payouts/:id/${verb}`;
/** What a key must be able to read for the payout pages to link a merchant and a settlement. */
const READ_SETTLEMENT = '/admin/v1/settlements/:id';

/** A query value when it is one of `options`, else undefined (an unknown filter shows everything). */
const oneOf = <T extends string>(value: string | undefined, options: ReadonlyArray<[T, string]>): T | undefined =>
  options.find(([v]) => v === value)?.[0];

const sen = (value: bigint) => rupiah(money(value));

/**
 * Payouts through the payout bank (docs/payouts.md): the list with its filters, newest first, the
 * ones awaiting approval marked; a payout with every exchange with the bank (opening one the bank has
 * not settled asks the bank, as the admin API does); approving and rejecting it, for a key of
 * `admin` or `approve` scope other than the one that asked (the service refuses that one: 403).
 */
export function payoutPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, payouts, adminKeys, config: gatewayConfig } = pages.deps;

  op.get('/payouts', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const kind = oneOf(q(request.query, 'kind'), PAYOUT_KINDS);
    const state = oneOf(q(request.query, 'state'), PAYOUT_STATES);
    const merchantId = q(request.query, 'merchant', 64);
    const [rows, awaiting, all] = await Promise.all([
      payouts.list(caller, { kind, state, merchantId }, PAGE),
      payouts.list(caller, { state: 'awaiting_approval' }, PAGE),
      merchants.all(),
    ]);
    const names = new Map(all.map((m) => [m.id, m.name]));
    const option = (value: string, label: string, current: string | undefined) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
    const waiting =
      awaiting.length === PAGE
        ? `${PAGE} or more payouts`
        : `${awaiting.length} payout${awaiting.length === 1 ? '' : 's'}`;
    return pages.page(
      request,
      reply,
      'Payouts',
      'payouts',
      html`<h1>Payouts</h1>
<p class="muted">Money sent to merchants’ bank accounts through the payout bank: settlements paid out, and disbursements. A payout above ${rupiah(money(gatewayConfig.payoutApprovalAboveSen))} waits until another key than the one that asked (of admin or approve scope) approves it.</p>
${
  awaiting.length > 0
    ? html`<p class="flash warn" id="awaiting-count" role="status">${waiting} await${awaiting.length === 1 ? 's' : ''} approval. ${state === 'awaiting_approval' ? '' : html`<a href="/console/payouts?state=awaiting_approval">Show them</a>`}</p>`
    : ''
}
<form class="filters card" method="get" action="/console/payouts" role="search">
<label>Kind<select name="kind"><option value="">All</option>${PAYOUT_KINDS.map(([v, l]) => option(v, l, kind))}</select></label>
<label>State<select name="state"><option value="">All</option>${PAYOUT_STATES.map(([v, l]) => option(v, l, state))}</select></label>
<label>Merchant<select name="merchant"><option value="">All</option>${all.map((m) => option(m.id, m.name, merchantId))}</select></label>
<button type="submit">Filter</button> <a href="/console/payouts">Clear</a></form>
${payoutTable(rows, { area: 'operator', names, links: pages.can(request, 'GET', READ_SETTLEMENT) })}
${rows.length === PAGE ? html`<p class="muted">The newest ${PAGE} are shown: filter by kind, state or merchant to see others.</p>` : ''}`,
    );
  });

  op.get<{ Params: { id: string } }>('/payouts/:id', { config }, async (request, reply) => {
    // A payout the bank has not settled (sending, pending) is asked about first (36).
    const { payout: p, exchanges } = await payouts.show(pages.callerOf(request), request.params.id);
    const [merchant, keys] = await Promise.all([merchants.find(p.merchantId), adminKeys.list()]);
    const me = pages.operatorOf(request).key;
    const keyName: KeyNamer = (id) => {
      if (id === null) return '—';
      if (id === SCHEDULE) return 'the settlement schedule (the merchant’s payouts are automatic)';
      const k = keys.find((x) => x.id === id);
      if (!k) return id;
      return html`${k.name} <code>${k.id}</code>${k.id === me.id ? html` <strong>(you)</strong>` : ''}`;
    };
    const links = pages.can(request, 'GET', READ_SETTLEMENT);
    return pages.page(
      request,
      reply,
      `Payout ${p.id}`,
      'payouts',
      html`<h1>Payout ${p.id}</h1>
<p><a href="/console/payouts">← All payouts</a></p>
<div class="grid">
<section class="card" aria-labelledby="h-payout"><h2 id="h-payout">Payout</h2>
${payoutSummary(p, { merchant: { id: p.merchantId, name: merchant?.name ?? p.merchantId }, links, keyName })}</section>
${p.state === 'awaiting_approval' ? decideCard(p, pages, request, me.id) : ''}
</div>
<section aria-labelledby="h-exchanges"><h2 id="h-exchanges">Exchanges with the bank</h2>
<p class="muted">Every request to the payout bank for this payout and its answer, in order: the bodies as sent and received, never a header, a token or a signature.</p>
${exchangeList(exchanges)}</section>`,
    );
  });

  const decide =
    (verb: 'approve' | 'reject') =>
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply): Promise<FastifyReply> => {
      pages.need(request, 'POST', DECIDE(verb));
      const fields = formOf(request);
      const { id } = request.params;
      const back = payoutHref('operator', id);
      const action = `console: ${verb} payout`;
      let p: PayoutRecord;
      try {
        p =
          verb === 'approve'
            ? await payouts.approve(pages.callerOf(request), id)
            : await payouts.reject(pages.callerOf(request), id);
      } catch (e) {
        // Who asks (the key that asked for it: 403) or the payout's state (409), said on its page.
        const r = asConsoleError(e);
        if (!r || (r.status !== 403 && r.status !== 409)) throw e;
        const done = verb === 'approve' ? 'approved' : 'rejected';
        return pages.refused(request, reply, back, `Not ${done}: ${r.message}.`, {
          status: r.status,
          action,
          target: id,
        });
      }
      await pages.audit(request, { action, target: id, httpStatus: 200, fields, after: payoutView(p) });
      const outcome = decidedText(p);
      return pages.done(request, reply, back, outcome.text, outcome.kind);
    };
  op.post('/payouts/:id/approve', { config }, decide('approve'));
  op.post('/payouts/:id/reject', { config }, decide('reject'));
}

/** What approving or rejecting did, in words. */
function decidedText(p: PayoutRecord): { text: string; kind: 'ok' | 'error' } {
  const opened = p.settlementId === null ? '' : ` Settlement ${p.settlementId} is open again.`;
  switch (p.state) {
    case 'rejected':
      return { text: `Rejected: nothing was sent.${opened}`, kind: 'ok' };
    case 'paid':
      return {
        text: `Approved: the bank paid ${sen(p.amountSen)} (bank reference ${p.bankReference ?? '—'}).`,
        kind: 'ok',
      };
    case 'failed':
      return {
        text: `Approved, but the bank refused the transfer: ${p.error ?? 'no reason given'}.${opened}`,
        kind: 'error',
      };
    default:
      return {
        text: 'Approved and sent: the bank has not confirmed the transfer yet. The gateway asks it on its schedule, and whenever this page is opened.',
        kind: 'ok',
      };
  }
}

/** Approve and Reject, for a key that may decide; who may, for one that may not. */
function decideCard(p: PayoutRecord, pages: OperatorPages, request: FastifyRequest, me: string): Html {
  const may = pages.can(request, 'POST', DECIDE('approve'));
  const csrf = pages.operatorOf(request).csrf;
  const to = `${p.beneficiary.accountNo} at bank ${p.beneficiary.bankCode} (${p.beneficiary.name})`;
  const action = (verb: 'approve' | 'reject') => `${payoutHref('operator', p.id)}/${verb}`;
  return html`<section class="card" id="decide" aria-labelledby="h-decide"><h2 id="h-decide">Awaiting approval</h2>
<p>Nothing is sent until another key than the one that asked approves it. Approving transfers <strong>${sen(p.amountSen)}</strong> to ${to} now; rejecting sends nothing${p.settlementId === null ? '' : ' and opens its settlement again'}.</p>
${
  may
    ? html`${p.requestedBy === me ? html`<p class="muted" id="decide-own">Your key asked for this payout: the gateway refuses its approval and its rejection. Another key must decide it.</p>` : ''}
<div class="actions">
<form method="post" action="${action('approve')}" class="inline" data-confirm="Approve payout ${p.id}? The bank transfers ${sen(p.amountSen)} to ${to}.">${csrfField(csrf)}<button type="submit" id="approve">Approve</button></form>
<form method="post" action="${action('reject')}" class="inline" data-confirm="Reject payout ${p.id}? Nothing is sent.">${csrfField(csrf)}<button type="submit" class="danger" id="reject">Reject</button></form>
</div>`
    : html`<p class="muted" id="decide-scope">A key of admin or approve scope decides it; this key (${pages.operatorOf(request).key.scope}) cannot.</p>`
}</section>`;
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { money } from '../../books/ledger-service.ts';
import { reportFileName } from '../../books/settlement-report.ts';
import { settlementView } from '../../books/settlement-service.ts';
import { scopeCovers } from '../../http/admin-auth.ts';
import { payoutBody, settlementRunBody } from '../../http/routes/admin-books.ts';
import type { MerchantRecord } from '../../merchants/merchant-service.ts';
import { jakartaIso, jakartaTime, parseJakartaDateTime, rupiah } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import {
  booksTabs,
  layoutOf,
  ledgerTable,
  payoutHref,
  reportLinks,
  type SettlementRecord,
  settlementHref,
  settlementSummary,
  settlementTable,
} from '../book-views.ts';
import { asConsoleError, blank, ConsoleError, formOf, issuesOf, PAGE, q, sendAttachment } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import type { PayoutRecord } from '../payout-views.ts';
import { csrfField, formProblems } from '../views.ts';

const SETTLE = '/admin/v1/settlements';
const PAYOUT = '/admin/v1/settlements/:id/payout';

/**
 * Settlements: the list and "Settle now", one settlement with its entries, its CSV report, paying
 * it out through the payout bank (docs/payouts.md: `operate` or `admin`, as `POST …/payout` with
 * `{}`), and recording a payout made by hand with the bank's reference (`admin`, as with
 * `{bankReference}`). Settling takes the admin scope, as in the admin API.
 */
export function settlementPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, settlements } = pages.deps;

  op.get('/books/settlements', { config }, async (request, reply) => {
    const merchantId = q(request.query, 'merchant', 64);
    const asked = q(request.query, 'status');
    const status = asked === 'open' || asked === 'paying' || asked === 'paid' ? asked : undefined;
    const [rows, all] = await Promise.all([
      settlements.list(pages.callerOf(request), { merchantId, status }, PAGE),
      merchants.all(),
    ]);
    const names = new Map(all.map((m) => [m.id, m.name]));
    const csrf = pages.operatorOf(request).csrf;
    const option = (value: string, label: string, current: string | undefined) =>
      html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
    return pages.page(
      request,
      reply,
      'Settlements',
      'books',
      html`<h1>Books</h1>${booksTabs('settlements')}
<h2>Settlements</h2>
<form class="filters card" method="get" action="/console/books/settlements" role="search">
<label>Merchant<select name="merchant"><option value="">All</option>${all.map((m) => option(m.id, m.name, merchantId))}</select></label>
<label>Status<select name="status"><option value="">All</option>${option('open', 'open', status)}${option('paying', 'being paid out', status)}${option('paid', 'paid out', status)}</select></label>
<button type="submit">Filter</button> <a href="/console/books/settlements">Clear</a></form>
${settlementTable(rows, 'operator', names)}
${rows.length === PAGE ? html`<p class="muted">The newest ${PAGE} are shown: filter by merchant or status to see others.</p>` : ''}
${
  pages.can(request, 'POST', SETTLE)
    ? html`<section class="card" aria-labelledby="h-settle"><h2 id="h-settle">Settle now</h2>
<p class="muted">Takes every unsettled payment and refund before the cutoff (empty: now) into one open settlement per merchant (a merchant whose net is zero or less is left as it is). The schedule does the same on its own.</p>
<form method="post" action="/console/books/settlements" class="filters" data-confirm="Settle now?">${csrfField(csrf)}
<label>Merchant<select name="merchantId"><option value="">Every merchant with something to settle</option>${all.map((m) => option(m.id, m.name, merchantId))}</select></label>
<label>Cutoff (WIB, not later than now)<input type="datetime-local" name="cutoff" step="1"></label>
<button type="submit">Settle now</button></form></section>`
    : ''
}`,
    );
  });

  op.post('/books/settlements', { config }, async (request, reply) => {
    pages.need(request, 'POST', SETTLE);
    const fields = formOf(request);
    const back = '/console/books/settlements';
    const merchantId = blank(fields.merchantId);
    const refused = (why: string, status: 400 | 409 = 400) =>
      pages.refused(request, reply, back, why, { status, action: 'console: settle now', target: merchantId ?? null });
    const typedCutoff = blank(fields.cutoff);
    const cutoffMs = parseJakartaDateTime(typedCutoff);
    if (typedCutoff !== undefined && cutoffMs === undefined)
      return refused(`Nothing was settled: the cutoff ${typedCutoff} is not a date and time.`);
    const body = settlementRunBody.safeParse({
      ...(merchantId ? { merchantId } : {}),
      ...(cutoffMs === undefined ? {} : { cutoff: jakartaIso(cutoffMs) }),
    });
    if (!body.success) return refused(`Nothing was settled: ${issuesOf(body.error.issues).join('; ')}.`);
    let made: SettlementRecord[];
    try {
      made = await settlements.run({ merchantId, cutoff: cutoffMs });
    } catch (e) {
      const r = asConsoleError(e);
      // An unknown merchant is no refusal of the form: the page says it is not found.
      if (!r || r.status >= 500 || r.status === 404) throw e;
      return refused(`Nothing was settled: ${r.problems[0] ?? r.message}.`, r.status === 400 ? 400 : 409);
    }
    await pages.audit(request, {
      action: 'console: settle now',
      target: merchantId ?? null,
      httpStatus: 201,
      fields,
      after: { items: made.map(settlementView) },
    });
    const before = cutoffMs === undefined ? 'before now' : `before ${jakartaTime(cutoffMs)}`;
    const only = made.length === 1 ? made[0] : undefined;
    if (only) {
      return pages.done(
        request,
        reply,
        settlementHref('operator', only.id),
        `Settled ${before}: ${takenText(only)}, in this open settlement.`,
      );
    }
    if (made.length === 0)
      return pages.done(request, reply, back, `Nothing to settle: no unsettled payment or refund ${before}.`);
    return pages.done(
      request,
      reply,
      back,
      `Settled: ${made.length} merchants each have a new open settlement of their payments and refunds ${before}.`,
    );
  });

  /** A settlement's page; with `typed`, the payout form refused for what was typed, as typed (400). */
  async function showSettlement(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    typed?: TypedPayout,
  ): Promise<FastifyReply> {
    const { settlement: s, entries } = await settlements.show(pages.callerOf(request), id);
    const [merchant, banks] = await Promise.all([
      merchants.find(s.merchantId),
      pages.deps.providers.list({ limit: 500 }),
    ]);
    const names = new Map(banks.items.map((p) => [p.id, p.name]));
    if (merchant) names.set(merchant.id, merchant.name);
    const open = s.status === 'open';
    // The form that records a payout made by hand, when this key may and the settlement is open.
    const marksByHand = open && mayMarkByHand(pages, request);
    const csrf = pages.operatorOf(request).csrf;
    const approvalAbove = pages.deps.config.payoutApprovalAboveSen;
    return pages.page(
      request,
      reply,
      `Settlement ${s.id}`,
      'books',
      html`<h1>Settlement ${s.id}</h1>${booksTabs('settlements')}
${typed && !marksByHand ? formProblems('Not paid out:', typed.problems) : ''}
<div class="grid">
<section class="card" aria-labelledby="h-settlement"><h2 id="h-settlement">Settlement</h2>
${settlementSummary(s, { id: s.merchantId, name: merchant?.name ?? s.merchantId })}
${reportLinks('operator', s.id)}</section>
${open && pages.can(request, 'POST', PAYOUT) ? bankPayoutForm(s, merchant, csrf, approvalAbove) : ''}
${marksByHand ? payoutForm(s, csrf, typed) : ''}
${s.status === 'paying' && s.payoutId !== null ? payingCard(s.payoutId) : ''}
</div>
<section aria-labelledby="h-entries"><h2 id="h-entries">Entries</h2>
<p class="muted">The payments and refunds this settlement took: its net is their sum, less fees.</p>
${ledgerTable(entries, 'operator', undefined, names)}</section>`,
      typed ? 400 : 200,
    );
  }

  op.get<{ Params: { id: string } }>('/books/settlements/:id', { config }, (request, reply) =>
    showSettlement(request, reply, request.params.id),
  );

  op.get<{ Params: { id: string } }>('/books/settlements/:id/report.csv', { config }, async (request, reply) => {
    const layout = layoutOf(request.query);
    const { settlement, csv } = await settlements.report(pages.callerOf(request), request.params.id, layout);
    return sendAttachment(reply, 'text/csv; charset=utf-8', reportFileName(settlement.id, layout), csv);
  });

  op.post<{ Params: { id: string } }>('/books/settlements/:id/payout', { config }, async (request, reply) => {
    pages.need(request, 'POST', PAYOUT);
    // By hand it stays an admin's act, as with `{bankReference}` in the admin API (operate pays through the bank only).
    if (!mayMarkByHand(pages, request)) {
      const { key } = pages.operatorOf(request);
      throw new ConsoleError(
        403,
        `the key ${key.name} has the ${key.scope} scope; recording a payout made by hand needs admin`,
      );
    }
    const fields = formOf(request);
    const back = settlementHref('operator', request.params.id);
    const action = 'console: pay out settlement';
    const parsed = payoutBody.safeParse({ bankReference: fields.bankReference ?? '' });
    if (!parsed.success) {
      // What was typed comes back as typed, with what is wrong with it: nothing to type again.
      const problems = parsed.error.issues.map((i) => `bankReference: ${i.message}.`);
      await pages.refusedForm(request, { status: 400, action, target: request.params.id }, problems);
      return showSettlement(request, reply, request.params.id, {
        bankReference: fields.bankReference ?? '',
        problems,
      });
    }
    let s: SettlementRecord;
    try {
      s = await settlements.payout(request.params.id, parsed.data.bankReference);
    } catch (e) {
      const refusal = asConsoleError(e);
      if (refusal?.status !== 409) throw e;
      return pages.refused(request, reply, back, `Not paid out: ${refusal.message}.`, {
        status: 409,
        action,
        target: request.params.id,
      });
    }
    await pages.audit(request, { action, target: s.id, httpStatus: 200, fields, after: settlementView(s) });
    return reply.redirect(`${back}?ok=paid-out`, 303);
  });

  // `POST /admin/v1/settlements/:id/payout` with `{}`: the net to the merchant's verified account.
  op.post<{ Params: { id: string } }>('/books/settlements/:id/payout/bank', { config }, async (request, reply) => {
    pages.need(request, 'POST', PAYOUT);
    const fields = formOf(request);
    const back = settlementHref('operator', request.params.id);
    const action = 'console: pay out settlement through the bank';
    let paid: { settlement: SettlementRecord; payout: PayoutRecord };
    try {
      paid = await pages.deps.payouts.paySettlement(pages.operatorOf(request).key.id, request.params.id);
    } catch (e) {
      // No verified account, no payout bank, paid or being paid already: nothing was sent.
      const refusal = asConsoleError(e);
      if (refusal?.status !== 409) throw e;
      return pages.refused(request, reply, back, `Not paid out: ${refusal.message}.`, {
        status: 409,
        action,
        target: request.params.id,
      });
    }
    const { settlement: s, payout: p } = paid;
    await pages.audit(request, {
      action,
      target: s.id,
      httpStatus: 202,
      fields,
      after: settlementView(s),
    });
    const outcome = bankPayoutText(s, p);
    return pages.done(request, reply, back, outcome.text, outcome.kind);
  });
}

/** Whether the key may record a payout made by hand: `admin`, as `{bankReference}` takes in the admin API. */
const mayMarkByHand = (pages: OperatorPages, request: Parameters<OperatorPages['can']>[0]) =>
  pages.can(request, 'POST', PAYOUT) && scopeCovers(pages.operatorOf(request).key.scope, 'admin');

/** What paying through the bank did, in words: paid, waiting for approval, pending, or refused by the bank. */
function bankPayoutText(s: SettlementRecord, p: PayoutRecord): { text: string; kind: 'ok' | 'error' } {
  switch (p.state) {
    case 'paid':
      return {
        text: `Paid out through the bank: payout ${p.id} is paid (bank reference ${p.bankReference ?? s.bankReference ?? '—'}).`,
        kind: 'ok',
      };
    case 'awaiting_approval':
      return {
        text: `Payout ${p.id} awaits approval: another key of admin or approve scope must approve it before anything is sent.`,
        kind: 'ok',
      };
    case 'failed':
      return {
        text: `The bank refused the transfer of payout ${p.id}: ${p.error ?? 'no reason given'}. The settlement is open again.`,
        kind: 'error',
      };
    default:
      return {
        text: `Sent to the bank: payout ${p.id} is ${p.state}; the bank has not confirmed it yet. The gateway asks it on its schedule, and whenever the payout's page is opened.`,
        kind: 'ok',
      };
  }
}

/** Paying through the payout bank: to whom, and when a second key must approve. */
function bankPayoutForm(
  s: SettlementRecord,
  merchant: MerchantRecord | undefined,
  csrf: string,
  approvalAboveSen: bigint,
): Html {
  const a = merchant?.payoutAccount;
  const to = a
    ? html`<p id="bank-payout-to">To the merchant’s account ${a.accountNo} at bank ${a.bankCode}, ${a.verifiedName} <span class="muted">(verified ${jakartaTime(a.verifiedAt)})</span>.</p>`
    : html`<p id="bank-payout-to">The merchant has no verified bank account: set one on its page first, or the bank is not asked.</p>`;
  const approval =
    s.netSen > approvalAboveSen
      ? `Its net is above ${rupiah(money(approvalAboveSen))}: it waits until another key (admin or approve scope) approves it.`
      : 'It is sent at once.';
  return html`<section class="card" aria-labelledby="h-bank-payout" id="bank-payout"><h2 id="h-bank-payout">Pay through bank</h2>
${to}
<p class="muted">Transfers the net through the payout bank, once: the settlement is being paid out until the bank says it paid (then paid out) or refused (open again, with why). ${approval}</p>
<form method="post" action="${settlementHref('operator', s.id)}/payout/bank" data-confirm="Pay ${rupiah(money(s.netSen))} to the merchant through the bank?">${csrfField(csrf)}
<button type="submit">Pay through bank</button></form></section>`;
}

/** A settlement being paid out: where its payout stands. */
function payingCard(payoutId: string): Html {
  return html`<section class="card" aria-labelledby="h-paying" id="paying"><h2 id="h-paying">Being paid out</h2>
<p>Payout <a href="${payoutHref('operator', payoutId)}">${payoutId}</a> is under way through the bank, or awaits approval. Its page shows where it stands (opening it asks the bank), and every exchange with the bank.</p></section>`;
}

/** A payout form refused for what was typed: the bank reference as typed, and why. */
interface TypedPayout {
  bankReference: string;
  problems: readonly string[];
}

function payoutForm(s: SettlementRecord, csrf: string, typed?: TypedPayout): Html {
  return html`<section class="card" aria-labelledby="h-payout"><h2 id="h-payout">Record a payout made by hand</h2>
<p class="muted">Once a bank transfer of the net to the merchant is made outside the gateway, record it here with the bank's reference. A settlement is paid out once.</p>
${typed ? formProblems('Not paid out:', typed.problems) : ''}
<form method="post" action="${settlementHref('operator', s.id)}/payout" class="filters" data-confirm="Record this settlement as paid out?">${csrfField(csrf)}
<label>Bank reference<input name="bankReference" required maxlength="64" autocomplete="off" placeholder="TRF-20260115-0001" value="${typed?.bankReference ?? ''}"${typed ? html` aria-invalid="true"` : ''}></label>
<button type="submit">Record payout</button></form></section>`;
}

/**
 * What a settlement took, in words: its payments by number, what it netted against them by amount
 * (`count` is the payments alone: a refund or a disbursement is not one of them).
 */
function takenText(s: SettlementRecord): string {
  const less = [
    s.refundsSen > 0n ? `${rupiah(money(s.refundsSen))} of refunds` : '',
    s.disbursedSen > 0n ? `${rupiah(money(s.disbursedSen))} of disbursements` : '',
  ].filter((t) => t !== '');
  return [
    `${s.count} ${s.count === 1 ? 'payment' : 'payments'}`,
    less.length > 0 ? `, less ${less.join(' and ')}` : '',
    s.returnedSen > 0n ? `, plus ${rupiah(money(s.returnedSen))} of disbursements returned` : '',
  ].join('');
}

import { isMoneyValue } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain-error.ts';
import type { PaymentLinkView } from '../../payments/payment-links.ts';
import type { LinkMethod } from '../../records/link-records.ts';
import { jakartaTime, rupiah, statusName } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { auditRefusedForm, formOf } from '../kit.ts';
import { secretField } from '../merchant-views.ts';
import { config } from '../operator.ts';
import { badge, csrfField, empty, formProblems } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

// Payment links in the merchant dashboard (docs/payment-links.md): every user reads them and their
// payments; an owner or a finance user makes one (its address shown to copy and send) and
// deactivates one. The same service and rules as the admin API's.

/** How long a link made here takes payments: the form's choices, in days (0: until deactivated). */
const EXPIRIES: ReadonlyArray<[number, string]> = [
  [0, 'until deactivated'],
  [1, '1 day'],
  [7, '7 days'],
  [30, '30 days'],
];
const ACTION = 'dashboard: make payment link';

const stateBadge = (state: PaymentLinkView['state']) =>
  badge(state === 'open' ? 'active' : state === 'paid' ? 'paid' : 'disabled', state);

/** What a link charges, in words. */
function amountText(l: Pick<PaymentLinkView, 'amount' | 'minAmount' | 'maxAmount'>): string {
  if (l.amount) return rupiah(l.amount.value);
  const min = l.minAmount ? rupiah(l.minAmount.value) : undefined;
  const max = l.maxAmount ? rupiah(l.maxAmount.value) : undefined;
  if (min && max) return `typed by the payer, ${min} to ${max}`;
  if (min) return `typed by the payer, at least ${min}`;
  if (max) return `typed by the payer, at most ${max}`;
  return 'typed by the payer';
}

/** A method as the form and the list name it. */
const methodName = (m: LinkMethod) =>
  m === 'qris' ? 'QRIS' : m.startsWith('va:') ? `VA (bank ${m.slice(3)})` : m.slice('ewallet:'.length);

/** A typed amount (`85000`, `85000.00`) as money, or what was typed when it is not one. */
const moneyTyped = (text: string | undefined): { value: string; currency: 'IDR' } | string | undefined => {
  const t = (text ?? '').trim();
  if (t === '') return undefined;
  const value = /^\d{1,15}$/.test(t) ? `${t}.00` : t;
  return isMoneyValue(value) ? { value, currency: 'IDR' } : t;
};

export function linkPages(p: FastifyInstance, pages: PortalPages): void {
  const { links, clock } = pages.deps;
  const LIST = `${pages.base}/links`;
  const hrefOf = (id: string) => `${LIST}/${encodeURIComponent(id)}`;

  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    typed?: { fields: Record<string, string>; problems: string[] },
  ) {
    const m = pages.sessionOf(request).merchant;
    const [list, available] = await Promise.all([links.list(m.id, 100), links.methodsAvailable()]);
    const canMake = pages.mayPost(request, LIST);
    const v = typed?.fields ?? {};
    const checked = (method: LinkMethod) => (typed ? v[`method:${method}`] === 'on' : true);
    return pages.page(
      request,
      reply,
      'Payment links',
      'links',
      html`<h1>Payment links</h1>
<p class="muted">Send a link by chat or social media: the payer opens it, picks QRIS, a bank’s Virtual Account or an e-wallet, and pays. The payment is like any other (its callback carries <code>paymentLinkId</code>).</p>
${
  canMake
    ? html`<section class="card" aria-labelledby="h-new"><h2 id="h-new">Make a link</h2>
${typed ? formProblems('No link was made:', typed.problems) : ''}
<form method="post" action="${LIST}" id="link-form" class="form-grid">${csrfField(pages.sessionOf(request).csrf)}
<label>What is paid for<input name="description" maxlength="200" required value="${v.description ?? ''}"></label>
<label>Amount (empty: the payer types it)<input name="amount" inputmode="decimal" autocomplete="off" placeholder="like 85000" value="${v.amount ?? ''}"></label>
<label>At least (a typed amount)<input name="minAmount" inputmode="decimal" autocomplete="off" value="${v.minAmount ?? ''}"></label>
<label>At most (a typed amount)<input name="maxAmount" inputmode="decimal" autocomplete="off" value="${v.maxAmount ?? ''}"></label>
<label>Takes payments<select name="expiresInDays">${EXPIRIES.map(
        ([days, label]) =>
          html`<option value="${days}"${String(days) === (v.expiresInDays ?? '0') ? html` selected` : ''}>${label}</option>`,
      )}</select></label>
<label class="check"><input type="checkbox" name="singleUse"${typed && v.singleUse !== 'on' ? '' : html` checked`}> Once: stops after one payment</label>
<fieldset class="group"><legend>Ways to pay</legend>${available.map(
        (method) =>
          html`<label class="check"><input type="checkbox" name="method:${method}"${checked(method) ? html` checked` : ''}> ${methodName(method)}</label>`,
      )}</fieldset>
<div class="actions"><button type="submit">Make the link</button></div></form></section>`
    : ''
}
<section class="card" aria-labelledby="h-links"><h2 id="h-links">Links</h2>${
        list.items.length === 0
          ? empty('No payment link yet.')
          : html`<div class="table-wrap"><table class="stack" id="links">
<thead><tr><th>Made</th><th>Link</th><th>For</th><th class="num">Amount</th><th>Uses</th><th>State</th></tr></thead>
<tbody>${list.items.map(
              (l) => html`<tr data-link="${l.id}">
<td data-label="Made">${jakartaTime(Date.parse(l.createdAt))}</td>
<td data-label="Link" class="ids"><a href="${hrefOf(l.id)}">${l.id}</a></td>
<td data-label="For">${l.description}</td>
<td data-label="Amount" class="num">${amountText(l)}</td>
<td data-label="Uses">${l.singleUse ? 'once' : 'many'}</td>
<td data-label="State" class="status">${stateBadge(l.state)}</td></tr>`,
            )}</tbody></table></div>`
      }</section>`,
      typed ? 400 : 200,
    );
  }

  p.get('/links', { config }, (request, reply) => listPage(request, reply));

  p.post('/links', { config }, async (request, reply) => {
    const fields = formOf(request);
    const merchantId = pages.sessionOf(request).merchant.id;
    const available = await links.methodsAvailable();
    const days = Number(fields.expiresInDays ?? 0);
    const input: Record<string, unknown> = {
      description: fields.description ?? '',
      singleUse: fields.singleUse === 'on',
      methods: available.filter((m) => fields[`method:${m}`] === 'on'),
    };
    for (const field of ['amount', 'minAmount', 'maxAmount'] as const) {
      const money = moneyTyped(fields[field]);
      if (money !== undefined) input[field] = money;
    }
    if (EXPIRIES.some(([d]) => d === days) && days > 0) {
      input.expiresAt = new Date(clock.now() + days * 86_400_000).toISOString();
    }
    let made: PaymentLinkView;
    try {
      made = await links.create(merchantId, input);
    } catch (e) {
      if (!(e instanceof DomainError) || e.kind !== 'invalid') throw e;
      const problems = (e.problems ?? [e.message]).map((x) =>
        x.startsWith('methods:')
          ? 'Ways to pay: choose at least one.'
          : x.replace(/\{"value".*\}$/, 'an amount such as 85000'),
      );
      await auditRefusedForm(
        pages.deps.audit,
        request,
        pages.callerOf(request),
        { status: 400, action: ACTION, target: merchantId },
        problems,
      );
      return listPage(request, reply, { fields, problems });
    }
    await pages.audit(request, { action: ACTION, target: made.id, httpStatus: 303, fields, after: made });
    return pages.done(request, reply, hrefOf(made.id), 'The link is made: copy it and send it to your payer.');
  });

  p.get<{ Params: { id: string } }>('/links/:id', { config }, async (request, reply) => {
    const l = await links.get(pages.sessionOf(request).merchant.id, request.params.id);
    const canChange = pages.mayPost(request, `${hrefOf(l.id)}/deactivate`);
    return pages.page(
      request,
      reply,
      `Payment link ${l.id}`,
      'links',
      html`<h1>${l.description}</h1>
<section class="card" aria-labelledby="h-link"><h2 id="h-link">Link</h2>
${secretField('link-url', 'Send this address', l.url)}
<dl class="kv" id="link-summary">
<dt>State</dt><dd>${stateBadge(l.state)}</dd>
<dt>Amount</dt><dd>${amountText(l)}</dd>
<dt>Uses</dt><dd>${l.singleUse ? 'once: it stops after one payment' : 'many'}</dd>
<dt>Takes payments until</dt><dd>${l.expiresAt === null ? 'deactivated' : jakartaTime(Date.parse(l.expiresAt))}</dd>
<dt>Ways to pay</dt><dd>${l.methods.map(methodName).join(', ')}</dd>
<dt>Made</dt><dd>${jakartaTime(Date.parse(l.createdAt))}</dd>
</dl>
${
  canChange && l.active
    ? html`<form method="post" action="${hrefOf(l.id)}/deactivate" data-confirm="Deactivate this link? It takes no payment any more.">${csrfField(pages.sessionOf(request).csrf)}<button type="submit" class="danger" id="deactivate">Deactivate</button></form>`
    : ''
}</section>
<section class="card" aria-labelledby="h-payments"><h2 id="h-payments">Payments</h2>${
        l.payments.length === 0
          ? empty('No payment through this link yet.')
          : html`<div class="table-wrap"><table class="stack" id="link-payments">
<thead><tr><th>Made</th><th>Reference</th><th>Method</th><th class="num">Amount</th><th>Status</th></tr></thead>
<tbody>${l.payments.map(
              (x) => html`<tr>
<td data-label="Made">${jakartaTime(Date.parse(x.createdAt))}</td>
<td data-label="Reference" class="ids"><a href="${pages.base}/transactions/${encodeURIComponent(x.referenceNo)}">${x.referenceNo}</a></td>
<td data-label="Method">${x.method}</td>
<td data-label="Amount" class="num">${rupiah(x.amount?.value)}</td>
<td data-label="Status" class="status">${badge(`s-${x.status}`, statusName(x.status))}</td></tr>`,
            )}</tbody></table></div>`
      }</section>`,
    );
  });

  p.post<{ Params: { id: string } }>('/links/:id/deactivate', { config }, async (request, reply) => {
    const merchantId = pages.sessionOf(request).merchant.id;
    const l = await links.get(merchantId, request.params.id);
    if (!l.active) {
      return pages.refused(request, reply, hrefOf(l.id), 'The link is inactive already.', {
        status: 409,
        action: 'dashboard: deactivate payment link',
        target: l.id,
      });
    }
    await links.deactivate(merchantId, l.id, request.id);
    await pages.audit(request, { action: 'dashboard: deactivate payment link', target: l.id, httpStatus: 303 });
    return pages.done(request, reply, hrefOf(l.id), 'The link is deactivated: it takes no payment any more.');
  });
}

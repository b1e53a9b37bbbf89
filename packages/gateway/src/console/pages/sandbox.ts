import { randomInt } from 'node:crypto';
import type { TransactionStatus } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MerchantRecord } from '../../merchants/merchant-service.ts';
import { assertNever, methodOfTxn } from '../../methods/index.ts';
import type { TransactionRecord } from '../../payments/transaction-reads.ts';
import type { SandboxPayer } from '../../providers/sandbox-providers.ts';
import {
  blockedReason,
  isRefusal,
  notOfferedText,
  refusalStatus,
  refusalText,
  type SandboxVerb,
  sandboxOffers,
  sandboxServes,
  VERB_STATUS,
  vaAmountRefusal,
} from '../../providers/sandbox-rules.ts';
import { type Html, html } from '../../web/html.ts';
import { blank, ConsoleError, formOf, PAGE, type Refusal } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { csrfField, transactionTable } from '../views.ts';

const txnHref = (referenceNo: string) => `/console/transactions/${encodeURIComponent(referenceNo)}`;

const payerOf = (fields: Record<string, string>) => ({
  payerName: blank(fields.payerName)?.slice(0, 100) ?? 'SANDBOX PAYER',
  payerIssuer: '93600009',
  payerRefId: String(100_000_000_000 + randomInt(900_000_000_000)),
});

const VERBS: Record<string, SandboxVerb> = { '00': 'pay', '01': 'pend', '06': 'fail' };
const DONE: Record<SandboxVerb, string> = { pay: 'paid', pend: 'pending', fail: 'failed' };

/** What the sandbox may do to a transaction now, for its page and for a form posted from it. */
export async function sandboxState(pages: OperatorPages, t: TransactionRecord, merchant?: MerchantRecord) {
  const { merchants, providers, clock } = pages.deps;
  const [m, list] = await Promise.all([merchant ?? merchants.find(t.merchantId), providers.list({ limit: 500 })]);
  const serves = sandboxServes(t, m, list.items);
  return { serves, offers: sandboxOffers(t, clock.now(), serves) };
}

/**
 * Sandbox mode: the open transactions, and paying, pending or failing one as the sandbox acquirer
 * (QRIS), bank (VA) or wallet's payer (e-wallet) would, through the provider API. A form redirects back to the transaction's
 * page (Post/Redirect/Get): done, or refused with why in plain words.
 */
export function sandboxPages(op: FastifyInstance, pages: OperatorPages, payer: SandboxPayer): void {
  const { clock, merchants, transactions, qris } = pages.deps;

  op.get('/sandbox', { config }, async (request, reply) => {
    const caller = pages.callerOf(request);
    const [open, all] = await Promise.all([
      Promise.all(
        (['01', '02', '03'] as TransactionStatus[]).map((status) => transactions.search(caller, { status }, PAGE, 0)),
      ),
      merchants.all(),
    ]);
    const rows = open.flat().sort((a, b) => b.createdAt - a.createdAt);
    return pages.page(
      request,
      reply,
      'Sandbox',
      'sandbox',
      html`<h1>Sandbox</h1><p>Open transactions (Initiated, Paying or Pending): open one to pay, pend or fail it as the sandbox acquirer (QRIS), bank (VA) or wallet (e-wallet) would, through the provider API.</p>
${transactionTable(rows, '/console', { names: new Map(all.map((m) => [m.id, m.name])) })}`,
    );
  });

  /**
   * One sandbox action on a transaction: refused in words, on its page, when the gateway would not
   * take it (a page left open while it was paid elsewhere: 409), when what was typed cannot be
   * tried (`check`: 400), or when the provider path refuses it.
   */
  async function act(
    request: FastifyRequest,
    reply: FastifyReply,
    verb: SandboxVerb,
    run: (t: TransactionRecord) => Promise<TransactionRecord | undefined>,
    options: { amount?: string; check?: (t: TransactionRecord) => string | undefined } = {},
  ): Promise<FastifyReply> {
    const caller = pages.callerOf(request);
    const fields = formOf(request);
    const t = (await transactions.detail(caller, (request.params as { referenceNo: string }).referenceNo)).transaction;
    const action = `console: sandbox ${t.kind} ${verb}`;
    const back = txnHref(t.referenceNo);
    const refuse = (why: string, status: Refusal['status'] = 409) =>
      pages.refused(request, reply, back, why, { status, action, target: t.referenceNo });
    const { serves, offers } = await sandboxState(pages, t);
    if (!offers[verb]) return refuse(notOfferedText(t, verb, clock.now(), serves));
    const typed = options.check?.(t);
    if (typed) return refuse(typed, 400);
    let after: TransactionRecord | undefined;
    try {
      after = await run(t);
    } catch (e) {
      if (!isRefusal(e)) throw e;
      const now = await transactions.detail(caller, t.referenceNo).then(
        (d) => d.transaction,
        () => t,
      );
      return refuse(refusalText(now, e, clock.now(), options.amount), refusalStatus(e));
    }
    if (!after) return refuse(notOfferedText(t, verb, clock.now(), serves));
    await pages.audit(request, {
      action,
      target: t.virtualAccountNo ?? t.referenceNo,
      httpStatus: 200,
      fields,
      after: { referenceNo: after.referenceNo, status: after.status },
    });
    return reply.redirect(`${back}?ok=${DONE[verb]}`, 303);
  }

  op.post<{ Params: { referenceNo: string } }>('/sandbox/qris/:referenceNo', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/sandbox/qris/:referenceNo/pay');
    const fields = formOf(request);
    const verb = VERBS[fields.status ?? ''];
    if (!verb) throw new ConsoleError(400, 'status must be 00, 01 or 06');
    return act(request, reply, verb, async (t) => {
      if (t.kind !== 'qris') return undefined;
      if (verb === 'pend') return qris.renotify({ referenceNo: t.referenceNo }, clock.now(), request.id);
      return payer.payQris(
        { referenceNo: t.referenceNo },
        { status: VERB_STATUS[verb], payer: payerOf(fields), requestId: request.id },
      );
    });
  });

  op.post<{ Params: { referenceNo: string } }>('/sandbox/ewallet/:referenceNo', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/sandbox/ewallet/:referenceNo/pay');
    const fields = formOf(request);
    const verb = VERBS[fields.status ?? ''];
    if (verb !== 'pay' && verb !== 'fail') throw new ConsoleError(400, 'status must be 00 or 06');
    return act(request, reply, verb, async (t) =>
      t.kind !== 'ewallet'
        ? undefined
        : payer.payEwallet(t.referenceNo, {
            status: verb === 'pay' ? '00' : '06',
            payer: payerOf(fields),
            requestId: request.id,
          }),
    );
  });

  op.post<{ Params: { referenceNo: string } }>('/sandbox/va/:referenceNo', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/sandbox/va/:virtualAccountNo/pay');
    const fields = formOf(request);
    const amount = blank(fields.amount);
    return act(
      request,
      reply,
      'pay',
      async (t) =>
        t.kind !== 'va' || t.virtualAccountNo === null
          ? undefined
          : payer.payVa(t.virtualAccountNo, {
              ...(amount ? { amount } : {}),
              payer: payerOf(fields),
              requestId: request.id,
            }),
      { amount, check: (t) => vaAmountRefusal(t, amount) },
    );
  });
}

/**
 * The sandbox actions on a transaction's page: only those the gateway would take now (nothing on
 * a paid, failed or expired one), or why there are none.
 */
export function sandboxActions(
  t: TransactionRecord,
  csrf: string,
  state: { serves: boolean; offers: Record<SandboxVerb, boolean> },
  now: number,
): Html {
  const { offers } = state;
  const section = (lead: string, body: Html | string) =>
    html`<section class="card" aria-labelledby="h-sandbox" id="sandbox"><h2 id="h-sandbox">Sandbox</h2>
<p class="muted">${lead}</p>${body}</section>`;
  if (!offers.pay && !offers.pend && !offers.fail) {
    return section(
      `Nothing to do as the ${methodOfTxn(t).provider.sandboxName}.`,
      html`<p id="sandbox-none">${blockedReason(t, now, state.serves) ?? 'The gateway would take no sandbox action on it now'}.</p>`,
    );
  }
  switch (t.kind) {
    case 'qris':
      return qrisSandboxForms(t, offers, csrf, section);
    case 'va':
      return vaSandboxForm(t, csrf, section);
    case 'ewallet':
      return ewalletSandboxForms(t, offers, csrf, section);
    default:
      return assertNever(t, 'payment method');
  }
}

/** The sandbox card around what it offers. */
type Section = (lead: string, body: Html | string) => Html;

/** One form per status the sandbox may report, each its own button posting to `/console/sandbox/<method>/<ref>`. */
function statusForms(
  t: TransactionRecord,
  method: 'qris' | 'ewallet',
  buttons: ReadonlyArray<{ offered: boolean; status: string; label: string; cls?: string }>,
  csrf: string,
): Html {
  const form = (status: string, label: string, cls = '') =>
    html`<form method="post" action="/console/sandbox/${method}/${encodeURIComponent(t.referenceNo)}" class="inline">${csrfField(csrf)}<input type="hidden" name="status" value="${status}"><button type="submit" class="${cls}">${label}</button></form>`;
  return html`<div class="actions">${buttons.map((b) => (b.offered ? form(b.status, b.label, b.cls) : ''))}</div>`;
}

/** As the sandbox acquirer: pay, pend again or fail, each what a real acquirer's notify would say. */
function qrisSandboxForms(
  t: TransactionRecord,
  offers: Record<SandboxVerb, boolean>,
  csrf: string,
  section: Section,
): Html {
  return section(
    'Act as the sandbox acquirer: the report goes through the provider API like a real one.',
    statusForms(
      t,
      'qris',
      [
        { offered: offers.pay, status: '00', label: 'Pay (00)' },
        { offered: offers.pend, status: '01', label: 'Pend (01, notify again)', cls: 'secondary' },
        { offered: offers.fail, status: '06', label: 'Fail (06)', cls: 'danger' },
      ],
      csrf,
    ),
  );
}

/** As the sandbox wallet: the payer approves or declines, told at the wallet's notify door. */
function ewalletSandboxForms(
  t: TransactionRecord,
  offers: Record<SandboxVerb, boolean>,
  csrf: string,
  section: Section,
): Html {
  return section(
    'Act as the sandbox wallet’s payer: the answer goes through the wallet’s notify door like a real one.',
    statusForms(
      t,
      'ewallet',
      [
        { offered: offers.pay, status: '00', label: 'Approve (00)' },
        { offered: offers.fail, status: '06', label: 'Decline (06)', cls: 'danger' },
      ],
      csrf,
    ),
  );
}

/** As the sandbox bank: an inquiry then a payment flag, for the bill or an amount typed. */
function vaSandboxForm(t: TransactionRecord, csrf: string, section: Section): Html {
  // An open-amount VA has no bill (the gateway's inquiry answers 0.00, which is no payment): the
  // amount is the payer's to choose, so it is asked for.
  const amount =
    t.amount === null
      ? html`<label>Amount (any, above 0.00)<input name="amount" inputmode="decimal" required></label>`
      : html`<label>Amount (empty: the bill)<input name="amount" inputmode="decimal" placeholder="${t.amount}"></label>`;
  return section(
    'Act as the sandbox bank: inquiry then payment, through the provider API.',
    html`<form method="post" action="/console/sandbox/va/${encodeURIComponent(t.referenceNo)}" class="filters">${csrfField(csrf)}
${amount}
<button type="submit">Pay VA</button></form>`,
  );
}

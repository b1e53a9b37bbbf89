import { fromMinorUnits, isMoneyValue, toMinorUnits } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TransactionRecord } from '../../payments/transaction-reads.ts';
import { rupiah, statusName } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { auditRefusedForm, blank, formOf } from '../kit.ts';
import { config } from '../operator.ts';
import {
  named,
  newOnce,
  onceOf,
  refundAsMerchant,
  refundDoorOf,
  refusalOf,
  remainingOf,
  reread,
  stateText,
} from '../payment-actions.ts';
import { csrfField, formProblems } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';
import type { ShowMerchantTransaction, TransactionExtras, TypedRefund } from './transactions.ts';

// A refund from the merchant dashboard (docs/merchant-users.md#the-dashboard), by an owner or a
// finance user: the amount typed (never filled in), then a page that says what will happen and
// asks to confirm, then the merchant's own refund call of the payment's method (as the payment
// API's refund would: the same rules, the same idempotency, the same callback).

const DEFAULT_REASON = 'refunded from the merchant dashboard';
const ACTION = 'dashboard: refund';
const txnPath = (base: string, referenceNo: string) => `${base}/transactions/${encodeURIComponent(referenceNo)}`;

/** What was typed, checked before anything is asked of the payment service: the problems, or none. */
function problemsOf(t: TransactionRecord, fields: Record<string, string>): string[] {
  const amount = (fields.refundAmount ?? '').trim();
  const problems: string[] = [];
  const remaining = remainingOf(t);
  if (!isMoneyValue(amount) || toMinorUnits(amount) <= 0n) {
    problems.push(
      'Amount: write it like 5000.00 (digits, a dot, two decimals, no thousands separator), more than 0.00.',
    );
  } else if (toMinorUnits(amount) > remaining) {
    problems.push(
      `Amount: ${rupiah(amount)} is more than what remains to refund, ${rupiah(fromMinorUnits(remaining))}.`,
    );
  }
  if ((fields.reason ?? '').length > 256) problems.push('Reason: at most 256 characters.');
  return problems;
}

/** The transaction's refund card on the dashboard: the form where the user may refund, else who may. */
export function refundCard(pages: PortalPages): TransactionExtras {
  return (request, t, typed) => {
    const action = `${txnPath(pages.base, t.referenceNo)}/refund`;
    if (!refundDoorOf(pages.deps, t) || t.status !== '00' || remainingOf(t) <= 0n) return html``;
    const section = (body: Html) =>
      html`<section class="card" id="refund" aria-labelledby="h-refund"><h2 id="h-refund">Refund</h2>${body}</section>`;
    if (!pages.mayPost(request, action)) {
      return section(
        html`<p class="muted" id="refund-not-yours">An owner or a finance user of your merchant refunds a payment.</p>`,
      );
    }
    const values = typed?.fields ?? {};
    const remaining = fromMinorUnits(remainingOf(t));
    return section(html`${typed ? formProblems('Nothing was refunded:', typed.problems) : ''}
<form method="post" action="${action}" id="refund-form" class="form-grid">${csrfField(pages.sessionOf(request).csrf)}
<input type="hidden" name="_once" value="${values._once ?? newOnce()}">
<label>Amount to refund<input name="refundAmount" inputmode="decimal" autocomplete="off" placeholder="like 5000.00" value="${values.refundAmount ?? ''}" required></label>
<label>Reason (optional)<input name="reason" maxlength="256" value="${values.reason ?? ''}" placeholder="${DEFAULT_REASON}"></label>
<p class="muted">At most ${rupiah(remaining)} remains refundable (paid ${rupiah(t.paidAmount ?? t.amount)}, refunded ${rupiah(t.refundedAmount)}). The fee is not returned. You confirm on the next page.</p>
<div class="actions"><button type="submit">Continue</button></div>
</form>`);
  };
}

/** The refund's two posts: the typed amount (then the confirmation page), and the confirmation. */
export function refundPages(p: FastifyInstance, pages: PortalPages, show: ShowMerchantTransaction): void {
  const { transactions } = pages.deps;

  /** The transaction as the user's caller reads it (another merchant's is not found), and the typed form. */
  async function read(request: FastifyRequest, referenceNo: string) {
    const t = (await transactions.detail(pages.callerOf(request), referenceNo)).transaction;
    const fields = formOf(request);
    return { t, fields, back: txnPath(pages.base, t.referenceNo) };
  }

  /** A refund the transaction's state does not allow now: said on its page (409). */
  const refusedForState = (request: FastifyRequest, reply: FastifyReply, t: TransactionRecord, text: string) =>
    pages.refused(request, reply, txnPath(pages.base, t.referenceNo), text, {
      status: 409,
      action: ACTION,
      target: t.referenceNo,
    });

  /** The form again as typed, with its problems (400), audited as refused. */
  async function again(
    request: FastifyRequest,
    reply: FastifyReply,
    t: TransactionRecord,
    typed: TypedRefund,
  ): Promise<FastifyReply> {
    await auditRefusedForm(
      pages.deps.audit,
      request,
      pages.callerOf(request),
      { status: 400, action: ACTION, target: t.referenceNo },
      typed.problems,
    );
    return show(request, reply, t.referenceNo, typed, 400);
  }

  const refundable = (t: TransactionRecord) =>
    refundDoorOf(pages.deps, t) !== undefined && t.status === '00' && remainingOf(t) > 0n;

  p.post<{ Params: { referenceNo: string } }>(
    '/transactions/:referenceNo/refund',
    { config },
    async (request, reply) => {
      const { t, fields, back } = await read(request, request.params.referenceNo);
      if (!refundable(t)) return refusedForState(request, reply, t, stateText(t, 'refund'));
      const once = onceOf(fields);
      const problems = problemsOf(t, fields);
      if (problems.length > 0) return again(request, reply, t, { fields: { ...fields, _once: once }, problems });
      const amount = (fields.refundAmount ?? '').trim();
      const reason = blank(fields.reason) ?? '';
      const after = fromMinorUnits(remainingOf(t) - toMinorUnits(amount));
      const { csrf } = pages.sessionOf(request);
      return pages.page(
        request,
        reply,
        'Confirm the refund',
        'transactions',
        html`<h1>Refund ${rupiah(amount)}?</h1>
<section class="card" id="refund-confirm" aria-labelledby="h-confirm"><h2 id="h-confirm">${named(t)}</h2>
<dl class="kv">
<dt>Refund</dt><dd id="confirm-amount"><strong>${rupiah(amount)}</strong></dd>
<dt>Paid</dt><dd>${rupiah(t.paidAmount ?? t.amount)}</dd>
<dt>Refunded before</dt><dd>${rupiah(t.refundedAmount)}</dd>
<dt>Refundable after this</dt><dd id="confirm-after">${rupiah(after)}</dd>
<dt>Reason</dt><dd>${reason || DEFAULT_REASON}</dd>
</dl>
<p>The money goes back to the payer, and a refund cannot be undone. The fee is not returned. Your callback URL is told of the refund.</p>
<form method="post" action="${back}/refund/confirm" class="actions">${csrfField(csrf)}
<input type="hidden" name="_once" value="${once}"><input type="hidden" name="refundAmount" value="${amount}"><input type="hidden" name="reason" value="${reason}">
<button type="submit" class="danger" id="confirm-refund">Refund ${rupiah(amount)}</button> <a class="button secondary" href="${back}">Back</a>
</form></section>`,
      );
    },
  );

  p.post<{ Params: { referenceNo: string } }>(
    '/transactions/:referenceNo/refund/confirm',
    { config },
    async (request, reply) => {
      const { t, fields, back } = await read(request, request.params.referenceNo);
      const door = refundDoorOf(pages.deps, t);
      if (!door) return refusedForState(request, reply, t, stateText(t, 'refund'));
      const once = onceOf(fields);
      const partnerRefundNo = `DASHBOARD-${once.toUpperCase()}`;
      // The same confirmation sent again (a double click, a resend): it refunded once, and says so.
      const earlier = await transactions.refundOf(pages.callerOf(request), t.merchantId, partnerRefundNo);
      if (earlier) {
        return refusedForState(
          request,
          reply,
          t,
          `This refund was made already: refund ${earlier.refundNo} of ${rupiah(earlier.amount)}. Nothing more was refunded.`,
        );
      }
      const typed = { fields: { ...fields, _once: once }, problems: problemsOf(t, fields) };
      // Checked again: the state may have moved since the confirmation page (another refund, say).
      if (t.status === '00' && typed.problems.length > 0) return again(request, reply, t, typed);
      const refundAmount = (fields.refundAmount ?? '').trim();
      let answer: Record<string, unknown>;
      try {
        answer = await refundAsMerchant(
          pages.deps,
          'dashboard',
          request,
          t,
          door,
          { partnerRefundNo, refundAmount, reason: blank(fields.reason) ?? DEFAULT_REASON },
          once,
        );
      } catch (e) {
        const now = await reread(transactions, pages.callerOf(request), t);
        const r = refusalOf(e, now, 'refund', { refundAmount, partnerRefundNo });
        if (r.typed) return again(request, reply, now, { ...typed, problems: [r.text] });
        return refusedForState(request, reply, now, r.text);
      }
      const after = (await transactions.detail(pages.callerOf(request), t.referenceNo)).transaction;
      await pages.audit(request, {
        action: ACTION,
        target: t.referenceNo,
        httpStatus: 303,
        fields,
        before: { status: t.status, refundedAmount: t.refundedAmount },
        after: { status: after.status, refundNo: answer.refundNo, partnerRefundNo, refundAmount },
      });
      const left = remainingOf(after);
      const what = `Refunded ${rupiah(refundAmount)} of ${named(t)} (refund ${String(answer.refundNo)}).`;
      return pages.done(
        request,
        reply,
        back,
        left > 0n
          ? `${what} ${rupiah(fromMinorUnits(left))} remains refundable. Your callback URL is told of the refund.`
          : `${what} The whole amount is back: the payment is ${statusName(after.status)}. Your callback URL is told of the refund.`,
      );
    },
  );
}

import { fromMinorUnits, SERVICE } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertNever, methodOfTxn } from '../../methods/index.ts';
import { isDue } from '../../payments/expiry.ts';
import type { TransactionRecord } from '../../payments/transaction-reads.ts';
import { rupiah, statusName } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { blank, formOf } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import {
  callAsMerchant,
  named,
  newOnce,
  onceOf,
  refundAsMerchant,
  refundDoorOf,
  refusalOf,
  remainingOf,
  reread as rereadAs,
  stateText,
} from '../payment-actions.ts';
import { csrfField, formProblems } from '../views.ts';

// Refund and cancel from a transaction's page, as its merchant would through the payment API:
// the same services (payments/qris-service.ts cancel and refund, payments/va-service.ts remove),
// the same field rules, stored with an idempotency record in the same database transaction, and
// notified to the merchant where the API notifies. Offered only where the status machine allows;
// a refusal says why in words.

/** The admin API route whose scope (operate) refund and cancel need, as replaying does. */
export const ACT_ROUTE = '/admin/v1/notifications/:id/replay';

/** A refund or cancel form refused for what was typed: shown again (400) with its problems. */
export interface TypedForm {
  form: 'refund' | 'cancel';
  fields: Record<string, string>;
  problems: string[];
}

/** Shows the transaction's page again, with a refused form as it was typed (transactions.ts). */
export type ShowTransaction = (
  request: FastifyRequest,
  reply: FastifyReply,
  referenceNo: string,
  typed?: TypedForm,
  status?: number,
) => Promise<FastifyReply>;

const txnHref = (referenceNo: string) => `/console/transactions/${encodeURIComponent(referenceNo)}`;
const DEFAULT_REFUND_REASON = 'refunded by the gateway operator';
const DEFAULT_CANCEL_REASON = 'cancelled by the gateway operator';
/** A VA delete carries no reason (SNAP's delete-va has none): its history says who deleted it. */
const VA_DELETED_BY_OPERATOR = 'deleted by the gateway operator';

/** Which of refund and cancel the payment services would take now. */
export function actionsOffered(t: TransactionRecord, now: number): { refund: boolean; cancel: boolean } {
  const open = t.status === '01' && !isDue(t, now);
  return {
    refund: methodOfTxn(t).refundable && t.status === '00' && remainingOf(t) > 0n,
    cancel: open && methodOfTxn(t).reachable(t),
  };
}

/** Refund and cancel on a transaction's page (POST, then back to the page: Post/Redirect/Get). */
export function transactionActionPages(op: FastifyInstance, pages: OperatorPages, show: ShowTransaction): void {
  const { transactions, va } = pages.deps;

  /**
   * A refund or a cancel refused: for the state of the transaction (409), said on its page; for what
   * was typed (400), the form again, as typed, with the problem. Audited as refused either way.
   */
  async function refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    t: TransactionRecord,
    form: 'refund' | 'cancel',
    fields: Record<string, string>,
    once: string,
    r: { typed: boolean; text: string },
  ): Promise<FastifyReply> {
    const action = `console: ${form}`;
    if (!r.typed) {
      return pages.refused(request, reply, txnHref(t.referenceNo), r.text, {
        status: 409,
        action,
        target: t.referenceNo,
      });
    }
    await pages.refusedForm(request, { action, target: t.referenceNo, status: 400 }, [r.text]);
    const again = { form, fields: { ...fields, _once: once }, problems: [r.text] };
    return show(request, reply, t.referenceNo, again, 400);
  }

  const reread = (request: FastifyRequest, t: TransactionRecord) => rereadAs(transactions, pages.callerOf(request), t);

  op.post<{ Params: { referenceNo: string } }>(
    '/transactions/:referenceNo/refund',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', ACT_ROUTE);
      const fields = formOf(request);
      const t = (await transactions.detail(pages.callerOf(request), request.params.referenceNo)).transaction;
      const action = 'console: refund';
      const back = txnHref(t.referenceNo);
      const door = refundDoorOf(pages.deps, t);
      if (!door) {
        return pages.refused(request, reply, back, stateText(t, 'refund'), {
          status: 409,
          action,
          target: t.referenceNo,
        });
      }
      const once = onceOf(fields);
      const typedNo = blank(fields.partnerRefundNo);
      const partnerRefundNo = typedNo ?? `CONSOLE-${once.toUpperCase()}`;
      const refundAmount = (fields.refundAmount ?? '').trim();
      let answer: Record<string, unknown>;
      try {
        answer = await refundAsMerchant(
          pages.deps,
          'console',
          request,
          t,
          door,
          { partnerRefundNo, refundAmount, reason: blank(fields.reason) ?? DEFAULT_REFUND_REASON },
          once,
        );
      } catch (e) {
        const now = await reread(request, t);
        const r = refusalOf(e, now, 'refund', { refundAmount, partnerRefundNo, isNumberTyped: typedNo !== undefined });
        return refuse(request, reply, t, 'refund', fields, once, r);
      }
      const after = await reread(request, t);
      await pages.audit(request, {
        action,
        target: t.referenceNo,
        httpStatus: 200,
        fields,
        before: { status: t.status, amount: t.amount, refundedAmount: t.refundedAmount },
        after: {
          status: after.status,
          refundNo: answer.refundNo,
          partnerRefundNo,
          refundAmount,
          refundedAmount: after.refundedAmount,
        },
      });
      const left = remainingOf(after);
      const what = `Refunded ${rupiah(refundAmount)} of ${named(t)} (refund ${String(answer.refundNo)}, partnerRefundNo ${partnerRefundNo})`;
      return pages.done(
        request,
        reply,
        back,
        left > 0n
          ? `${what}. ${rupiah(fromMinorUnits(left))} remains refundable; its merchant is notified.`
          : `${what}: the whole amount is back, the QRIS is ${statusName(after.status)} and its merchant is notified.`,
      );
    },
  );

  op.post<{ Params: { referenceNo: string } }>(
    '/transactions/:referenceNo/cancel',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', ACT_ROUTE);
      const fields = formOf(request);
      const t = (await transactions.detail(pages.callerOf(request), request.params.referenceNo)).transaction;
      const action = 'console: cancel';
      const back = txnHref(t.referenceNo);
      const once = onceOf(fields);
      try {
        switch (t.kind) {
          case 'qris':
            await callAsMerchant(
              pages.deps,
              'console',
              request,
              t,
              SERVICE.qrisCancel,
              { originalReferenceNo: t.referenceNo, reason: blank(fields.reason) ?? DEFAULT_CANCEL_REASON },
              once,
              (ctx, recordFor) => pages.deps.qris.cancel(ctx, recordFor),
            );
            break;
          case 'va':
            if (t.virtualAccountNo === null) throw new TypeError(`VA ${t.referenceNo} has no number`);
            await callAsMerchant(
              pages.deps,
              'console',
              request,
              t,
              SERVICE.vaDelete,
              { virtualAccountNo: t.virtualAccountNo, trxId: t.partnerReferenceNo },
              once,
              (ctx, recordFor) => va.remove(ctx, recordFor, VA_DELETED_BY_OPERATOR),
            );
            break;
          case 'ewallet':
            await callAsMerchant(
              pages.deps,
              'console',
              request,
              t,
              SERVICE.debitCancel,
              {
                originalPartnerReferenceNo: t.partnerReferenceNo,
                originalReferenceNo: t.referenceNo,
                reason: blank(fields.reason) ?? DEFAULT_CANCEL_REASON,
              },
              once,
              (ctx, recordFor) => pages.deps.ewallet.cancel(ctx, recordFor),
            );
            break;
          default:
            assertNever(t, 'payment method');
        }
      } catch (e) {
        return refuse(request, reply, t, 'cancel', fields, once, refusalOf(e, await reread(request, t), 'cancel', {}));
      }
      const after = await reread(request, t);
      await pages.audit(request, {
        action,
        target: t.referenceNo,
        httpStatus: 200,
        fields,
        before: { status: t.status, amount: t.amount },
        after: { status: after.status, statusDesc: after.statusDesc, amount: after.amount },
      });
      return pages.done(
        request,
        reply,
        back,
        `${named(t)} is ${methodOfTxn(t).cancelled} (${statusName(after.status)}): ${
          methodOfTxn(t).isNotified('05')
            ? 'it can no longer be paid, and its merchant is notified.'
            : 'it takes no payment any more.'
        }`,
      );
    },
  );
}

/**
 * Refund and cancel on a transaction's page, only where the payment services would take them now;
 * a form refused for what was typed comes back as typed with its problems.
 */
export function transactionActions(t: TransactionRecord, csrf: string, now: number, typed?: TypedForm): Html {
  const offered = actionsOffered(t, now);
  const section = (body: Html) =>
    html`<section class="card" id="payment-actions" aria-labelledby="h-actions"><h2 id="h-actions">Refund or cancel</h2>${body}</section>`;
  if (!offered.refund && !offered.cancel) {
    return section(html`<p class="muted" id="actions-none">${noActionText(t, now)}</p>`);
  }
  const values = typed?.fields ?? {};
  const problems = (form: TypedForm['form'], what: string) =>
    typed?.form === form ? formProblems(what, typed.problems) : '';
  const onceField = (form: TypedForm['form']) =>
    html`<input type="hidden" name="_once" value="${typed?.form === form ? (values._once ?? newOnce()) : newOnce()}">`;
  const typedValue = (form: TypedForm['form'], name: string, fallback = '') =>
    typed?.form === form ? (values[name] ?? '') : fallback;
  if (offered.refund) {
    const remaining = fromMinorUnits(remainingOf(t));
    return section(html`${problems('refund', 'Nothing was refunded:')}
<form method="post" action="${txnHref(t.referenceNo)}/refund" id="refund-form" class="form-grid">${csrfField(csrf)}${onceField('refund')}
<label>Amount to refund (refundAmount)<input name="refundAmount" inputmode="decimal" value="${typedValue('refund', 'refundAmount', remaining)}"></label>
<label>Refund number (partnerRefundNo; empty: the console makes one)<input name="partnerRefundNo" value="${typedValue('refund', 'partnerRefundNo')}"></label>
<label>Reason<input name="reason" value="${typedValue('refund', 'reason')}" placeholder="${DEFAULT_REFUND_REASON}"></label>
<p class="muted">At most ${rupiah(remaining)} remains refundable (paid ${rupiah(t.paidAmount ?? t.amount)}, refunded ${rupiah(t.refundedAmount)}). The fee is not returned. Every refund notifies its merchant; refunding the whole amount makes it 04 Refunded.</p>
<div class="actions"><button type="submit" class="danger" data-confirm="Refund this amount of ${named(t)}? The money goes back to the payer.">Refund</button></div>
</form>`);
  }
  const c = cancelWords(t);
  return section(html`${problems('cancel', 'Nothing was cancelled:')}
<form method="post" action="${txnHref(t.referenceNo)}/cancel" id="cancel-form" class="filters">${csrfField(csrf)}${onceField('cancel')}
${c.takesReason ? html`<label>Reason<input name="reason" value="${typedValue('cancel', 'reason')}" placeholder="${DEFAULT_CANCEL_REASON}"></label>` : ''}
<button type="submit" class="danger" data-confirm="${c.confirm}">${c.button}</button></form>
<p class="muted">${c.note}</p>`);
}

/** The cancel form's words: as the merchant's own cancel call of its method would do it. */
function cancelWords(t: TransactionRecord): { takesReason: boolean; confirm: string; button: string; note: string } {
  switch (t.kind) {
    case 'qris':
      return {
        takesReason: true,
        confirm: `Cancel QRIS ${t.referenceNo}? It can no longer be paid.`,
        button: 'Cancel QRIS (05)',
        note: 'As the merchant’s qr-mpm-cancel would: the QRIS becomes 05 Canceled and its merchant is notified.',
      };
    case 'va':
      return {
        takesReason: false,
        confirm: `Delete the VA ${(t.virtualAccountNo ?? '').trim()}? It takes no payment any more.`,
        button: 'Delete VA (05)',
        note: 'As the merchant’s delete-va would: the VA becomes 05 Canceled (Deleted) and takes no payment any more; a VA is notified only when paid.',
      };
    case 'ewallet':
      return {
        takesReason: true,
        confirm: `Cancel the ${t.details.payOption} payment ${t.referenceNo}? The payer can no longer approve it.`,
        button: 'Cancel payment (05)',
        note: 'As the merchant’s debit/cancel would: the payment becomes 05 Canceled and its merchant is notified.',
      };
    default:
      return assertNever(t, 'payment method');
  }
}

/** Why neither refund nor cancel is offered, as a sentence. */
function noActionText(t: TransactionRecord, now: number): string {
  const name = named(t);
  const nothing = 'there is nothing to refund or cancel';
  switch (t.status) {
    case '00':
      return !methodOfTxn(t).refundable
        ? `${name} is paid: a ${methodOfTxn(t).label.short} is not refunded through snapgate, nor cancelled once paid.`
        : `${name} is refunded in full already: ${nothing}.`;
    case '01':
      return isDue(t, now) ? `${name} has expired: ${nothing}.` : `${name} cannot be cancelled here.`;
    case '02':
    case '03':
      return `${name} is being paid (${statusName(t.status)}): it can no longer be cancelled, and is not paid yet.`;
    case '04':
      return `${name} is refunded in full: there is nothing more to refund or cancel.`;
    case '05':
      return `${name} is ${methodOfTxn(t).cancelled}: ${nothing}.`;
    default:
      return `${name} has ${t.statusDesc === 'Expired' ? 'expired' : 'failed'}: ${nothing}.`;
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { fromMinorUnits, isMoneyValue, isSnapError, jakartaDay, SERVICE, toMinorUnits } from '@snapgate/snap';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertNever, methodOf, methodOfTxn, TRANSACTION_KINDS } from '../../methods/index.ts';
import { isDue } from '../../payments/expiry.ts';
import type { RecordFor, SnapResponse } from '../../payments/idempotency.ts';
import type { MerchantRequest } from '../../payments/snap-request.ts';
import type { TransactionRecord } from '../../payments/transaction-reads.ts';
import { rupiah, statusName } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { blank, formOf } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
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
const named = (t: TransactionRecord) => methodOfTxn(t).named(t);
/** `a QRIS or an e-wallet payment`: the methods refunded through snapgate, as a sentence names them. */
const REFUNDABLE = TRANSACTION_KINDS.filter((k) => methodOf(k).refundable)
  .map((k) => {
    const long = methodOf(k).label.long;
    const word = long === long.toUpperCase() ? long : long.toLowerCase();
    return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
  })
  .join(' or ');
const DEFAULT_REFUND_REASON = 'refunded by the gateway operator';
const DEFAULT_CANCEL_REASON = 'cancelled by the gateway operator';
/** A VA delete carries no reason (SNAP's delete-va has none): its history says who deleted it. */
const VA_DELETED_BY_OPERATOR = 'deleted by the gateway operator';

/** What remains refundable: the amount less what was refunded (an open amount has none). */
const remainingOf = (t: TransactionRecord) =>
  t.amount === null ? 0n : toMinorUnits(t.amount) - toMinorUnits(t.refundedAmount);

/** Which of refund and cancel the payment services would take now. */
export function actionsOffered(t: TransactionRecord, now: number): { refund: boolean; cancel: boolean } {
  const open = t.status === '01' && !isDue(t, now);
  return {
    refund: methodOfTxn(t).refundable && t.status === '00' && remainingOf(t) > 0n,
    cancel: open && methodOfTxn(t).reachable(t),
  };
}

/**
 * A form's one-time number, made when the page is drawn: the idempotency key of what it does, and
 * a refund's partnerRefundNo unless one is typed. The same form sent twice acts once.
 */
const newOnce = () => randomBytes(8).toString('hex');
const onceOf = (fields: Record<string, string>) =>
  /^[0-9a-f]{16}$/.test(fields._once ?? '') ? (fields._once as string) : newOnce();

/**
 * Why the service refused, in words: `typed` when the form should come back as typed (400),
 * otherwise about the transaction's state (409), said on its page.
 */
function refusalOf(
  e: unknown,
  t: TransactionRecord,
  verb: 'refund' | 'cancel',
  typed: { refundAmount?: string; partnerRefundNo?: string; isNumberTyped?: boolean },
): { text: string; typed: boolean } {
  const duplicate =
    (e as Error | undefined)?.name === 'UniqueViolation' ||
    (isSnapError(e) &&
      e.responseCode.startsWith('409') &&
      (e.detail as { duplicate?: string } | undefined)?.duplicate === 'partnerRefundNo');
  if (duplicate) {
    return typed.isNumberTyped
      ? {
          text: `partnerRefundNo: ${typed.partnerRefundNo} already numbers another refund of this merchant: type another, or leave it empty and the console makes one.`,
          typed: true,
        }
      : {
          text: `This refund form was already sent: the refund ${typed.partnerRefundNo} was made once and is not made again.`,
          typed: false,
        };
  }
  if (!isSnapError(e)) throw e;
  const field = /\{([^}]+)\}/.exec(e.responseMessage)?.[1];
  if (e.responseCode.startsWith('400') && field) return { text: fieldProblem(field), typed: true };
  if (/^404\d\d13$/.test(e.responseCode)) {
    const remaining = rupiah(fromMinorUnits(remainingOf(t)));
    const asked = isMoneyValue(typed.refundAmount) ? rupiah(typed.refundAmount) : typed.refundAmount;
    return {
      text: `refundAmount: ${asked} is more than what remains to refund, ${remaining} (paid ${rupiah(t.paidAmount ?? t.amount)}, refunded ${rupiah(t.refundedAmount)}).`,
      typed: true,
    };
  }
  if (e.responseCode.startsWith('405')) return { text: stateText(t, verb), typed: false };
  return {
    text: `${named(t)} was not ${verb === 'refund' ? 'refunded' : 'cancelled'}: ${e.responseMessage} (${e.responseCode}).`,
    typed: false,
  };
}

/** A field's SNAP rule, in words. */
function fieldProblem(field: string): string {
  if (field.startsWith('refundAmount'))
    return 'refundAmount: write the amount like 5000.00 (digits, a dot, two decimals, no thousands separator), more than 0.00.';
  if (field === 'partnerRefundNo') return 'partnerRefundNo: at most 64 characters.';
  if (field === 'reason') return 'reason: at most 256 characters.';
  return `${field}: not accepted by the payment API.`;
}

/** Why the status machine takes no refund or cancel of it now. */
function stateText(t: TransactionRecord, verb: 'refund' | 'cancel'): string {
  const name = named(t);
  const ended = t.statusDesc === 'Expired' ? 'expired' : 'failed';
  if (verb === 'refund') {
    if (!methodOfTxn(t).refundable)
      return `${name} is a ${methodOfTxn(t).label.long.toLowerCase()}: only ${REFUNDABLE} is refunded through snapgate.`;
    switch (t.status) {
      case '04':
        return `${name} is already refunded in full: nothing remains to refund.`;
      case '05':
        return `${name} was cancelled before it was paid: there is nothing to refund.`;
      case '06':
        return `${name} ${ended} unpaid: there is nothing to refund.`;
      case '00':
        return `${name} could not be refunded now: reload its page and try again.`;
      default:
        return `${name} is not paid (${statusName(t.status)}): there is nothing to refund.`;
    }
  }
  const { cancelled: cancel, refundable } = methodOfTxn(t);
  switch (t.status) {
    case '00':
      return `${name} is already paid: it cannot be ${cancel}${refundable ? ' (refund it instead)' : ''}. Nothing was changed.`;
    case '02':
    case '03':
      return `${name} is being paid (${statusName(t.status)}): it can no longer be ${cancel}. Nothing was changed.`;
    case '04':
      return `${name} was refunded: there is nothing to ${verb}.`;
    case '05':
      return `${name} is already ${cancel}: nothing was changed.`;
    case '06':
      return `${name} has ${ended}: there is nothing to ${verb}.`;
    default:
      return `${name} could not be ${cancel} now: reload its page and try again.`;
  }
}

/** Refund and cancel on a transaction's page (POST, then back to the page: Post/Redirect/Get). */
export function transactionActionPages(op: FastifyInstance, pages: OperatorPages, show: ShowTransaction): void {
  const { clock, merchants, transactions, qris, va, ewallet } = pages.deps;

  /** The transaction's payment call, as its merchant: its idempotency key is the form's number. */
  async function call(
    request: FastifyRequest,
    t: TransactionRecord,
    serviceCode: string,
    body: Record<string, unknown>,
    once: string,
    operation: (ctx: MerchantRequest, recordFor: RecordFor) => Promise<SnapResponse>,
  ): Promise<Record<string, unknown>> {
    const merchant = await merchants.find(t.merchantId);
    if (!merchant) throw new TypeError(`transaction ${t.referenceNo} has no merchant ${t.merchantId}`);
    const now = clock.now();
    const ctx: MerchantRequest = {
      merchant,
      body,
      serviceCode,
      // A colon no client's X-EXTERNAL-ID may hold: never one of the merchant's own keys.
      idempotencyKey: { merchantId: merchant.id, day: jakartaDay(now), externalId: `console:${once}` },
      requestHash: createHash('sha256')
        .update(`console:${serviceCode}:${JSON.stringify(body)}`)
        .digest('hex'),
      now,
      requestId: request.id,
    };
    const recordFor: RecordFor = (response) => ({
      ...ctx.idempotencyKey,
      requestHash: ctx.requestHash,
      httpStatus: response.httpStatus,
      responseBody: response.body,
    });
    const r = await operation(ctx, recordFor);
    return JSON.parse(r.body) as Record<string, unknown>;
  }

  /** The merchant's own refund call of the transaction's method; none for a method not refunded. */
  function refundDoorOf(t: TransactionRecord): { serviceCode: string; run: Parameters<typeof call>[5] } | undefined {
    switch (t.kind) {
      case 'qris':
        return { serviceCode: SERVICE.qrisRefund, run: (ctx, recordFor) => qris.refund(ctx, recordFor) };
      case 'va':
        return undefined;
      case 'ewallet':
        return { serviceCode: SERVICE.debitRefund, run: (ctx, recordFor) => ewallet.refund(ctx, recordFor) };
      default:
        return assertNever(t, 'payment method');
    }
  }

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

  const reread = (request: FastifyRequest, t: TransactionRecord) =>
    transactions.detail(pages.callerOf(request), t.referenceNo).then(
      (d) => d.transaction,
      () => t,
    );

  op.post<{ Params: { referenceNo: string } }>(
    '/transactions/:referenceNo/refund',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', ACT_ROUTE);
      const fields = formOf(request);
      const t = (await transactions.detail(pages.callerOf(request), request.params.referenceNo)).transaction;
      const action = 'console: refund';
      const back = txnHref(t.referenceNo);
      const door = refundDoorOf(t);
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
        answer = await call(
          request,
          t,
          door.serviceCode,
          {
            originalReferenceNo: t.referenceNo,
            originalPartnerReferenceNo: t.partnerReferenceNo,
            partnerRefundNo,
            refundAmount: { value: refundAmount, currency: 'IDR' },
            reason: blank(fields.reason) ?? DEFAULT_REFUND_REASON,
          },
          once,
          door.run,
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
            await call(
              request,
              t,
              SERVICE.qrisCancel,
              { originalReferenceNo: t.referenceNo, reason: blank(fields.reason) ?? DEFAULT_CANCEL_REASON },
              once,
              (ctx, recordFor) => qris.cancel(ctx, recordFor),
            );
            break;
          case 'va':
            if (t.virtualAccountNo === null) throw new TypeError(`VA ${t.referenceNo} has no number`);
            await call(
              request,
              t,
              SERVICE.vaDelete,
              { virtualAccountNo: t.virtualAccountNo, trxId: t.partnerReferenceNo },
              once,
              (ctx, recordFor) => va.remove(ctx, recordFor, VA_DELETED_BY_OPERATOR),
            );
            break;
          case 'ewallet':
            await call(
              request,
              t,
              SERVICE.debitCancel,
              {
                originalPartnerReferenceNo: t.partnerReferenceNo,
                originalReferenceNo: t.referenceNo,
                reason: blank(fields.reason) ?? DEFAULT_CANCEL_REASON,
              },
              once,
              (ctx, recordFor) => ewallet.cancel(ctx, recordFor),
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

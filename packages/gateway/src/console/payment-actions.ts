import { createHash, randomBytes } from 'node:crypto';
import { fromMinorUnits, isMoneyValue, isSnapError, jakartaDay, SERVICE, toMinorUnits } from '@snapgate/snap';
import type { FastifyRequest } from 'fastify';
import { assertNever, methodOf, methodOfTxn, TRANSACTION_KINDS } from '../methods/index.ts';
import type { Caller } from '../operators/caller.ts';
import type { RecordFor, SnapResponse } from '../payments/idempotency.ts';
import type { MerchantRequest } from '../payments/snap-request.ts';
import type { TransactionReads, TransactionRecord } from '../payments/transaction-reads.ts';
import { rupiah, statusName } from '../web/format.ts';
import type { ConsoleDeps } from './operator.ts';

// Refund and cancel from a page, as the transaction's merchant would through the payment API: the
// same services, the same field rules, an idempotency record in the same database transaction.
// Shared by the operator's transaction page (pages/transaction-actions.ts) and the merchant
// dashboard's refunds (portal/refunds.ts).

export const named = (t: TransactionRecord) => methodOfTxn(t).named(t);
/** `a QRIS or an e-wallet payment`: the methods refunded through snapgate, as a sentence names them. */
export const REFUNDABLE = TRANSACTION_KINDS.filter((k) => methodOf(k).refundable)
  .map((k) => {
    const long = methodOf(k).label.long;
    const word = long === long.toUpperCase() ? long : long.toLowerCase();
    return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
  })
  .join(' or ');

/** What remains refundable: the amount less what was refunded (an open amount has none). */
export const remainingOf = (t: TransactionRecord) =>
  t.amount === null ? 0n : toMinorUnits(t.amount) - toMinorUnits(t.refundedAmount);

/**
 * A form's one-time number, made when the page is drawn: the idempotency key of what it does, and
 * a refund's partnerRefundNo unless one is typed. The same form sent twice acts once.
 */
export const newOnce = () => randomBytes(8).toString('hex');
export const onceOf = (fields: Record<string, string>) =>
  /^[0-9a-f]{16}$/.test(fields._once ?? '') ? (fields._once as string) : newOnce();

/**
 * Why the service refused, in words: `typed` when the form should come back as typed (400),
 * otherwise about the transaction's state (409), said on its page.
 */
export function refusalOf(
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
export function stateText(t: TransactionRecord, verb: 'refund' | 'cancel'): string {
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

/** What a payment call from a page needs of the console's services. */
export type ActionDeps = Pick<ConsoleDeps, 'clock' | 'merchants' | 'qris' | 'ewallet'>;
type Operation = (ctx: MerchantRequest, recordFor: RecordFor) => Promise<SnapResponse>;

/**
 * The transaction's payment call, as its merchant: its idempotency key is the form's number, under
 * `source` (`console`, `dashboard`) and a colon, which no client's X-EXTERNAL-ID may hold: never one
 * of the merchant's own keys.
 */
export async function callAsMerchant(
  deps: ActionDeps,
  source: string,
  request: FastifyRequest,
  t: TransactionRecord,
  serviceCode: string,
  body: Record<string, unknown>,
  once: string,
  operation: Operation,
): Promise<Record<string, unknown>> {
  const merchant = await deps.merchants.find(t.merchantId);
  if (!merchant) throw new TypeError(`transaction ${t.referenceNo} has no merchant ${t.merchantId}`);
  const now = deps.clock.now();
  const ctx: MerchantRequest = {
    merchant,
    body,
    serviceCode,
    idempotencyKey: { merchantId: merchant.id, day: jakartaDay(now), externalId: `${source}:${once}` },
    requestHash: createHash('sha256')
      .update(`${source}:${serviceCode}:${JSON.stringify(body)}`)
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
export function refundDoorOf(
  deps: ActionDeps,
  t: TransactionRecord,
): { serviceCode: string; run: Operation } | undefined {
  switch (t.kind) {
    case 'qris':
      return { serviceCode: SERVICE.qrisRefund, run: (ctx, recordFor) => deps.qris.refund(ctx, recordFor) };
    case 'va':
      return undefined;
    case 'ewallet':
      return { serviceCode: SERVICE.debitRefund, run: (ctx, recordFor) => deps.ewallet.refund(ctx, recordFor) };
    default:
      return assertNever(t, 'payment method');
  }
}

/** A refund of `t` through its method's door, as its merchant would ask for it (SNAP's refund body). */
export function refundAsMerchant(
  deps: ActionDeps,
  source: string,
  request: FastifyRequest,
  t: TransactionRecord,
  door: { serviceCode: string; run: Operation },
  refund: { partnerRefundNo: string; refundAmount: string; reason: string },
  once: string,
): Promise<Record<string, unknown>> {
  const body = {
    originalReferenceNo: t.referenceNo,
    originalPartnerReferenceNo: t.partnerReferenceNo,
    partnerRefundNo: refund.partnerRefundNo,
    refundAmount: { value: refund.refundAmount, currency: 'IDR' },
    reason: refund.reason,
  };
  return callAsMerchant(deps, source, request, t, door.serviceCode, body, once, door.run);
}

/** The transaction as it is now (after a refusal, say), or as it was when it cannot be read. */
export const reread = (reads: TransactionReads, caller: Caller, t: TransactionRecord): Promise<TransactionRecord> =>
  reads.detail(caller, t.referenceNo).then(
    (d) => d.transaction,
    () => t,
  );

import type { TransactionStatus } from '@snapgate/snap';
import { DomainError } from '../domain-error.ts';
import type { MerchantRecord } from '../merchants/merchant-service.ts';
import { assertNever, methodOfTxn, type SandboxVerb } from '../methods/index.ts';
import { isDue } from '../payments/expiry.ts';
import { IllegalStatusChange } from '../payments/status-change.ts';
import type { TransactionRecord } from '../payments/transaction-reads.ts';
import { jakartaTime, rupiah, statusName } from '../web/format.ts';
import type { ProviderRecord } from './provider-service.ts';
import { ProviderRefusal } from './sandbox-providers.ts';

// Which sandbox actions the gateway would accept on a transaction, and why one was refused, in
// words. The rules are the gateway's own (docs/protocol.md#transaction-statuses, src/payments/**,
// src/providers/inbound-service.ts): the console only offers what they let through.

/** A sandbox action: pay (00), notify pending again (01), fail (06). */
export type { SandboxVerb };
export const VERB_STATUS: Record<SandboxVerb, TransactionStatus> = { pay: '00', pend: '01', fail: '06' };

/** Statuses a payment, a failure or (QRIS 01) a pending notification may still leave. */
const OPEN: readonly TransactionStatus[] = ['01', '02', '03'];

/**
 * Whether the gateway's clock has expired it (payments/expiry.ts, the gateway's own rule): an open
 * transaction past its expiry, except a QRIS an upstream acquirer issued, which only reconciliation
 * with that acquirer ends (docs/upstream.md): the gateway still takes a Pend on it after its expiry.
 */
const isExpired = (t: TransactionRecord, now: number) => isDue(t, now);

/**
 * Whether the built-in sandbox acquirer (QRIS), bank (VA) or wallet (e-wallet) is the one the
 * gateway takes this transaction's payment from: a QRIS an upstream acquirer issued, or of a merchant
 * routed to another acquirer (or while another acquirer takes the gateway's own QRIS), is that
 * acquirer's; a VA whose bank code a registered bank has is that bank's; an e-wallet payment is its
 * wallet's.
 */
export function sandboxServes(
  t: TransactionRecord,
  merchant: MerchantRecord | undefined,
  providers: ProviderRecord[],
): boolean {
  switch (t.kind) {
    case 'va':
      return !providers.some((p) => p.kind === 'bank' && !p.isSandbox && p.bankCode === t.details.bankCode);
    case 'qris': {
      if (t.details.upstream !== undefined) return false;
      const routed = merchant?.qrisProvider ?? null;
      if (routed !== null) return providers.some((p) => p.id === routed && p.isSandbox);
      return !providers.some((p) => p.acquiresGatewayQris && !p.isSandbox);
    }
    case 'ewallet':
      return providers.some((p) => p.id === t.details.providerId && p.isSandbox);
    default:
      return assertNever(t, 'payment method');
  }
}

/**
 * The sandbox actions the gateway would accept now. Paying or failing: an open transaction (01, 02,
 * 03) not past its expiry (an upstream QRIS has none by the clock); a VA is only paid. Pending
 * again (a QRIS only): one still Initiated (01), whoever its acquirer is.
 */
export function sandboxOffers(t: TransactionRecord, now: number, serves: boolean): Record<SandboxVerb, boolean> {
  const open = OPEN.includes(t.status) && !isExpired(t, now);
  const method = methodOfTxn(t);
  const verbs = method.sandboxVerbs;
  return {
    pay: verbs.includes('pay') && open && serves && method.reachable(t),
    pend: verbs.includes('pend') && open && t.status === '01',
    fail: verbs.includes('fail') && open && serves,
  };
}

/** How the page names the transaction in a sentence. */
const named = (t: TransactionRecord) => methodOfTxn(t).named(t);
const PAST: Record<SandboxVerb, string> = { pay: 'paid', pend: 'pended', fail: 'failed' };
/** Who acts in the sandbox for its method: `sandbox acquirer`, `sandbox bank`. */
const who = (t: TransactionRecord) => methodOfTxn(t).provider.sandboxName;
/** `paid, pended or failed`: what the sandbox could have done to one of its method. */
const verbsDone = (t: TransactionRecord) =>
  methodOfTxn(t)
    .sandboxVerbs.map((v) => PAST[v])
    .join(', ')
    .replace(/, ([^,]+)$/, ' or $1');

/**
 * Why no sandbox action can happen to it now, as a sentence without its full stop: paid or refunded
 * (nothing more to do), cancelled, failed or expired (it can no longer be paid), or another
 * acquirer's or bank's (`serves` false); undefined while one can.
 */
export function blockedReason(t: TransactionRecord, now: number, serves = true): string | undefined {
  const name = named(t);
  const over = `it can no longer be ${verbsDone(t)}`;
  switch (t.status) {
    case '00':
      return `${name} is already paid`;
    case '04':
      return `${name} was refunded`;
    case '05':
      return `${name} was cancelled: ${over}`;
    case '06':
      return t.statusDesc === 'Expired'
        ? `${name} has expired${t.expiresAt === null ? '' : ` (at ${jakartaTime(t.expiresAt)})`}: ${over}`
        : `${name} has failed: ${over}`;
  }
  if (isExpired(t, now)) return `${name} has expired (at ${jakartaTime(t.expiresAt)}): ${over}`;
  if (!serves) return `The ${who(t)} does not handle ${name}: another ${methodOfTxn(t).provider.kind} does`;
  return undefined;
}

/** A reason of blockedReason as the answer to an action: what was (not) done. */
const refused = (reason: string) =>
  reason.includes(': ') ? `${reason}; nothing was changed.` : `${reason}: nothing was changed.`;

/** Why an action the console does not offer (any more) was not done: a stale page, a second tab. */
export function notOfferedText(t: TransactionRecord, verb: SandboxVerb, now: number, serves: boolean): string {
  const blocked = blockedReason(t, now, verb === 'pend' || serves);
  if (blocked) return refused(blocked);
  if (verb === 'pend') {
    return `${named(t)} is ${statusName(t.status)}: only an Initiated (01) QRIS can be notified as pending again, so nothing was changed.`;
  }
  return `${named(t)} cannot take this action: nothing was changed.`;
}

/**
 * A refusal of the gateway (the SNAP answer of the provider path, or its status machine), in plain
 * words. `after` is the transaction as it is now, read again after the refusal.
 */
export function refusalText(after: TransactionRecord, e: unknown, now: number, paidAmount?: string): string {
  const blocked = blockedReason(after, now);
  if (blocked) return refused(blocked);
  const name = named(after);
  if (e instanceof ProviderRefusal) {
    // responseCode: HTTP status (3), service (2), case (2): docs/protocol.md#conventions.
    const http = e.responseCode.slice(0, 3);
    const kase = e.responseCode.slice(5);
    if (http === '404' && kase === '13') {
      if (after.amount === null) return `Nothing was paid: ${OPEN_AMOUNT}.`;
      return `The amount ${rupiah(paidAmount ?? null)} differs from the bill (${rupiah(after.amount)}): nothing was paid. Leave the amount empty to pay the bill.`;
    }
    if (http === '404' && kase === '14') return `${name} is already paid: nothing was changed.`;
    if (http === '404' && kase === '19') return `${name} has expired: it can no longer be paid.`;
    if (http === '404') return `The ${who(after)} found no such transaction (${name}): nothing was changed.`;
  }
  if (e instanceof IllegalStatusChange) {
    return `${name} is ${statusName(e.from)}: it cannot change to ${statusName(e.to)}, so nothing was changed.`;
  }
  if (e instanceof DomainError && e.kind === 'not-found') {
    return `The ${who(after)} found no such transaction (${name}): nothing was changed.`;
  }
  const why = e instanceof ProviderRefusal ? e.responseMessage : e instanceof Error ? e.message : String(e);
  return `The ${who(after)} refused it (${why}): nothing was changed.`;
}

/**
 * The status a refusal of the gateway stands for in the audit log: 400 for what was typed (an
 * amount the VA does not take), 409 for the state of the transaction.
 */
export const refusalStatus = (e: unknown): 400 | 409 =>
  e instanceof ProviderRefusal && (e.httpStatus === 400 || e.responseCode.slice(5) === '13') ? 400 : 409;

/** An open-amount VA (no bill): the gateway's inquiry answers 0.00, and paying 0.00 is refused. */
const OPEN_AMOUNT = 'this VA takes any amount: type one above 0.00';
const MONEY = /^(0|[1-9]\d{0,15})\.\d{2}$/;

/**
 * Why a Pay VA form's amount (empty: undefined) is refused before it is tried, or undefined: a value
 * that is not money, or none (or 0.00) for an open-amount VA, whose bill is no amount to pay.
 */
export function vaAmountRefusal(t: TransactionRecord, amount: string | undefined): string | undefined {
  if (amount !== undefined && !MONEY.test(amount)) {
    return `Nothing was paid: the amount “${amount.slice(0, 40)}” is not a money value like 10000.00.`;
  }
  if (t.amount === null && (amount === undefined || /^0\.00$/.test(amount))) return `Nothing was paid: ${OPEN_AMOUNT}.`;
  return undefined;
}

/** Whether a failure is a refusal to say on the page, rather than a fault of the gateway. */
export const isRefusal = (e: unknown) =>
  (e instanceof ProviderRefusal && e.httpStatus < 500) || e instanceof IllegalStatusChange || e instanceof DomainError;

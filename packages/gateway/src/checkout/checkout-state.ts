import { assertNever, methodOfTxn } from '../methods/index.ts';
import { returnUrlOf } from '../payments/checkout-link.ts';
import type { CheckoutReads } from '../payments/checkout-reads.ts';
import { isDue } from '../payments/expiry.ts';
import { sandboxOffers, sandboxServes } from '../providers/sandbox-rules.ts';
import type { MerchantRecord, TransactionKind, TransactionRecord } from '../records/records.ts';
import { bankName, type CheckoutState } from './checkout-text.ts';

// What a checkout page shows of its transaction, read through payments/checkout-reads.ts: only what the payer may see
// (the merchant's name, the amount, the QR or the VA, the state), never the merchant's or a
// provider's ids, keys or other transactions.

/** The state an event stream names (docs/checkout.md): a payment in progress is still `waiting`. */
export type StreamState = Exclude<CheckoutState, 'processing'>;

const FINAL: ReadonlySet<CheckoutState> = new Set(['paid', 'refunded', 'failed', 'expired', 'cancelled']);
export const isFinal = (state: CheckoutState): boolean => FINAL.has(state);

/**
 * A SNAP status (docs/protocol.md#transaction-statuses) as the payer's state: 00 paid; 04 refunded
 * (a final state: paid, then refunded in full); 05 cancelled (a QRIS cancelled, a VA deleted); 06
 * expired when the expiry made it (payments/expiry.ts writes `Expired`), else failed; 02 and 03 a
 * payment in progress; 01 waiting.
 */
export function stateOf(status: string, statusDesc: string | null): CheckoutState {
  switch (status) {
    case '00':
      return 'paid';
    case '04':
      return 'refunded';
    case '05':
      return 'cancelled';
    case '06':
      return statusDesc === 'Expired' ? 'expired' : 'failed';
    case '02':
    case '03':
      return 'processing';
    default:
      return 'waiting';
  }
}

export const streamStateOf = (state: CheckoutState): StreamState => (state === 'processing' ? 'waiting' : state);

/** A transaction's state now: an open one past its expiry shows expired before the sweeper writes it. */
export function currentStateOf(txn: TransactionRecord, nowMs: number): CheckoutState {
  return isDue(txn, nowMs) ? 'expired' : stateOf(txn.status, txn.statusDesc);
}

/** What one checkout page shows. */
export interface CheckoutView {
  checkoutId: string;
  kind: TransactionKind;
  state: CheckoutState;
  status: string;
  seq: number;
  merchantName: string;
  /** Null for an open-amount VA. */
  amount: string | null;
  paidAmount: string | null;
  referenceNo: string;
  /** The merchant's order number (this payment's own). */
  orderNo: string;
  /** When the payer must have paid by (a QRIS's validityPeriod, a VA's expiredDate). */
  payBy: number | null;
  paidAt: number | null;
  returnUrl: string | undefined;
  /** The merchant's origins that may frame the page. */
  frameAncestors: readonly string[];
  /** QRIS: its content; empty while an upstream acquirer has not issued it yet. */
  qrContent?: string;
  va?: { number: string; name: string; bank: string };
  /** E-wallet: the wallet, and where the payer approves the payment (the wallet's page or app). */
  /** The wallet: its name, its page, and its app's own link when it gave one (a deep link). */
  wallet?: { name: string; url: string; app?: string | undefined };
  /** Sandbox mode: whether the sandbox would pay it now, and whether the payer picks the amount. */
  sandbox?: { canPay: boolean; needsAmount: boolean };
}

export interface CheckoutViewDeps {
  reads: CheckoutReads;
  isSandbox: boolean;
}

/** A VA's number as a payer types it (the gateway's padding spaces dropped). */
export const vaDigits = (virtualAccountNo: string | null): string => (virtualAccountNo ?? '').replace(/\s+/g, '');

async function bankOf(reads: CheckoutReads, bankCode: string): Promise<string> {
  return bankName(bankCode, await reads.activeBankName(bankCode));
}

async function sandboxOf(
  reads: CheckoutReads,
  txn: TransactionRecord,
  merchant: MerchantRecord | undefined,
  nowMs: number,
): Promise<CheckoutView['sandbox']> {
  const providers = await reads.providers();
  const offers = sandboxOffers(txn, nowMs, sandboxServes(txn, merchant, providers));
  return { canPay: offers.pay, needsAmount: txn.amount === null };
}

/** The page's view of a transaction that has a checkout id. */
export async function checkoutView(
  deps: CheckoutViewDeps,
  txn: TransactionRecord,
  nowMs: number,
): Promise<CheckoutView> {
  const { reads } = deps;
  const merchant = await reads.merchant(txn.merchantId);
  const state = currentStateOf(txn, nowMs);
  const view: CheckoutView = {
    checkoutId: txn.checkoutId as string,
    kind: txn.kind,
    state,
    status: txn.status,
    seq: txn.seq,
    merchantName: merchant?.merchantName || merchant?.name || '',
    amount: txn.amount,
    paidAmount: txn.paidAmount,
    referenceNo: txn.referenceNo,
    orderNo: txn.partnerReferenceNo,
    payBy: methodOfTxn(txn).payBy(txn),
    paidAt: txn.paidAt,
    returnUrl: returnUrlOf(txn),
    frameAncestors: merchant?.checkoutFrameAncestors ?? [],
  };
  switch (txn.kind) {
    case 'qris':
      view.qrContent = txn.details.qrContent;
      break;
    case 'va':
      view.va = {
        number: vaDigits(txn.virtualAccountNo),
        name: txn.details.virtualAccountName,
        bank: await bankOf(reads, txn.details.bankCode),
      };
      break;
    case 'ewallet':
      view.wallet = { name: txn.details.payOption, url: txn.details.webRedirectUrl, app: txn.details.appRedirectUrl };
      break;
    default:
      assertNever(txn, 'payment method');
  }
  if (deps.isSandbox && !isFinal(state)) view.sandbox = await sandboxOf(reads, txn, merchant, nowMs);
  return view;
}

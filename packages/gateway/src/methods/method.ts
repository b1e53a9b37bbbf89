import type { TransactionStatus } from '@snapgate/snap';
import type { ProviderKind } from '../records/provider-records.ts';
import type {
  FeeSnapshot,
  MerchantRecord,
  TransactionKind,
  TransactionRecord,
  UpstreamRef,
} from '../records/records.ts';

// A payment method (QRIS, Virtual Account, …) declared in one place: what the rest of the gateway
// asks of a transaction's method instead of comparing its `kind` with a string. The registry
// (methods/index.ts) is typed over every kind of TransactionRecord, so a new kind without its
// module, or a `switch` on kinds without its case (assertNever), is a type error
// (docs/architecture.md#where-a-new-thing-goes).

/** The transaction of one method: `TxnOf<'qris'>` is a QrisTransaction. */
type TxnByKind = { [T in TransactionRecord as T['kind']]: T };
export type TxnOf<K extends TransactionKind> = TxnByKind[K];

/** What the sandbox may do to a transaction on a payer's behalf. */
export type SandboxVerb = 'pay' | 'pend' | 'fail';

/** The merchant setting that holds a method's own callback URL. */
export type CallbackUrlSetting = 'qrisCallbackUrl' | 'vaCallbackUrl';

export interface PaymentMethod<K extends TransactionKind = TransactionKind> {
  readonly kind: K;
  /** How people read it: `short` in a table's cell, `long` in a sentence or a heading. */
  readonly label: { readonly short: string; readonly long: string };
  /**
   * Where its callbacks go: a path under the merchant's base URL, unless its own URL setting is set
   * (a method without one may name a URL per transaction: an e-wallet's `PAY_NOTIFY`).
   */
  readonly callback: {
    readonly path: `/${string}`;
    readonly urlSetting?: CallbackUrlSetting;
    /** The `responseCode`s that acknowledge it under the strict rule (`2002600`, SNAP's callback's). */
    readonly ackCodes: readonly string[];
  };
  /** A URL its callbacks go to instead (an e-wallet payment's `PAY_NOTIFY`), when the transaction names one. */
  ownCallbackUrl(t: TxnOf<K>): string | undefined;
  /** Which kind of provider takes its payments (the sandbox's own among them), and what that one is called. */
  readonly provider: { readonly kind: ProviderKind; readonly sandboxName: string };
  /** docs/protocol.md#transaction-statuses: whether a change to `to` is told to the merchant. */
  isNotified(to: TransactionStatus): boolean;
  /** The amount a notification of it carries. */
  notifiedAmount(t: TxnOf<K>): string;
  /** The fee settings a new transaction of it keeps (docs/books.md#fees). */
  feeSnapshot(merchant: Pick<MerchantRecord, 'fees' | 'qrisCriteria'>): FeeSnapshot;
  /** Set when an upstream provider issued it: reconciliation with that provider, not the clock, ends it. */
  upstreamOf(t: TxnOf<K>): UpstreamRef | undefined;
  /** When the payer must have paid by: its provider's validity when one issued it, else its own expiry. */
  payBy(t: TxnOf<K>): number | null;
  /** Whether a paid one may be refunded through snapgate. */
  readonly refundable: boolean;
  /** Whether a payer can reach it to pay, and so whether it can be paid or cancelled (a VA without its number cannot). */
  reachable(t: TxnOf<K>): boolean;
  /** What cancelling it is called: a QRIS is cancelled, a VA deleted. */
  readonly cancelled: 'cancelled' | 'deleted';
  /** What the sandbox may do to an open one. */
  readonly sandboxVerbs: readonly SandboxVerb[];
  /** How a sentence names one transaction of it. */
  named(t: TxnOf<K>): string;
  /**
   * What an operator (and the merchant, in the portal) reads of one beside its amounts and status:
   * labelled values, those it has; never an internal id.
   */
  facts(t: TxnOf<K>): ReadonlyArray<readonly [label: string, value: string | null | undefined]>;
}

/** The end of an exhaustive `switch`: a kind without its case does not compile. */
export function assertNever(value: never, what = 'value'): never {
  throw new TypeError(`no case for ${what} ${String(value)}`);
}

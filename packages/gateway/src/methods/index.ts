import type { TransactionKind, TransactionRecord } from '../records/records.ts';
import { ewallet } from './ewallet.ts';
import type { PaymentMethod } from './method.ts';
import { qris } from './qris.ts';
import { va } from './va.ts';

export { assertNever, type PaymentMethod, type SandboxVerb, type TxnOf } from './method.ts';

/** Every payment method, by kind: a kind of TransactionRecord without its module here does not compile. */
const METHODS = { qris, va, ewallet } as const satisfies { readonly [K in TransactionKind]: PaymentMethod<K> };

/** Every kind, in the order people see them. */
export const TRANSACTION_KINDS = Object.keys(METHODS) as [TransactionKind, ...TransactionKind[]];

/** What a kind of payment is (its facts; for what takes a transaction, use methodOfTxn). */
export function methodOf(kind: TransactionKind): PaymentMethod {
  // Only a kind the compiler knows reaches here, but a value from outside may lie about its type.
  return METHODS[parseTransactionKind(kind)];
}

/** The method of this transaction, whose members take it. */
export const methodOfTxn = (t: TransactionRecord): PaymentMethod => methodOf(t.kind);

export const isTransactionKind = (value: unknown): value is TransactionKind =>
  typeof value === 'string' && Object.hasOwn(METHODS, value);

/** A kind read back from storage: an unknown one is an error, never another method's branch. */
export function parseTransactionKind(value: unknown): TransactionKind {
  if (!isTransactionKind(value)) throw new TypeError(`unknown payment method ${JSON.stringify(value)}`);
  return value;
}

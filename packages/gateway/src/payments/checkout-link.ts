import { snapError } from '@snapgate/snap';
import type { Mode } from '../config.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import type { FieldReader } from './fields.ts';
import { newRandomId } from './ids.ts';
import { RETURN_URL, RETURN_URL_MAX } from './snap-fields.ts';

// The hosted checkout's link (docs/checkout.md): every QRIS generate and VA create gets a page of
// its own at `<public url>/pay/<checkoutId>`, and may name where the page sends the payer back.

/** A checkout id's shape: 16 random bytes in base64url. */
export const CHECKOUT_ID = /^[A-Za-z0-9_-]{22}$/;

/** 16 random bytes, base64url (22 characters): unguessable, and derived from no reference. */
export const newCheckoutId = newRandomId;

/**
 * Whether an insert refused by this unique constraint draws its referenceNo and checkout id again
 * (both random: a clash is astronomically rare, never the caller's doing). A partnerReferenceNo
 * clash is the merchant's duplicate order, checked before this.
 */
export const isDrawnAgain = (constraint: string): boolean =>
  (constraint.includes('reference_no') && !constraint.includes('partner_reference_no')) ||
  constraint.includes('checkout_id');

export const checkoutUrlOf = (publicUrl: string, checkoutId: string): string => `${publicUrl}/pay/${checkoutId}`;

/** A QRIS's `qrUrl`: its QR as a PNG image under its checkout's id (`.svg` also works). */
export const qrUrlOf = (publicUrl: string, checkoutId: string): string => `${publicUrl}/pay/${checkoutId}/qr.png`;

/** The transaction of a checkout id (undefined for a string no checkout id can be). */
export async function findCheckout(store: Store, checkoutId: string): Promise<TransactionRecord | undefined> {
  if (!CHECKOUT_ID.test(checkoutId)) return undefined;
  return store.findTransactionByCheckoutId(checkoutId);
}

/**
 * `additionalInfo.returnUrl`: where the page sends the payer once the payment ends. An absolute
 * http(s) URL without credentials; https in production (a payer's browser must not be sent back
 * in clear). A bad one is refused as 400 xx01 naming the field. Answers it normalised, once, here
 * (WHATWG URL's `href`: scheme and host in lower case, no default port, no dot segments), the one
 * form that is kept and then used as it is, by the page's link and by its redirect alike.
 */
export function readReturnUrl(f: FieldReader, serviceCode: string, mode: Mode | undefined): string | undefined {
  const field = 'additionalInfo.returnUrl';
  const value = f.str(field, RETURN_URL);
  return value === undefined ? undefined : normalizedUrl(value, field, serviceCode, mode);
}

/** A URL the payer's browser or a callback is sent to, checked and normalised as readReturnUrl says. */
export function normalizedUrl(value: string, field: string, serviceCode: string, mode: Mode | undefined): string {
  const refused = () => snapError('INVALID_FIELD_FORMAT', serviceCode, { field });
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refused();
  }
  const isSchemeAllowed = url.protocol === 'https:' || (url.protocol === 'http:' && mode !== 'production');
  if (!isSchemeAllowed || url.hostname === '' || url.username !== '' || url.password !== '') throw refused();
  // Percent-encoding can lengthen it: the bound holds for the form kept too.
  if (url.href.length > RETURN_URL_MAX) throw refused();
  return url.href;
}

/**
 * QRIS generate's and VA create's `additionalInfo` as the transaction keeps it: as given, except
 * its `returnUrl`, which is checked and kept normalised (readReturnUrl).
 */
export function readAdditionalInfo(
  f: FieldReader,
  serviceCode: string,
  mode: Mode | undefined,
): Record<string, unknown> | undefined {
  const additionalInfo = f.passthrough('additionalInfo');
  const returnUrl = readReturnUrl(f, serviceCode, mode);
  return returnUrl === undefined ? additionalInfo : { ...additionalInfo, returnUrl };
}

/** The returnUrl a transaction was created with (kept in its additionalInfo), if any. */
export function returnUrlOf(txn: TransactionRecord): string | undefined {
  const v = txn.details.additionalInfo?.returnUrl;
  return typeof v === 'string' && /^https?:\/\//.test(v) ? v : undefined;
}

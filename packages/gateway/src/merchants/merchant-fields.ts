import { z } from 'zod';
import { parseRetrySchedule } from '../config.ts';

// A merchant's settings, each written once: the rule of a value sent, whether `null` clears it,
// and what it means. The admin API's create and update bodies, the merchant as the admin API shows
// it, the console's forms and the OpenAPI document all derive from `merchantSettings`: a new
// setting is one line here (and its column: a migration, the record and its row mapping).

const text = (max: number) => z.string().trim().min(1).max(max);
const url = z.string().max(2048);
const pem = z.string().max(16_384);
const printable = (max: number) => text(max).regex(/^[\x20-\x7e]+$/, 'must be printable ASCII (EMVCo)');
const retrySchedule = z
  .string()
  .max(200)
  .refine((v) => parseRetrySchedule(v) !== undefined, 'must be a comma-separated list of durations like 0s,10s,1m,2h');
const about = (description: string) => ({ description });
/** A percent with two fraction digits, 0.00 to 100.00. */
const percent = z
  .string()
  .regex(/^(100\.00|\d{1,2}\.\d{2})$/, 'must be a percent from 0.00 to 100.00, with two fraction digits');
/** An amount in rupiah with two fraction digits. */
const amount = z.string().regex(/^(0|[1-9]\d{0,15})\.\d{2}$/, 'must be an amount like 2500.00');
const percentFee = z.strictObject({ percent, fixed: amount.optional() });
/** `https://shop.example` or `https://shop.example:8443`: an origin as CSP names it, nothing more. */
const httpsOrigin = z
  .string()
  .max(200)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'https:' && u.origin === v;
    } catch {
      return false;
    }
  }, 'must be an https origin like https://shop.example (no path, no trailing slash)');

/** A bank account as an operator gives it; the payout bank's answer is added when it is saved. */
const payoutAccountFields = {
  bankCode: z
    .string()
    .regex(/^\d{3}$/, 'must be 3 digits')
    .meta(about('The bank’s code (Bank Indonesia’s, 3 digits).')),
  accountNo: z
    .string()
    .regex(/^\d{1,34}$/, 'must be 1 to 34 digits')
    .meta(about('The account number, digits only.')),
  accountName: text(100).meta(about('The holder’s name, as the merchant gives it.')),
};

/** Every setting an operator chooses; `.nullable()`: null clears it (the gateway's default again). */
export const merchantSettings = z.object({
  callbackBaseUrl: url
    .nullable()
    .meta(
      about(
        'Callbacks go to `<callbackBaseUrl>/webhook/payment-qr-notification` and `…/webhook/payment-va-notification`. https, and not a private address, in production mode.',
      ),
    ),
  qrisCallbackUrl: url.nullable().meta(about('Where QRIS callbacks go instead.')),
  vaCallbackUrl: url.nullable().meta(about('Where VA callbacks go instead.')),
  transferCallbackUrl: url
    .nullable()
    .meta(
      about(
        'Where the callbacks of its disbursements that end after their answer go, instead of `<callbackBaseUrl>/v1.0/transfer/notify`.',
      ),
    ),
  partnerId: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, dot, dash or underscore')
    .meta(about('Its SNAP `X-PARTNER-ID`; the client key when not given.')),
  publicKeyPem: pem
    .nullable()
    .meta(about('RSA public key (PEM, at least 2048 bits) that verifies its token requests (SHA256withRSA).')),
  tokenSignature: z
    .enum(['any', 'hmac-sha256', 'rsa-sha256'])
    .meta(
      about('How its token requests are signed: `any` (default) takes RSA when a key is registered, and HMAC-SHA256.'),
    ),
  callbackSignature: z
    .enum(['hmac-sha512', 'rsa-sha256', 'snap-b2b'])
    .meta(about('How callbacks to it are signed (default `hmac-sha512`).')),
  callbackJson: z
    .enum(['standard', 'php', 'php-laravel'])
    .meta(
      about(
        '`php`: callback bodies as PHP’s `json_encode` writes them; `php-laravel`: the same with every empty string written as `null`, as Laravel’s ConvertEmptyStringsToNull leaves a body it re-encodes (default `standard`).',
      ),
    ),
  callbackVaBody: z
    .enum(['standard', 'snap-payment'])
    .meta(
      about(
        'VA callbacks: `standard` (default) is snapgate’s notification, as QRIS; `snap-payment` is SNAP’s VA payment shape (`partnerServiceId`, `customerNo`, `virtualAccountNo`, `trxId`, `paymentRequestId`, `paidAmount`, …), as DOKU’s library and other bank-style receivers read it.',
      ),
    ),
  callbackAck: z
    .enum(['strict', 'any-200'])
    .meta(
      about(
        'What acknowledges a callback: `strict` (default) HTTP 200 with `responseCode` `"2002600"`; `any-200` HTTP 200 with any `200xxxx` code, a string or a number (DOKU’s library answers `2002700`).',
      ),
    ),
  callbackTokenUrl: url
    .nullable()
    .meta(
      about(
        '`snap-b2b`: where the gateway takes its token; default `<callbackBaseUrl>/api/snap/v1.0/access-token/b2b`.',
      ),
    ),
  merchantName: printable(25).meta(about('Written into its QRIS (EMVCo tag 59).')),
  merchantCity: printable(15).meta(about('Written into its QRIS (EMVCo tag 60).')),
  nmid: z
    .string()
    .regex(/^ID\d{10,13}$/, 'must be ID followed by 10 to 13 digits')
    .meta(about('QRIS National Merchant ID.')),
  mcc: z
    .string()
    .regex(/^\d{4}$/, 'must be 4 digits')
    .meta(about('Merchant category code.')),
  qrisProvider: z
    .string()
    .max(64)
    .nullable()
    .meta(about('An acquirer provider’s id: that acquirer issues its QRIS. Null: snapgate issues them itself.')),
  qrisCriteria: z
    .enum(['UMI', 'UKE', 'UME', 'UBE'])
    .meta(
      about(
        'The QRIS merchant criteria (micro, small, medium, large), written into its QRIS; Bank Indonesia’s MDR depends on it. Default `UMI`.',
      ),
    ),
  fees: z
    .strictObject({
      qris: z
        .union([z.strictObject({ rule: z.literal('bi-mdr') }), percentFee])
        .optional()
        .meta(
          about(
            '`{"rule":"bi-mdr"}` (default): Bank Indonesia’s QRIS MDR by `qrisCriteria`; or a percent and a fixed amount.',
          ),
        ),
      va: z
        .strictObject({ fixed: amount, percent: percent.optional() })
        .optional()
        .meta(about('A fixed amount per paid VA, and a percent (default `{"fixed":"0.00"}`).')),
      ewallet: percentFee
        .optional()
        .meta(about('A percent of a paid e-wallet payment, and a fixed amount (default `{"percent":"1.50"}`).')),
      disbursement: z
        .strictObject({ fixed: amount })
        .optional()
        .meta(
          about(
            'A fixed amount per disbursement, taken from its pending balance with the amount and returned if the transfer fails (default `{"fixed":"0.00"}`).',
          ),
        ),
    })
    .nullable()
    .meta(
      about(
        'What the gateway charges per paid transaction, kept with each transaction at its creation. Null: the defaults. A fee is rounded half up to the whole rupiah, never more than the amount.',
      ),
    ),
  checkoutFrameAncestors: z
    .array(httpsOrigin)
    .max(10)
    .nullable()
    .meta(
      about(
        'The https origins that may show its hosted checkout pages in a frame (CSP `frame-ancestors`), at most 10. Null or empty: no site may frame them.',
      ),
    ),
  retrySchedule: retrySchedule
    .nullable()
    .meta(
      about(
        'The delays before each callback attempt, comma-separated (`0s,5s,30s,2m`): the last one is the last retry. Null: the gateway’s SNAPGATE_RETRY_SCHEDULE.',
      ),
    ),
  payoutAccount: z
    .strictObject(payoutAccountFields)
    .nullable()
    .meta(
      about(
        'The bank account its settlements are paid out to. Saving it asks the payout bank who holds it (account inquiry): the answer is kept as `verifiedName` with `verifiedAt`; an account the bank refuses is not saved (422, with the bank’s `responseCode` and `responseMessage`); without a payout bank, 409. Null: none.',
      ),
    ),
  payoutSchedule: z
    .enum(['manual', 'auto'])
    .meta(about('`manual` (default): its settlements are paid out when an operator says so; `auto`: once made.')),
  limits: z
    .strictObject({
      disbursementDaily: amount
        .optional()
        .meta(
          about(
            'The most its disbursements may send in a Jakarta day (amounts without fees, of those not failed). `0.00` (default): it may not disburse.',
          ),
        ),
    })
    .nullable()
    .meta(about('What the merchant may do with its money (docs/payouts.md#disbursements). Null: the defaults.')),
});

const name = text(100).meta(about('The merchant’s name, for operators.'));
const status = z.enum(['active', 'disabled']);

/** `POST /admin/v1/merchants`: a name, and any settings (the gateway's defaults for the rest). */
export const merchantCreateSchema = z.strictObject({ name, ...merchantSettings.partial().shape });

/** `PATCH /admin/v1/merchants/:id`: any settings, the name, or the status; at least one. */
export const merchantPatchSchema = z
  .strictObject({
    name: name.optional(),
    ...merchantSettings.partial().shape,
    status: status.optional().meta(about('`disabled` refuses its tokens at once.')),
  })
  .refine((p) => Object.keys(p).length > 0, 'at least one field is required');

export type NewMerchantInput = z.output<typeof merchantCreateSchema>;
export type MerchantPatchInput = z.output<typeof merchantPatchSchema>;
export type PayoutAccountInput = NonNullable<z.output<typeof merchantSettings.shape.payoutAccount>>;

const dateTime = z.iso.datetime();

/** A merchant as the admin API shows it: every setting, never a secret (but once, at creation). */
export const merchantViewSchema = z.strictObject({
  id: z.string(),
  name,
  clientKey: z.string().meta(about('The SNAP `X-CLIENT-KEY`.')),
  previousValidUntil: dateTime.nullable().meta(about('Until when the secret before the last rotation still works.')),
  secretVersion: z.number().int().min(1),
  ...merchantSettings.shape,
  payoutAccount: z
    .strictObject({
      ...payoutAccountFields,
      verifiedName: z.string().meta(about('The holder’s name as the payout bank answered it.')),
      verifiedAt: dateTime.meta(about('When the payout bank answered.')),
    })
    .nullable()
    .meta(about('Its bank account, verified at the payout bank; null: none.')),
  status,
  createdAt: dateTime,
  updatedAt: dateTime,
});

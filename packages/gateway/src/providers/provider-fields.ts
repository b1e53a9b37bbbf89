import { z } from 'zod';

// A provider's settings, each written once: the rule of a value sent, whether `null` clears it,
// and what it means. The admin API's create and update bodies, the provider as the admin API shows
// it and the OpenAPI document derive from these (as merchants/merchant-fields.ts for merchants).

const text = (max: number) => z.string().trim().min(1).max(max);
const pem = z.string().max(16_384);
const path = z.string().regex(/^\/[\x21-\x7e]{0,255}$/, 'must be a path starting with /');
const about = (description: string) => ({ description });

const name = text(100).meta(about('The provider’s name, for operators.'));
const KINDS =
  '`bank`: owns the VAs of its `bankCode`. `acquirer`: notifies QRIS payments. `ewallet`: takes the e-wallet payments of its `payOption`, called by snapgate over SNAP Direct Debit (docs/ewallets.md#connecting-a-wallet).';
const kind = z.enum(['bank', 'acquirer', 'ewallet']).meta(about(KINDS));
const payOption = z
  .string()
  .regex(/^[A-Z0-9_]{1,32}$/, 'must be A-Z, 0-9 and _, at most 32')
  .meta(
    about(
      'E-wallets: the wallet it serves, as merchants name it in `payOptionDetails` (`DANA`, `OVO`, …). One active wallet each.',
    ),
  );
const bankCode = z
  .string()
  .regex(/^\d{3}$/, 'must be 3 digits')
  .meta(
    about(
      'Banks: the VAs created with this bank code are theirs (one active bank per code). Acquirers: the default `payerIssuer`. E-wallets have none.',
    ),
  );
const publicKeyPem = pem.meta(
  about('RSA public key (PEM) that verifies its token requests; without one it signs HMAC-SHA256.'),
);
const OUTBOUND =
  'Acquirers that issue QRIS, e-wallets (required) and the payout bank: the SNAP client credentials snapgate holds there (`baseUrl` an origin only; `privateKeyPem` signs the token request when set).';
const outbound = z
  .strictObject({
    baseUrl: z.string().max(2048),
    clientKey: text(128),
    clientSecret: text(512),
    privateKeyPem: pem.nullable().optional(),
    partnerId: text(64),
    channelId: z.string().max(5).optional(),
    tokenPath: path.optional(),
    pathPrefix: path.optional(),
  })
  .meta(about(OUTBOUND));
const payouts = z
  .strictObject({
    sourceAccountNo: z
      .string()
      .regex(/^\d{1,19}$/, 'must be 1 to 19 digits')
      .meta(about('The operator’s account at this bank the money leaves from.')),
  })
  .meta(
    about(
      'Banks: this one is the payout bank, which snapgate calls (with its `outbound` settings) for account inquiries and transfers. At most one.',
    ),
  );
const status = z.enum(['active', 'disabled']);
const acquiresGatewayQris = z
  .boolean()
  .meta(
    about(
      'Acquirers: this one acquires the QRIS snapgate issues itself (merchants without `qrisProvider`), and only it may notify them (in sandbox mode the sandbox acquirer does while none is named). At most one.',
    ),
  );

/**
 * Every setting an operator chooses for a provider besides what it is (its name, kind and bank
 * code); `.nullable()`: null clears it. The create and update bodies derive from it, as
 * merchants/merchant-fields.ts does for merchants.
 */
export const providerSettings = z.object({
  publicKeyPem: publicKeyPem.nullable(),
  outbound: outbound.nullable(),
  acquiresGatewayQris,
  payouts: payouts.nullable(),
});

/**
 * `POST /admin/v1/providers`: what it is, and any settings. A bank and an acquirer have a bank code;
 * an e-wallet has none, but the wallet it serves and the outbound settings snapgate calls it with.
 */
export const providerCreateSchema = z
  .strictObject({
    name,
    kind,
    bankCode: bankCode.optional(),
    payOption: payOption.optional(),
    ...providerSettings.partial().shape,
  })
  .superRefine((p, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    switch (p.kind) {
      case 'ewallet':
        if (p.bankCode !== undefined) problem('bankCode', 'an e-wallet has no bank code');
        if (p.payOption === undefined) problem('payOption', 'required for an e-wallet');
        if (!p.outbound) problem('outbound', 'required for an e-wallet: snapgate calls it');
        return;
      case 'bank':
      case 'acquirer':
        if (p.bankCode === undefined)
          problem('bankCode', `required for ${p.kind === 'bank' ? 'a bank' : 'an acquirer'}`);
        if (p.payOption !== undefined) problem('payOption', 'only an e-wallet serves a payOption');
    }
  });

/** `PATCH /admin/v1/providers/:id`: at least one field; null clears a key, the outbound or payout settings. */
export const providerPatchSchema = z
  .strictObject({
    name: name.optional(),
    bankCode: bankCode.optional(),
    ...providerSettings.partial().shape,
    status: status.optional().meta(about('`disabled` refuses its tokens at once.')),
  })
  .refine((p) => Object.keys(p).length > 0, 'at least one field is required');

export type NewProviderInput = z.output<typeof providerCreateSchema>;
export type OutboundInput = z.output<typeof outbound>;
export type PayoutsInput = z.output<typeof payouts>;

const dateTime = z.iso.datetime();

/** A provider as the admin API shows it: never a secret, its own or the outbound one. */
export const providerViewSchema = z.strictObject({
  id: z.string(),
  name,
  kind,
  bankCode: bankCode.nullable(),
  clientKey: z.string(),
  previousValidUntil: dateTime.nullable(),
  secretVersion: z.number().int().min(1),
  publicKeyPem: z.string().nullable(),
  outbound: z
    .strictObject({
      baseUrl: z.string(),
      clientKey: z.string(),
      partnerId: z.string(),
      channelId: z.string(),
      tokenPath: z.string(),
      pathPrefix: z.string(),
      hasPrivateKey: z.boolean(),
    })
    .nullable(),
  isSandbox: z.boolean().meta(about('The built-in sandbox bank, acquirer or wallet.')),
  payOption: z
    .string()
    .nullable()
    .meta(about('E-wallets: the wallet (`payOption`) it serves, e.g. `SANDBOXPAY`. Null for the others.')),
  acquiresGatewayQris,
  payouts: payouts.nullable(),
  status,
  createdAt: dateTime,
  updatedAt: dateTime,
});

import {
  bodyOf,
  type CommandSpec,
  clientCommands,
  enc,
  type FlagSpec,
  flag,
  onePositional,
  readFlagFile,
  UsageError,
  type Values,
} from '../command-kit.ts';
import { printRecord } from '../output.ts';

const merchantFields: Record<string, string> = {
  name: 'name',
  'callback-base-url': 'callbackBaseUrl',
  'qris-callback-url': 'qrisCallbackUrl',
  'va-callback-url': 'vaCallbackUrl',
  'transfer-callback-url': 'transferCallbackUrl',
  'partner-id': 'partnerId',
  'token-signature': 'tokenSignature',
  'callback-signature': 'callbackSignature',
  'callback-json': 'callbackJson',
  'callback-va-body': 'callbackVaBody',
  'callback-ack': 'callbackAck',
  'callback-token-url': 'callbackTokenUrl',
  'merchant-name': 'merchantName',
  'merchant-city': 'merchantCity',
  nmid: 'nmid',
  mcc: 'mcc',
  'qris-provider': 'qrisProvider',
  'retry-schedule': 'retrySchedule',
  'qris-criteria': 'qrisCriteria',
  'payout-schedule': 'payoutSchedule',
};
const merchantFlags = (creating: boolean): FlagSpec[] => {
  const d = (text: string) => (creating ? ` (default: ${text})` : '');
  return [
    flag('--name <name>', `the merchant's name, 1 to 100 characters${creating ? ' (required)' : ''}`),
    flag('--callback-base-url <url>', `the base of both callback URLs${creating ? '' : '; "none" to clear'}`),
    flag(
      '--qris-callback-url <url>',
      `the QRIS callback URL, overriding the base${creating ? '' : '; "none" to clear'}`,
    ),
    flag('--va-callback-url <url>', `the VA callback URL, overriding the base${creating ? '' : '; "none" to clear'}`),
    flag(
      '--transfer-callback-url <url>',
      `where its disbursements' callbacks go, overriding the base${creating ? '' : '; "none" to clear'}`,
    ),
    flag('--partner-id <id>', `its X-PARTNER-ID, unique${d('the client key')}`),
    flag('--public-key-file <file>', 'a PEM RSA public key (2048 bits or more) for SHA256withRSA token signatures'),
    flag('--token-signature <mode>', `any, hmac-sha256 or rsa-sha256${d('any')}`),
    flag('--callback-signature <mode>', `hmac-sha512, rsa-sha256 or snap-b2b${d('hmac-sha512')}`),
    flag('--callback-json <style>', `the callback body: standard, php or php-laravel${d('standard')}`),
    flag(
      '--callback-va-body <shape>',
      `VA callbacks: standard, or snap-payment (SNAP's VA payment shape)${d('standard')}`,
    ),
    flag('--callback-ack <rule>', `what acknowledges: strict (2002600), or any-200 (any 200xxxx code)${d('strict')}`),
    flag('--callback-token-url <url>', 'snap-b2b: where the gateway takes its token (default: under the base URL)'),
    flag('--merchant-name <name>', `QRIS tag 59, printable ASCII, at most 25${d('the name, folded to ASCII')}`),
    flag('--merchant-city <city>', `QRIS tag 60, printable ASCII, at most 15${d('JAKARTA')}`),
    flag('--nmid <nmid>', `QRIS national merchant ID: ID and 10 to 13 digits${d('a random one')}`),
    flag('--mcc <mcc>', `merchant category code, 4 digits${d('5999')}`),
    flag(
      '--qris-provider <providerId>',
      `the acquirer provider that issues this merchant's QRIS${creating ? '' : '; "none" to clear'}`,
    ),
    flag('--qris-criteria <criteria>', `QRIS merchant criteria: UMI, UKE, UME or UBE${d('UMI')}`),
    flag(
      '--fees <json>',
      `its fees, e.g. '{"qris":{"percent":"0.70"},"va":{"fixed":"2500.00"},"disbursement":{"fixed":"2500.00"}}'${d('Bank Indonesia’s QRIS MDR, free VAs and disbursements')}`,
    ),
    flag(
      '--retry-schedule <delays>',
      `its own callback retry schedule, e.g. 0s,5s,30s${creating ? ' (default: the gateway’s)' : '; "default" for the gateway’s'}`,
    ),
    flag(
      '--payout-account <account>',
      `its bank account as bankCode:accountNo:name, e.g. 014:8880123456:Budi Santoso, verified at the payout bank${creating ? '' : '; "none" to clear'}`,
    ),
    flag('--payout-schedule <schedule>', `manual or auto: when its settlements are paid out${d('manual')}`),
    flag(
      '--disbursement-daily <amount>',
      `the most its own transfers may send in a day, e.g. 50000000.00; 0.00 turns them off${d('0.00, off')}`,
    ),
  ];
};

/** The settings a merchant may be without: `none` clears them (`--qris-provider none`). */
const CLEARABLE = [
  'qrisProvider',
  'callbackBaseUrl',
  'qrisCallbackUrl',
  'vaCallbackUrl',
  'transferCallbackUrl',
  'callbackTokenUrl',
];

function merchantBody(values: Values): Record<string, unknown> {
  const body = bodyOf(values, merchantFields);
  if (body.retrySchedule === 'default') body.retrySchedule = null;
  for (const field of CLEARABLE) if (body[field] === 'none') body[field] = null;
  const pem = readFlagFile(values, 'public-key-file');
  if (pem !== undefined) body.publicKeyPem = pem;
  if (typeof values['payout-account'] === 'string') body.payoutAccount = payoutAccountOf(values['payout-account']);
  if (typeof values['disbursement-daily'] === 'string') {
    body.limits = { disbursementDaily: values['disbursement-daily'] };
  }
  if (typeof values.fees === 'string') {
    try {
      body.fees = values.fees === 'default' ? null : JSON.parse(values.fees);
    } catch {
      throw new UsageError(`--fees: not JSON: ${values.fees}`);
    }
  }
  return body;
}

/** `014:8880123456:Budi Santoso` → the account (the name may hold a colon); `none` → null. */
function payoutAccountOf(value: string): Record<string, string> | null {
  if (value === 'none') return null;
  const m = /^([^:]*):([^:]*):(.+)$/.exec(value);
  if (!m) throw new UsageError(`--payout-account: bankCode:accountNo:name, e.g. 014:8880123456:Budi Santoso`);
  return { bankCode: m[1] as string, accountNo: m[2] as string, accountName: m[3] as string };
}

const MERCHANT_COLUMNS = ['id', 'name', 'clientKey', 'partnerId', 'status', 'createdAt'];

export const merchantCommands: CommandSpec[] = [
  {
    path: 'merchant create',
    description: 'onboard a merchant (its client secret is shown once)',
    flags: merchantFlags(true),
    async run(ctx) {
      const body = merchantBody(ctx.values);
      if (!body.name) throw new UsageError('--name is required');
      const created = await ctx.admin.call<Record<string, unknown>>('POST', '/merchants', body);
      printRecord(ctx.o, created);
      if (!ctx.o.json) ctx.o.err('The client secret is shown once: store it now.');
      // Accepted, but its callbacks would wait and be retried until a URL is set: say so now.
      if (!created.callbackBaseUrl && !created.qrisCallbackUrl && !created.vaCallbackUrl) {
        ctx.o.err(
          'Note: no callback URL. Its callbacks wait, and are retried, until one is set: snapgate merchant update <id> --callback-base-url <url>',
        );
      }
    },
  },
  ...clientCommands({
    noun: 'merchant',
    collection: '/merchants',
    columns: MERCHANT_COLUMNS,
    updateFlags: merchantFlags(false),
    bodyOf: merchantBody,
  }),
  {
    path: 'merchant portal-link',
    description: 'make a sign-in link to the merchant portal for a merchant (a credential: hand it over safely)',
    args: ['<merchantId>'],
    async run(ctx) {
      const id = onePositional(ctx, 'merchant id');
      printRecord(ctx.o, await ctx.admin.call('POST', `/merchants/${enc(id)}/portal-link`));
    },
  },
];

// ── providers ───────────────────────────────────────────────────────────────────────────────

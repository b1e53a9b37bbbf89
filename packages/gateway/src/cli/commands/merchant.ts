import {
  bodyOf,
  type CommandSpec,
  enc,
  type FlagSpec,
  flag,
  OVERLAP_FLAG,
  onePositional,
  overlapBody,
  PAGE_FLAGS,
  type Page,
  query,
  readFlagFile,
  STATUS_FLAG,
  UsageError,
  type Values,
} from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';

const merchantFields: Record<string, string> = {
  name: 'name',
  'callback-base-url': 'callbackBaseUrl',
  'qris-callback-url': 'qrisCallbackUrl',
  'va-callback-url': 'vaCallbackUrl',
  'partner-id': 'partnerId',
  'token-signature': 'tokenSignature',
  'callback-signature': 'callbackSignature',
  'callback-json': 'callbackJson',
  'callback-token-url': 'callbackTokenUrl',
  'merchant-name': 'merchantName',
  'merchant-city': 'merchantCity',
  nmid: 'nmid',
  mcc: 'mcc',
  'qris-provider': 'qrisProvider',
  'retry-schedule': 'retrySchedule',
};
const merchantFlags = (creating: boolean): FlagSpec[] => {
  const d = (text: string) => (creating ? ` (default: ${text})` : '');
  return [
    flag('--name <name>', `the merchant's name, 1 to 100 characters${creating ? ' (required)' : ''}`),
    flag('--callback-base-url <url>', 'the base of both callback URLs'),
    flag('--qris-callback-url <url>', 'the QRIS callback URL, overriding the base'),
    flag('--va-callback-url <url>', 'the VA callback URL, overriding the base'),
    flag('--partner-id <id>', `its X-PARTNER-ID, unique${d('the client key')}`),
    flag('--public-key-file <file>', 'a PEM RSA public key (2048 bits or more) for SHA256withRSA token signatures'),
    flag('--token-signature <mode>', `any, hmac-sha256 or rsa-sha256${d('any')}`),
    flag('--callback-signature <mode>', `hmac-sha512, rsa-sha256 or snap-b2b${d('hmac-sha512')}`),
    flag('--callback-json <style>', `the callback body: standard or php${d('standard')}`),
    flag('--callback-token-url <url>', 'snap-b2b: where the gateway takes its token (default: under the base URL)'),
    flag('--merchant-name <name>', `QRIS tag 59, printable ASCII, at most 25${d('the name, folded to ASCII')}`),
    flag('--merchant-city <city>', `QRIS tag 60, printable ASCII, at most 15${d('JAKARTA')}`),
    flag('--nmid <nmid>', `QRIS national merchant ID: ID and 10 to 13 digits${d('a random one')}`),
    flag('--mcc <mcc>', `merchant category code, 4 digits${d('5999')}`),
    flag('--qris-provider <providerId>', "the acquirer provider that issues this merchant's QRIS"),
    flag(
      '--retry-schedule <delays>',
      `its own callback retry schedule, e.g. 0s,5s,30s${creating ? ' (default: the gateway’s)' : '; "default" for the gateway’s'}`,
    ),
  ];
};

function merchantBody(values: Values): Record<string, unknown> {
  const body = bodyOf(values, merchantFields);
  if (body.retrySchedule === 'default') body.retrySchedule = null;
  const pem = readFlagFile(values, 'public-key-file');
  if (pem !== undefined) body.publicKeyPem = pem;
  return body;
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
      printRecord(ctx.o, await ctx.admin.call('POST', '/merchants', body));
      if (!ctx.o.json) ctx.o.err('The client secret is shown once: store it now.');
    },
  },
  {
    path: 'merchant list',
    description: 'list merchants',
    flags: PAGE_FLAGS,
    async run(ctx) {
      const page = await ctx.admin.call<Page>(
        'GET',
        `/merchants${query(ctx.values, { limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, MERCHANT_COLUMNS);
    },
  },
  {
    path: 'merchant show',
    description: 'show one merchant',
    args: ['<merchantId>'],
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', `/merchants/${enc(onePositional(ctx, 'merchant id'))}`));
    },
  },
  {
    path: 'merchant update',
    description: "change a merchant's settings, or disable it",
    args: ['<merchantId>'],
    flags: [STATUS_FLAG, ...merchantFlags(false)],
    async run(ctx) {
      const id = onePositional(ctx, 'merchant id');
      const body = merchantBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to update');
      printRecord(ctx.o, await ctx.admin.call('PATCH', `/merchants/${enc(id)}`, body));
    },
  },
  {
    path: 'merchant rotate-secret',
    description: 'issue a new client secret (shown once)',
    args: ['<merchantId>'],
    flags: [OVERLAP_FLAG],
    async run(ctx) {
      const id = onePositional(ctx, 'merchant id');
      printRecord(ctx.o, await ctx.admin.call('POST', `/merchants/${enc(id)}/rotate-secret`, overlapBody(ctx.values)));
    },
  },
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

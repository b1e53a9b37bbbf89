import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isTransactionStatus, type TransactionStatus } from '@snapgate/snap';
import { systemClock } from '../clock.ts';
import { loadCliConfig } from '../config.ts';
import { parseQrisContent } from '../payments/qris-content.ts';
import { notifyQrisAsAcquirer, payVaAsBank } from '../providers/provider-calls.ts';
import {
  createSnapClient,
  type SnapAnswer,
  SnapCallFailed,
  SnapCallTimeout,
  type SnapClient,
  type SnapTarget,
} from '../providers/snap-client.ts';
import { AdminApiError, type AdminClient, createAdminClient } from './admin-client.ts';
import { type Output, printRecord, printTable } from './output.ts';

// Thin: parse args → call the admin API (or a service) → print. Exit 0 ok, 1 failure, 2 bad usage.
export class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;
interface Ctx {
  values: Values;
  positionals: string[];
  admin: AdminClient;
  /** The gateway's base URL (the provider simulator calls its SNAP API directly). */
  url: string;
  o: Output;
}
interface Command {
  usage: string;
  options?: ParseArgsConfig['options'];
  run(ctx: Ctx): Promise<void>;
}

const str = { type: 'string' } as const;
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
};
const merchantOptions = Object.fromEntries([
  ...Object.keys(merchantFields).map((k) => [k, str]),
  ['public-key-file', str],
]) as ParseArgsConfig['options'];

function readFlagFile(values: Values, flag: string): string | undefined {
  const path = values[flag];
  if (typeof path !== 'string') return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --${flag}: ${(e as Error).message}`);
  }
}

/** The request body a command's flags name: `--flag value` → `{ field: value }`. */
function bodyOf(values: Values, fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(fields)) {
    if (typeof values[flag] === 'string') body[field] = values[flag];
  }
  return body;
}

function merchantBody(values: Values): Record<string, unknown> {
  const body = bodyOf(values, merchantFields);
  const pem = readFlagFile(values, 'public-key-file');
  if (pem !== undefined) body.publicKeyPem = pem;
  return body;
}

function onePositional(ctx: Ctx, what: string): string {
  const v = ctx.positionals[0];
  if (!v || ctx.positionals.length > 1) throw new UsageError(`expected exactly one ${what}`);
  return v;
}

function overlapBody(values: Values): Record<string, unknown> {
  if (typeof values['overlap-sec'] !== 'string') return {};
  const n = Number(values['overlap-sec']);
  if (!Number.isInteger(n) || n < 0) throw new UsageError('--overlap-sec must be a whole number of seconds');
  return { overlapSec: n };
}

const MERCHANT_COLUMNS = ['id', 'name', 'clientKey', 'partnerId', 'status', 'createdAt'];

export const commands: Record<string, Command> = {
  serve: {
    usage: 'snapgate serve                      start the gateway (settings from SNAPGATE_* variables)',
    async run() {
      const { serve } = await import('../main.ts');
      await serve();
      await new Promise(() => undefined); // runs until a signal stops it
    },
  },
  'merchant create': {
    usage: 'snapgate merchant create --name N [--callback-base-url U] [--public-key-file F] [...]',
    options: merchantOptions,
    async run(ctx) {
      const body = merchantBody(ctx.values);
      if (!body.name) throw new UsageError('--name is required');
      printRecord(ctx.o, await ctx.admin.call('POST', '/merchants', body));
      if (!ctx.o.json) ctx.o.err('The client secret is shown once: store it now.');
    },
  },
  'merchant list': {
    usage: 'snapgate merchant list [--limit N] [--cursor C]',
    options: { limit: str, cursor: str },
    async run(ctx) {
      const q = new URLSearchParams();
      if (typeof ctx.values.limit === 'string') q.set('limit', ctx.values.limit);
      if (typeof ctx.values.cursor === 'string') q.set('cursor', ctx.values.cursor);
      const page = await ctx.admin.call<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
        'GET',
        `/merchants${q.size ? `?${q}` : ''}`,
      );
      printTable(ctx.o, page, MERCHANT_COLUMNS);
    },
  },
  'merchant show': {
    usage: 'snapgate merchant show <merchantId>',
    async run(ctx) {
      printRecord(
        ctx.o,
        await ctx.admin.call('GET', `/merchants/${encodeURIComponent(onePositional(ctx, 'merchant id'))}`),
      );
    },
  },
  'merchant update': {
    usage: 'snapgate merchant update <merchantId> [--status active|disabled] [--callback-base-url U] [...]',
    options: { ...merchantOptions, status: str },
    async run(ctx) {
      const id = onePositional(ctx, 'merchant id');
      const body = merchantBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to update');
      printRecord(ctx.o, await ctx.admin.call('PATCH', `/merchants/${encodeURIComponent(id)}`, body));
    },
  },
  'merchant rotate-secret': {
    usage: 'snapgate merchant rotate-secret <merchantId> [--overlap-sec N]',
    options: { 'overlap-sec': str },
    async run(ctx) {
      const id = onePositional(ctx, 'merchant id');
      const path = `/merchants/${encodeURIComponent(id)}/rotate-secret`;
      printRecord(ctx.o, await ctx.admin.call('POST', path, overlapBody(ctx.values)));
    },
  },
};

const providerFields: Record<string, string> = { name: 'name', kind: 'kind', 'bank-code': 'bankCode' };
const outboundFields: Record<string, string> = {
  'outbound-base-url': 'baseUrl',
  'outbound-client-key': 'clientKey',
  'outbound-client-secret': 'clientSecret',
  'outbound-partner-id': 'partnerId',
  'outbound-channel-id': 'channelId',
  'outbound-token-path': 'tokenPath',
  'outbound-path-prefix': 'pathPrefix',
};
const providerOptions = Object.fromEntries(
  [...Object.keys(providerFields), ...Object.keys(outboundFields), 'public-key-file', 'outbound-private-key-file'].map(
    (k) => [k, str],
  ),
) as ParseArgsConfig['options'];

function providerBody(values: Values): Record<string, unknown> {
  const body = bodyOf(values, providerFields);
  const pem = readFlagFile(values, 'public-key-file');
  if (pem !== undefined) body.publicKeyPem = pem;
  const outbound = bodyOf(values, outboundFields);
  const privateKeyPem = readFlagFile(values, 'outbound-private-key-file');
  if (privateKeyPem !== undefined) outbound.privateKeyPem = privateKeyPem;
  if (Object.keys(outbound).length > 0) body.outbound = outbound;
  return body;
}

const PROVIDER_COLUMNS = ['id', 'name', 'kind', 'bankCode', 'clientKey', 'status', 'isSandbox'];
const OUTBOUND_USAGE =
  '[--outbound-base-url U --outbound-client-key K --outbound-client-secret S --outbound-partner-id P [--outbound-private-key-file F]]';

Object.assign(commands, {
  'provider create': {
    usage: `snapgate provider create --name N --kind bank|acquirer --bank-code 014 [--public-key-file F] ${OUTBOUND_USAGE}`,
    options: providerOptions,
    async run(ctx: Ctx) {
      const body = providerBody(ctx.values);
      for (const flag of ['name', 'kind', 'bank-code']) {
        if (typeof ctx.values[flag] !== 'string') throw new UsageError(`--${flag} is required`);
      }
      printRecord(ctx.o, await ctx.admin.call('POST', '/providers', body));
      if (!ctx.o.json) ctx.o.err('The client secret is shown once: give it to the provider now.');
    },
  },
  'provider list': {
    usage: 'snapgate provider list [--limit N] [--cursor C]',
    options: { limit: str, cursor: str },
    async run(ctx: Ctx) {
      const page = await ctx.admin.call<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
        'GET',
        `/providers${query(ctx.values, { limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, PROVIDER_COLUMNS);
    },
  },
  'provider show': {
    usage: 'snapgate provider show <providerId>',
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'provider id');
      printRecord(ctx.o, await ctx.admin.call('GET', `/providers/${encodeURIComponent(id)}`));
    },
  },
  'provider update': {
    usage: `snapgate provider update <providerId> [--status active|disabled] [--name N] [--bank-code C] ${OUTBOUND_USAGE}`,
    options: { ...providerOptions, status: str },
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'provider id');
      const body = providerBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to update');
      printRecord(ctx.o, await ctx.admin.call('PATCH', `/providers/${encodeURIComponent(id)}`, body));
    },
  },
  'provider rotate-secret': {
    usage: 'snapgate provider rotate-secret <providerId> [--overlap-sec N]',
    options: { 'overlap-sec': str },
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'provider id');
      const path = `/providers/${encodeURIComponent(id)}/rotate-secret`;
      printRecord(ctx.o, await ctx.admin.call('POST', path, overlapBody(ctx.values)));
    },
  },
  'provider inbound': {
    usage: 'snapgate provider inbound <providerId> [--limit N] [--cursor C]',
    options: { limit: str, cursor: str },
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'provider id');
      const page = await ctx.admin.call<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
        'GET',
        `/providers/${encodeURIComponent(id)}/inbound${query(ctx.values, { limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, ['at', 'path', 'httpStatus', 'responseCode', 'durationMs']);
    },
  },
} satisfies Record<string, Command>);

const payerFlags = { 'payer-name': str, 'payer-issuer': str, 'payer-ref-id': str } as const;
function payerBody(values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (typeof values['payer-name'] === 'string') body.payerName = values['payer-name'];
  if (typeof values['payer-issuer'] === 'string') body.payerIssuer = values['payer-issuer'];
  if (typeof values['payer-ref-id'] === 'string') body.payerRefId = values['payer-ref-id'];
  return body;
}
const TXN_FIELDS = [
  'referenceNo',
  'kind',
  'partnerReferenceNo',
  'status',
  'statusDesc',
  'amount',
  'paidAmount',
  'virtualAccountNo',
  'paidAt',
];
const pickFields = (t: Record<string, unknown>) => Object.fromEntries(TXN_FIELDS.map((k) => [k, t[k]]));

const providerFlags = { 'provider-key': str, 'provider-secret': str, 'provider-private-key': str } as const;
const PROVIDER_USAGE = '[--provider-key K (--provider-secret S | --provider-private-key FILE)]';

/** `--provider-key …`: act as that provider against the gateway at --url, over its SNAP API. */
function providerTarget(ctx: Ctx): SnapTarget | undefined {
  const clientKey = ctx.values['provider-key'];
  const secret = ctx.values['provider-secret'];
  const privateKeyPem = readFlagFile(ctx.values, 'provider-private-key') ?? null;
  if (clientKey === undefined) {
    if (secret !== undefined || privateKeyPem !== null) throw new UsageError('--provider-key is required');
    return undefined;
  }
  if (typeof clientKey !== 'string' || (typeof secret !== 'string' && privateKeyPem === null)) {
    throw new UsageError('--provider-key needs --provider-secret or --provider-private-key');
  }
  // The transactional signature is always HMAC-SHA512 with the secret; a key alone signs only the token.
  if (typeof secret !== 'string') throw new UsageError('--provider-secret is required to sign the calls');
  return {
    id: 'cli',
    baseUrl: ctx.url,
    clientKey,
    clientSecret: secret,
    privateKeyPem,
    partnerId: clientKey,
    channelId: '95221',
  };
}

/** Runs the provider's calls with a one-off SNAP client and prints every answer; fails unless all are 2xx. */
async function asProvider(ctx: Ctx, work: (client: SnapClient) => Promise<SnapAnswer[]>): Promise<void> {
  const client = createSnapClient({ clock: systemClock, timeoutMs: 10_000 });
  try {
    const answers = await work(client);
    for (const a of answers) printRecord(ctx.o, a.body);
    const last = answers.at(-1);
    if (last?.httpStatus !== 200) throw new Error(`refused: ${last?.raw ?? 'no answer'}`);
  } catch (e) {
    if (e instanceof SnapCallFailed || e instanceof SnapCallTimeout) throw new Error(e.message);
    throw e;
  } finally {
    await client.close();
  }
}

const payerOf = (values: Values) => ({
  payerName: typeof values['payer-name'] === 'string' ? values['payer-name'] : 'SIMULATED PAYER',
  payerIssuer: typeof values['payer-issuer'] === 'string' ? values['payer-issuer'] : '93600009',
  payerRefId: typeof values['payer-ref-id'] === 'string' ? values['payer-ref-id'] : String(Date.now()),
});

Object.assign(commands, {
  'simulate qris': {
    usage: `snapgate simulate qris <referenceNo> | --qr-content S [--status 00|01|02|03|06] [--payer-name N] ${PROVIDER_USAGE} [--amount A]`,
    options: { 'qr-content': str, status: str, amount: str, ...payerFlags, ...providerFlags },
    async run(ctx: Ctx) {
      const body = payerBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      const qrContent = ctx.values['qr-content'];
      if (typeof qrContent === 'string' && ctx.positionals.length > 0) {
        throw new UsageError('give a referenceNo or --qr-content, not both');
      }
      const acquirer = providerTarget(ctx);
      if (acquirer) {
        const scanned = typeof qrContent === 'string' ? parseQrisContent(qrContent) : undefined;
        if (typeof qrContent === 'string' && !scanned) throw new UsageError('--qr-content is not a valid QRIS');
        const referenceNo = scanned?.referenceNo ?? onePositional(ctx, 'referenceNo');
        const amount = typeof ctx.values.amount === 'string' ? ctx.values.amount : scanned?.amount;
        if (amount === undefined)
          throw new UsageError('--amount is required with a referenceNo (an acquirer knows it)');
        const status = (body.status ?? '00') as TransactionStatus;
        if (!isTransactionStatus(status)) throw new UsageError('--status must be a SNAP status like 00');
        await asProvider(ctx, async (client) => [
          await notifyQrisAsAcquirer(client, acquirer, { referenceNo, amount, status, payer: payerOf(ctx.values) }),
        ]);
        return;
      }
      let path: string;
      if (typeof qrContent === 'string') {
        body.qrContent = qrContent;
        path = '/sandbox/qris/pay';
      } else {
        path = `/sandbox/qris/${encodeURIComponent(onePositional(ctx, 'referenceNo'))}/pay`;
      }
      const t = await ctx.admin.call<Record<string, unknown>>('POST', path, body);
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
  'simulate va': {
    usage: `snapgate simulate va <virtualAccountNo> [--amount 10000.00] [--payer-name N] ${PROVIDER_USAGE}`,
    options: { amount: str, ...payerFlags, ...providerFlags },
    async run(ctx: Ctx) {
      const body = payerBody(ctx.values);
      if (typeof ctx.values.amount === 'string') body.amount = ctx.values.amount;
      const vaNo = onePositional(ctx, 'virtualAccountNo');
      const bank = providerTarget(ctx);
      if (bank) {
        const amount = typeof ctx.values.amount === 'string' ? ctx.values.amount : undefined;
        await asProvider(ctx, async (client) => {
          const r = await payVaAsBank(client, bank, vaNo, { amount, payer: payerOf(ctx.values) });
          return r.payment ? [r.inquiry, r.payment] : [r.inquiry];
        });
        return;
      }
      const t = await ctx.admin.call<Record<string, unknown>>(
        'POST',
        `/sandbox/va/${encodeURIComponent(vaNo)}/pay`,
        body,
      );
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
} satisfies Record<string, Command>);

const NOTIFICATION_COLUMNS = [
  'id',
  'referenceNo',
  'kind',
  'latestTransactionStatus',
  'state',
  'attemptCount',
  'nextAttemptAt',
];
function query(values: Values, names: Record<string, string>): string {
  const q = new URLSearchParams();
  for (const [flag, param] of Object.entries(names)) {
    if (typeof values[flag] === 'string') q.set(param, values[flag]);
  }
  return q.size ? `?${q}` : '';
}

Object.assign(commands, {
  'notifications list': {
    usage: 'snapgate notifications list [--merchant ID] [--state dead] [--reference-no R] [--limit N] [--cursor C]',
    options: { merchant: str, state: str, 'reference-no': str, limit: str, cursor: str },
    async run(ctx: Ctx) {
      const qs = query(ctx.values, {
        merchant: 'merchantId',
        state: 'state',
        'reference-no': 'referenceNo',
        limit: 'limit',
        cursor: 'cursor',
      });
      const page = await ctx.admin.call<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
        'GET',
        `/notifications${qs}`,
      );
      printTable(ctx.o, page, NOTIFICATION_COLUMNS);
    },
  },
  'notifications show': {
    usage: 'snapgate notifications show <notificationId>',
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'notification id');
      printRecord(ctx.o, await ctx.admin.call('GET', `/notifications/${encodeURIComponent(id)}`));
    },
  },
  'notifications replay': {
    usage: 'snapgate notifications replay <notificationId>',
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'notification id');
      printRecord(ctx.o, await ctx.admin.call('POST', `/notifications/${encodeURIComponent(id)}/replay`));
    },
  },
  'notifications recover': {
    usage: 'snapgate notifications recover --merchant ID --since 2026-11-21T00:00:00+07:00',
    options: { merchant: str, since: str },
    async run(ctx: Ctx) {
      const { merchant, since } = ctx.values;
      if (typeof merchant !== 'string' || typeof since !== 'string')
        throw new UsageError('--merchant and --since are required');
      printRecord(ctx.o, await ctx.admin.call('POST', `/merchants/${encodeURIComponent(merchant)}/recover`, { since }));
    },
  },
  'report undelivered': {
    usage: 'snapgate report undelivered [--merchant ID]',
    options: { merchant: str },
    async run(ctx: Ctx) {
      const page = await ctx.admin.call<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
        'GET',
        `/reports/undelivered${query(ctx.values, { merchant: 'merchantId' })}`,
      );
      printTable(ctx.o, page, [
        'referenceNo',
        'merchantId',
        'latestTransactionStatus',
        'state',
        'attemptCount',
        'lastError',
        'createdAt',
      ]);
    },
  },
} satisfies Record<string, Command>);

Object.assign(commands, {
  'admin-key create': {
    usage: 'snapgate admin-key create --name ops-anna --scope read|operate|admin   (the key is shown once)',
    options: { name: str, scope: str },
    async run(ctx: Ctx) {
      const { name, scope } = ctx.values;
      if (typeof name !== 'string' || typeof scope !== 'string')
        throw new UsageError('--name and --scope are required');
      printRecord(ctx.o, await ctx.admin.call('POST', '/admin-keys', { name, scope }));
    },
  },
  'admin-key list': {
    usage: 'snapgate admin-key list',
    async run(ctx: Ctx) {
      const r = await ctx.admin.call<{ items: Record<string, unknown>[] }>('GET', '/admin-keys');
      printTable(ctx.o, { items: r.items, nextCursor: null }, [
        'id',
        'name',
        'scope',
        'createdAt',
        'lastUsedAt',
        'revokedAt',
      ]);
    },
  },
  'admin-key revoke': {
    usage: 'snapgate admin-key revoke <keyId>',
    async run(ctx: Ctx) {
      const id = onePositional(ctx, 'admin key id');
      printRecord(ctx.o, await ctx.admin.call('POST', `/admin-keys/${encodeURIComponent(id)}/revoke`));
    },
  },
  'audit list': {
    usage: 'snapgate audit list [--target ID] [--limit N] [--cursor C]',
    options: { target: str, limit: str, cursor: str },
    async run(ctx: Ctx) {
      const page = await ctx.admin.call<{ items: Record<string, unknown>[]; nextCursor: string | null }>(
        'GET',
        `/audit${query(ctx.values, { target: 'target', limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, ['at', 'keyName', 'address', 'action', 'target', 'httpStatus']);
    },
  },
  'keys status': {
    usage: 'snapgate keys status                which master key seals how many secrets',
    async run(ctx: Ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', '/keys'));
    },
  },
  'keys rotate': {
    usage: 'snapgate keys rotate                re-seal every secret under the current SNAPGATE_MASTER_KEY',
    async run(ctx: Ctx) {
      printRecord(ctx.o, await ctx.admin.call('POST', '/keys/rotate'));
    },
  },
} satisfies Record<string, Command>);

Object.assign(commands, {
  demo: {
    usage:
      'snapgate demo                       a sandbox gateway and the example merchant, a QRIS order paid end to end',
    async run(ctx: Ctx) {
      const { runDemo } = await import('./demo.ts');
      const code = await runDemo({ out: ctx.o.out, err: ctx.o.err });
      if (code !== 0) throw new Error('the demo order did not become PAID');
    },
  },
} satisfies Record<string, Command>);

export function usage(): string {
  return [
    'usage: snapgate <command> [options]',
    '',
    ...Object.values(commands).map((c) => `  ${c.usage}`),
    '',
    'global options: --url <gateway URL> (SNAPGATE_URL), --admin-token <token> (SNAPGATE_ADMIN_TOKEN), --json',
  ].join('\n');
}

const GLOBAL_OPTIONS = { url: str, 'admin-token': str, json: { type: 'boolean' }, help: { type: 'boolean' } } as const;

export interface MainIo {
  out?: (s: string) => void;
  err?: (s: string) => void;
  env?: Record<string, string | undefined>;
}

export async function main(argv: string[], io: MainIo = {}): Promise<number> {
  const out = io.out ?? ((s: string) => process.stdout.write(`${s}\n`));
  const err = io.err ?? ((s: string) => process.stderr.write(`${s}\n`));
  const words = argv.filter((a) => !a.startsWith('-'));
  const name = [`${words[0]} ${words[1]}`, words[0]].find((n) => n !== undefined && commands[n]);
  if (argv.includes('--help') || argv.length === 0) {
    out(usage());
    return argv.length === 0 ? 2 : 0;
  }
  const command = name ? commands[name] : undefined;
  if (!name || !command) {
    err(`snapgate: unknown command: ${words.slice(0, 2).join(' ') || argv.join(' ')}\n\n${usage()}`);
    return 2;
  }
  const rest = [...argv];
  for (const w of name.split(' ')) rest.splice(rest.indexOf(w), 1);
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    }) as { values: Values; positionals: string[] });
  } catch (e) {
    err(`snapgate ${name}: ${(e as Error).message}\nusage: ${command.usage}`);
    return 2;
  }
  const cfg = loadCliConfig(io.env ?? process.env);
  const url = typeof values.url === 'string' ? values.url.replace(/\/+$/, '') : cfg.url;
  const admin = createAdminClient(
    url,
    typeof values['admin-token'] === 'string' ? values['admin-token'] : cfg.adminToken,
  );
  const o: Output = { json: values.json === true, out, err };
  try {
    await command.run({ values, positionals, admin, url, o });
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`snapgate ${name}: ${e.message}\nusage: ${command.usage}`);
      return 2;
    }
    if (e instanceof AdminApiError) {
      if (o.json) out(JSON.stringify(e.body, null, 2));
      err(`snapgate ${name}: ${e.message}`);
      return 1;
    }
    err(`snapgate ${name}: ${(e as Error).message}`);
    return 1;
  }
}

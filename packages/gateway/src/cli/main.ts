import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { loadCliConfig } from '../config.ts';
import { AdminApiError, type AdminClient, createAdminClient } from './admin-client.ts';
import { type Output, printRecord, printTable } from './output.ts';

// Thin: parse args → call the admin API (or a service) → print. Exit 0 ok, 1 failure, 2 bad usage.
export class UsageError extends Error {}

type Values = Record<string, string | boolean | undefined>;
interface Ctx {
  values: Values;
  positionals: string[];
  admin: AdminClient;
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
  'merchant-name': 'merchantName',
  'merchant-city': 'merchantCity',
  nmid: 'nmid',
  mcc: 'mcc',
};
const merchantOptions = Object.fromEntries([
  ...Object.keys(merchantFields).map((k) => [k, str]),
  ['public-key-file', str],
]) as ParseArgsConfig['options'];

function merchantBody(values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(merchantFields)) {
    if (typeof values[flag] === 'string') body[field] = values[flag];
  }
  if (typeof values['public-key-file'] === 'string') {
    try {
      body.publicKeyPem = readFileSync(values['public-key-file'], 'utf8');
    } catch (e) {
      throw new UsageError(`cannot read --public-key-file: ${(e as Error).message}`);
    }
  }
  return body;
}

function onePositional(ctx: Ctx, what: string): string {
  const v = ctx.positionals[0];
  if (!v || ctx.positionals.length > 1) throw new UsageError(`expected exactly one ${what}`);
  return v;
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
      const body: Record<string, unknown> = {};
      if (typeof ctx.values['overlap-sec'] === 'string') {
        const n = Number(ctx.values['overlap-sec']);
        if (!Number.isInteger(n) || n < 0) throw new UsageError('--overlap-sec must be a whole number of seconds');
        body.overlapSec = n;
      }
      printRecord(ctx.o, await ctx.admin.call('POST', `/merchants/${encodeURIComponent(id)}/rotate-secret`, body));
    },
  },
};

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

Object.assign(commands, {
  'simulate qris': {
    usage: 'snapgate simulate qris <referenceNo> | --qr-content S [--status 00|01|02|03|06] [--payer-name N]',
    options: { 'qr-content': str, status: str, ...payerFlags },
    async run(ctx: Ctx) {
      const body = payerBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      let path: string;
      if (typeof ctx.values['qr-content'] === 'string') {
        if (ctx.positionals.length > 0) throw new UsageError('give a referenceNo or --qr-content, not both');
        body.qrContent = ctx.values['qr-content'];
        path = '/sandbox/qris/pay';
      } else {
        path = `/sandbox/qris/${encodeURIComponent(onePositional(ctx, 'referenceNo'))}/pay`;
      }
      const t = await ctx.admin.call<Record<string, unknown>>('POST', path, body);
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
  'simulate va': {
    usage: 'snapgate simulate va <virtualAccountNo> [--amount 10000.00] [--payer-name N]',
    options: { amount: str, ...payerFlags },
    async run(ctx: Ctx) {
      const body = payerBody(ctx.values);
      if (typeof ctx.values.amount === 'string') body.amount = ctx.values.amount;
      const vaNo = onePositional(ctx, 'virtualAccountNo');
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
  const admin = createAdminClient(
    typeof values.url === 'string' ? values.url.replace(/\/+$/, '') : cfg.url,
    typeof values['admin-token'] === 'string' ? values['admin-token'] : cfg.adminToken,
  );
  const o: Output = { json: values.json === true, out, err };
  try {
    await command.run({ values, positionals, admin, o });
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

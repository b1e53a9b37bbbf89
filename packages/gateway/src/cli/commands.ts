// Every snapgate command: its words, arguments, flags (with their meaning) and what it does.
// Thin: flags → a call to the admin API (or a service) → print. Built into a parser by main.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { isTransactionStatus, type TransactionStatus } from '@snapgate/snap';
import { systemClock } from '../clock.ts';
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
import type { AdminClient } from './admin-client.ts';
import { type Output, printRecord, printTable } from './output.ts';
import { parseDuration, parseSince } from './time.ts';

/** Bad usage: exit 2, with the command's usage. */
export class UsageError extends Error {}

/** Flag values by long name without the dashes (`'callback-base-url'`); a boolean flag is `true`. */
export type Values = Record<string, string | boolean | undefined>;
export interface Ctx {
  values: Values;
  positionals: string[];
  admin: AdminClient;
  /** The gateway's base URL (the provider simulator calls its SNAP API directly). */
  url: string;
  o: Output;
}
export interface FlagSpec {
  /** Commander syntax: `--name <name>` takes a value, `--wait` is a switch. */
  flags: string;
  description: string;
  /** Applied when the flag is absent, and shown in the help. */
  default?: string;
}
export interface CommandSpec {
  /** The words that name it: `merchant create`. */
  path: string;
  description: string;
  /** Commander syntax: `<merchantId>` required, `[referenceNo]` optional. */
  args?: string[];
  flags?: FlagSpec[];
  run(ctx: Ctx): Promise<void>;
}

/** The command groups (the first word), in the order the help lists them. */
export const GROUPS: Record<string, string> = {
  merchant: 'onboard and manage merchants',
  provider: 'banks and acquirers that call the gateway (and that it calls)',
  transactions: 'look at QRIS and VA transactions',
  notifications: 'callbacks to merchants: list, inspect, replay, recover',
  report: 'reports',
  simulate: 'pay in the sandbox (or act as a provider over the SNAP API)',
  keys: 'the master key that seals stored secrets',
  'admin-key': 'admin API keys',
  audit: 'who changed what, when, from where',
};

type Page = { items: Record<string, unknown>[]; nextCursor: string | null };

const flag = (flags: string, description: string, dflt?: string): FlagSpec =>
  dflt === undefined ? { flags, description } : { flags, description, default: dflt };
const PAGE_FLAGS = [
  flag('--limit <n>', 'how many to list, 1 to 500 (the gateway answers 50 when absent)'),
  flag('--cursor <cursor>', 'continue a list where the previous page ended (printed as "more: --cursor …")'),
];

/** Lists that grow with traffic: newest first, within a time range. */
const TIME_FLAGS = [
  flag('--since <time>', 'created at or after: a date (Jakarta midnight), an ISO time, or 2h / 30m / 7d ago'),
  flag('--until <time>', 'created before: same forms as --since'),
  flag('--oldest-first', 'list oldest first (the default is newest first)'),
];

/** The query parameters of TIME_FLAGS. */
function timeQuery(values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['since', 'until'] as const) {
    const v = values[name];
    if (typeof v !== 'string') continue;
    const t = parseSince(v);
    if (t === undefined) throw new UsageError(`--${name}: not a date, an ISO time or a duration like 2h: ${v}`);
    out[name] = t;
  }
  if (values['oldest-first'] === true) out.order = 'oldest';
  return out;
}

/** `query` plus the time range. */
function listQuery(values: Values, names: Record<string, string>): string {
  const q = new URLSearchParams(query(values, names).slice(1));
  for (const [k, v] of Object.entries(timeQuery(values))) q.set(k, v);
  return q.size ? `?${q}` : '';
}

function readFlagFile(values: Values, name: string): string | undefined {
  const path = values[name];
  if (typeof path !== 'string') return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --${name}: ${(e as Error).message}`);
  }
}

/** The request body a command's flags name: `--flag value` → `{ field: value }`. */
function bodyOf(values: Values, fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (typeof values[name] === 'string') body[field] = values[name];
  }
  return body;
}

function query(values: Values, names: Record<string, string>): string {
  const q = new URLSearchParams();
  for (const [name, param] of Object.entries(names)) {
    if (typeof values[name] === 'string') q.set(param, values[name]);
  }
  return q.size ? `?${q}` : '';
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
const OVERLAP_FLAG = flag(
  '--overlap-sec <seconds>',
  'how long the previous secret keeps working, 0 to 2592000 (the gateway answers 86400 when absent)',
);

const enc = encodeURIComponent;

// ── merchants ───────────────────────────────────────────────────────────────────────────────

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
const STATUS_FLAG = flag('--status <status>', 'active or disabled');

const merchantCommands: CommandSpec[] = [
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
const providerFlags = (creating: boolean): FlagSpec[] => {
  const req = creating ? ' (required)' : '';
  return [
    flag('--name <name>', `the provider's name, 1 to 100 characters${req}`),
    ...(creating ? [flag('--kind <kind>', `bank or acquirer${req}`)] : []),
    flag('--bank-code <code>', `3 digits; one active bank per code${req}`),
    flag('--public-key-file <file>', 'a PEM RSA public key (2048 bits or more) for its token signatures'),
    flag('--outbound-base-url <url>', "acquirers: the acquirer's origin the gateway calls"),
    flag('--outbound-client-key <key>', 'acquirers: the client key the gateway holds at the acquirer'),
    flag('--outbound-client-secret <secret>', 'acquirers: the client secret the gateway holds at the acquirer'),
    flag('--outbound-partner-id <id>', 'acquirers: the partner id the gateway uses at the acquirer'),
    flag('--outbound-private-key-file <file>', 'acquirers: sign token requests SHA256withRSA with this PEM key'),
    flag('--outbound-channel-id <id>', 'acquirers: CHANNEL-ID, at most 5 characters (default: 95221)'),
    flag('--outbound-token-path <path>', 'acquirers: token path (default: /api/snap/v1.0/access-token/b2b)'),
    flag('--outbound-path-prefix <path>', 'acquirers: prefix of the SNAP paths (default: /api/snap/v1.0)'),
  ];
};

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

const providerCommands: CommandSpec[] = [
  {
    path: 'provider create',
    description: 'register a bank or an acquirer (its client secret is shown once)',
    flags: providerFlags(true),
    async run(ctx) {
      const body = providerBody(ctx.values);
      for (const name of ['name', 'kind', 'bank-code']) {
        if (typeof ctx.values[name] !== 'string') throw new UsageError(`--${name} is required`);
      }
      printRecord(ctx.o, await ctx.admin.call('POST', '/providers', body));
      if (!ctx.o.json) ctx.o.err('The client secret is shown once: give it to the provider now.');
    },
  },
  {
    path: 'provider list',
    description: 'list providers',
    flags: PAGE_FLAGS,
    async run(ctx) {
      const page = await ctx.admin.call<Page>(
        'GET',
        `/providers${query(ctx.values, { limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, PROVIDER_COLUMNS);
    },
  },
  {
    path: 'provider show',
    description: 'show one provider',
    args: ['<providerId>'],
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', `/providers/${enc(onePositional(ctx, 'provider id'))}`));
    },
  },
  {
    path: 'provider update',
    description: "change a provider's settings, or disable it",
    args: ['<providerId>'],
    flags: [STATUS_FLAG, ...providerFlags(false)],
    async run(ctx) {
      const id = onePositional(ctx, 'provider id');
      const body = providerBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to update');
      printRecord(ctx.o, await ctx.admin.call('PATCH', `/providers/${enc(id)}`, body));
    },
  },
  {
    path: 'provider rotate-secret',
    description: 'issue a new client secret (shown once)',
    args: ['<providerId>'],
    flags: [OVERLAP_FLAG],
    async run(ctx) {
      const id = onePositional(ctx, 'provider id');
      printRecord(ctx.o, await ctx.admin.call('POST', `/providers/${enc(id)}/rotate-secret`, overlapBody(ctx.values)));
    },
  },
  {
    path: 'provider inbound',
    description: "the log of the provider's calls to the gateway",
    args: ['<providerId>'],
    flags: PAGE_FLAGS,
    async run(ctx) {
      const id = onePositional(ctx, 'provider id');
      const page = await ctx.admin.call<Page>(
        'GET',
        `/providers/${enc(id)}/inbound${query(ctx.values, { limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, ['at', 'path', 'httpStatus', 'responseCode', 'durationMs']);
    },
  },
];

// ── transactions ────────────────────────────────────────────────────────────────────────────

const TRANSACTION_COLUMNS = [
  'referenceNo',
  'merchantId',
  'kind',
  'partnerReferenceNo',
  'status',
  'amount',
  'paidAt',
  'createdAt',
];

const transactionCommands: CommandSpec[] = [
  {
    path: 'transactions list',
    description: 'list transactions, newest first',
    flags: [
      flag('--merchant <merchantId>', "only this merchant's"),
      flag(
        '--status <status>',
        'only this SNAP status: 00 success, 01 initiated, 02 paying, 03 pending, 04 refunded, 05 canceled, 06 failed',
      ),
      flag('--kind <kind>', 'only qris or va'),
      flag('--reference <ref>', 'the referenceNo, partnerReferenceNo, trxId or virtual account number'),
      ...TIME_FLAGS,
      ...PAGE_FLAGS,
    ],
    async run(ctx) {
      const qs = listQuery(ctx.values, {
        merchant: 'merchantId',
        status: 'status',
        kind: 'kind',
        reference: 'reference',
        limit: 'limit',
        cursor: 'cursor',
      });
      printTable(ctx.o, await ctx.admin.call<Page>('GET', `/transactions${qs}`), TRANSACTION_COLUMNS);
    },
  },
  {
    path: 'transactions show',
    description: 'show one transaction, its status history and its notifications',
    args: ['<referenceNo>'],
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', `/transactions/${enc(onePositional(ctx, 'referenceNo'))}`));
    },
  },
];

// ── simulate ────────────────────────────────────────────────────────────────────────────────

const PAYER_FLAGS = [
  flag('--payer-name <name>', "the payer's name (default: SIMULATED PAYER)"),
  flag('--payer-issuer <code>', "the payer's issuer (default: 93600009)"),
  flag('--payer-ref-id <id>', "the payer's reference (default: the current time in milliseconds)"),
];
function payerBody(values: Values): Record<string, unknown> {
  return bodyOf(values, { 'payer-name': 'payerName', 'payer-issuer': 'payerIssuer', 'payer-ref-id': 'payerRefId' });
}
const payerOf = (values: Values) => ({
  payerName: typeof values['payer-name'] === 'string' ? values['payer-name'] : 'SIMULATED PAYER',
  payerIssuer: typeof values['payer-issuer'] === 'string' ? values['payer-issuer'] : '93600009',
  payerRefId: typeof values['payer-ref-id'] === 'string' ? values['payer-ref-id'] : String(Date.now()),
});
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

const PROVIDER_FLAGS = [
  flag('--provider-key <clientKey>', 'act as this provider over the SNAP API at --url (not the sandbox shortcut)'),
  flag('--provider-secret <secret>', "the provider's client secret (signs the calls)"),
  flag('--provider-private-key <file>', "the provider's PEM private key (signs the token request SHA256withRSA)"),
];

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

const simulateCommands: CommandSpec[] = [
  {
    path: 'simulate qris',
    description: 'pay a QRIS, by its referenceNo or its scanned --qr-content',
    args: ['[referenceNo]'],
    flags: [
      flag('--qr-content <qr>', 'the QRIS text, instead of a referenceNo'),
      flag('--status <status>', 'the SNAP status to report: 00 paid, 01, 02, 03 or 06 (default: 00)'),
      flag('--amount <amount>', 'the amount, like 10000.00 (with --provider-key and a referenceNo: required)'),
      ...PAYER_FLAGS,
      ...PROVIDER_FLAGS,
    ],
    async run(ctx) {
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
        path = `/sandbox/qris/${enc(onePositional(ctx, 'referenceNo'))}/pay`;
      }
      const t = await ctx.admin.call<Record<string, unknown>>('POST', path, body);
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
  {
    path: 'simulate va',
    description: 'pay a virtual account',
    args: ['<virtualAccountNo>'],
    flags: [
      flag('--amount <amount>', 'the amount paid, like 10000.00 (default: the amount due)'),
      ...PAYER_FLAGS,
      ...PROVIDER_FLAGS,
    ],
    async run(ctx) {
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
      const t = await ctx.admin.call<Record<string, unknown>>('POST', `/sandbox/va/${enc(vaNo)}/pay`, body);
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
];

// ── notifications ───────────────────────────────────────────────────────────────────────────

const NOTIFICATION_COLUMNS = [
  'id',
  'referenceNo',
  'kind',
  'latestTransactionStatus',
  'state',
  'attemptCount',
  'nextAttemptAt',
];

interface Attempt {
  attemptNo?: number;
  outcome?: string;
  responseStatus?: number | null;
  durationMs?: number | null;
  error?: string | null;
  [k: string]: unknown;
}
type NotificationDetail = Record<string, unknown> & { attempts?: Attempt[] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Replays, then (with --wait) polls until the replay's attempt is recorded. Fails unless it was acknowledged. */
async function replay(ctx: Ctx): Promise<void> {
  const id = onePositional(ctx, 'notification id');
  const path = `/notifications/${enc(id)}`;
  const wait = ctx.values.wait === true;
  let timeoutMs = 0;
  if (wait) {
    const t = parseDuration(String(ctx.values.timeout ?? '30s'));
    if (t === undefined || t <= 0) throw new UsageError('--timeout must be a duration like 30s, 2m or 500ms');
    timeoutMs = t;
  }
  const before = wait ? ((await ctx.admin.call<NotificationDetail>('GET', path)).attempts?.length ?? 0) : 0;
  const replayed = await ctx.admin.call<Record<string, unknown>>('POST', `${path}/replay`);
  if (!wait) {
    printRecord(ctx.o, replayed);
    return;
  }
  if (!ctx.o.json)
    ctx.o.out(`${formatReplayed(replayed)}\nwaiting for the attempt (up to ${ctx.values.timeout ?? '30s'})…`);
  const deadline = Date.now() + timeoutMs;
  let attempt: Attempt | undefined;
  for (;;) {
    const detail = await ctx.admin.call<NotificationDetail>('GET', path);
    attempt = detail.attempts?.[before];
    if (attempt?.outcome) break;
    if (Date.now() >= deadline) break;
    await sleep(Math.min(250, Math.max(10, deadline - Date.now())));
  }
  if (ctx.o.json) ctx.o.out(JSON.stringify({ replayed, attempt: attempt ?? null }, null, 2));
  if (!attempt?.outcome) throw new Error(`no new attempt was recorded within ${ctx.values.timeout ?? '30s'}`);
  if (!ctx.o.json) ctx.o.out(describeAttempt(attempt));
  if (attempt.outcome !== 'acknowledged') throw new Error(`attempt ${attempt.attemptNo ?? ''} was not acknowledged`);
}

function formatReplayed(n: Record<string, unknown>): string {
  return `replayed ${String(n.id)} (${String(n.referenceNo)}, status ${String(n.latestTransactionStatus)})`;
}

function describeAttempt(a: Attempt): string {
  const http = typeof a.responseStatus === 'number' ? `HTTP ${a.responseStatus}` : 'no answer';
  const took = typeof a.durationMs === 'number' ? ` in ${a.durationMs} ms` : '';
  const why = a.error ? `: ${a.error}` : '';
  return `attempt ${a.attemptNo ?? '?'}: ${a.outcome} (${http}${took})${why}`;
}

const SINCE_HELP =
  'from when: a date (2026-11-22, midnight Asia/Jakarta), an ISO time (2026-11-22T10:00:00+07:00; without an offset, Jakarta time), or a time before now (2h, 30m, 7d)';

const notificationCommands: CommandSpec[] = [
  {
    path: 'notifications list',
    description: 'list notifications (callbacks), newest first',
    flags: [
      flag('--merchant <merchantId>', "only this merchant's"),
      flag('--state <state>', 'only this state: pending, delivering, retrying, delivered, superseded or dead'),
      flag('--reference-no <referenceNo>', "only this transaction's"),
      ...TIME_FLAGS,
      ...PAGE_FLAGS,
    ],
    async run(ctx) {
      const qs = listQuery(ctx.values, {
        merchant: 'merchantId',
        state: 'state',
        'reference-no': 'referenceNo',
        limit: 'limit',
        cursor: 'cursor',
      });
      printTable(ctx.o, await ctx.admin.call<Page>('GET', `/notifications${qs}`), NOTIFICATION_COLUMNS);
    },
  },
  {
    path: 'notifications show',
    description: 'show a notification with every attempt',
    args: ['<notificationId>'],
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', `/notifications/${enc(onePositional(ctx, 'notification id'))}`));
    },
  },
  {
    path: 'notifications replay',
    description: 'send a notification again: fresh timestamp and signature, same X-EXTERNAL-ID',
    args: ['<notificationId>'],
    flags: [
      flag('--wait', 'wait for the attempt and print its outcome (exit 1 unless acknowledged)'),
      flag('--timeout <duration>', 'with --wait: how long to wait, like 30s, 2m or 500ms', '30s'),
    ],
    run: replay,
  },
  {
    path: 'notifications recover',
    description: "re-queue a merchant's dead notifications",
    flags: [
      flag('--merchant <merchantId>', 'the merchant (required)'),
      flag('--since <time>', `${SINCE_HELP} (required)`),
    ],
    async run(ctx) {
      const { merchant, since } = ctx.values;
      if (typeof merchant !== 'string' || typeof since !== 'string')
        throw new UsageError('--merchant and --since are required');
      const iso = parseSince(since);
      if (iso === undefined) throw new UsageError(`--since: not a date, an ISO time or a duration like 2h: ${since}`);
      printRecord(ctx.o, await ctx.admin.call('POST', `/merchants/${enc(merchant)}/recover`, { since: iso }));
    },
  },
  {
    path: 'report undelivered',
    description: 'transactions whose newest notification is not delivered',
    flags: [flag('--merchant <merchantId>', "only this merchant's")],
    async run(ctx) {
      const page = await ctx.admin.call<Page>(
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
];

// ── keys, admin keys, audit ─────────────────────────────────────────────────────────────────

const adminCommands: CommandSpec[] = [
  {
    path: 'admin-key create',
    description: 'create an admin API key (shown once; stored hashed)',
    flags: [
      flag('--name <name>', 'who or what uses it, like ops-anna (required)'),
      flag('--scope <scope>', 'read (every GET), operate (also replay, recover, sandbox pay) or admin (required)'),
    ],
    async run(ctx) {
      const { name, scope } = ctx.values;
      if (typeof name !== 'string' || typeof scope !== 'string')
        throw new UsageError('--name and --scope are required');
      printRecord(ctx.o, await ctx.admin.call('POST', '/admin-keys', { name, scope }));
    },
  },
  {
    path: 'admin-key list',
    description: 'list admin API keys',
    async run(ctx) {
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
  {
    path: 'admin-key revoke',
    description: 'revoke an admin API key',
    args: ['<keyId>'],
    async run(ctx) {
      const id = onePositional(ctx, 'admin key id');
      printRecord(ctx.o, await ctx.admin.call('POST', `/admin-keys/${enc(id)}/revoke`));
    },
  },
  {
    path: 'audit list',
    description: 'the audit log of admin API changes',
    flags: [flag('--target <id>', 'only changes to this object'), ...PAGE_FLAGS],
    async run(ctx) {
      const page = await ctx.admin.call<Page>(
        'GET',
        `/audit${query(ctx.values, { target: 'target', limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, ['at', 'keyName', 'address', 'action', 'target', 'httpStatus']);
    },
  },
  {
    path: 'keys status',
    description: 'which master key seals how many secrets',
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', '/keys'));
    },
  },
  {
    path: 'keys rotate',
    description: 're-seal every secret under the current SNAPGATE_MASTER_KEY',
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('POST', '/keys/rotate'));
    },
  },
];

// ── the gateway itself ──────────────────────────────────────────────────────────────────────

const processCommands: CommandSpec[] = [
  {
    path: 'serve',
    description: 'start the gateway (settings from SNAPGATE_* variables)',
    async run() {
      const { serve } = await import('../main.ts');
      await serve();
      await new Promise(() => undefined); // runs until a signal stops it
    },
  },
  {
    path: 'certify',
    description:
      "webhook certification (sandbox): a merchant's callback endpoint must acknowledge true notifications and refuse forged ones; exit 1 if any fails",
    flags: [
      flag('--merchant <id>', 'the merchant to certify'),
      flag('--qris <referenceNos>', 'two unpaid QRIS referenceNos, comma-separated (default: its newest two)'),
      flag('--va <number>', 'an unpaid VA: its number or referenceNo (default: its newest)'),
      flag('--create', 'create the transactions itself (its system will not know those orders)'),
      flag('--junit <file>', 'also write a JUnit XML report to this file'),
    ],
    async run(ctx) {
      const { values, o } = ctx;
      const { formatJson, formatJunit, formatText } = await import('../certification/index.ts');
      const merchantId = values.merchant;
      if (typeof merchantId !== 'string') throw new UsageError('--merchant is required');
      const body: Record<string, unknown> = {};
      if (typeof values.qris === 'string') {
        body.qris = values.qris
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
      }
      if (typeof values.va === 'string') body.va = values.va;
      if (values.create === true) body.create = true;
      const report = await ctx.admin.call<import('../certification/index.ts').CertificationReport>(
        'POST',
        `/merchants/${enc(merchantId)}/certifications`,
        body,
      );
      if (typeof values.junit === 'string') writeFileSync(values.junit, formatJunit(report));
      o.out((o.json ? formatJson(report) : formatText(report)).trimEnd());
      if (!report.ok) throw new Error(`${report.failed} of ${report.total} scenarios failed`);
    },
  },
  {
    path: 'conformance',
    description:
      'check a SNAP server (this gateway or a sandbox) with positive and negative scenarios; exit 1 if any fails',
    flags: [
      flag('--client-key <key>', 'the client key to take tokens with (X-CLIENT-KEY)'),
      flag(
        '--client-secret <secret>',
        'the client secret: signs the token (HMAC-SHA256) and every payment call (HMAC-SHA512)',
      ),
      flag('--private-key <file>', 'a PEM private key: sign the token request SHA256withRSA instead'),
      flag('--partner-id <id>', 'X-PARTNER-ID of payment calls'),
      flag('--channel-id <id>', 'CHANNEL-ID of payment calls', '95221'),
      flag('--junit <file>', 'also write a JUnit XML report to this file'),
    ],
    async run({ values, url, o }) {
      const { formatJson, formatJunit, formatText, runConformance } = await import('../conformance/index.ts');
      const clientKey = values['client-key'];
      const partnerId = values['partner-id'];
      const secret = values['client-secret'];
      const privateKeyPem = readFlagFile(values, 'private-key');
      if (typeof clientKey !== 'string' || typeof partnerId !== 'string') {
        throw new UsageError('--client-key and --partner-id are required');
      }
      if (typeof secret !== 'string' && privateKeyPem === undefined) {
        throw new UsageError('give --client-secret (and --private-key to sign the token request with RSA)');
      }
      const report = await runConformance({
        url,
        clientKey,
        partnerId,
        channelId: String(values['channel-id'] ?? '95221'),
        ...(typeof secret === 'string' ? { clientSecret: secret } : {}),
        ...(privateKeyPem ? { privateKeyPem } : {}),
      });
      if (typeof values.junit === 'string') writeFileSync(values.junit, formatJunit(report));
      o.out((o.json ? formatJson(report) : formatText(report)).trimEnd());
      if (!report.ok) throw new Error(`${report.failed} of ${report.total} scenarios failed`);
    },
  },
  {
    path: 'demo',
    description: 'a sandbox gateway and the example merchant, a QRIS order paid end to end',
    async run(ctx) {
      const { runDemo } = await import('./demo.ts');
      const code = await runDemo({ out: ctx.o.out, err: ctx.o.err });
      if (code !== 0) throw new Error('the demo order did not become PAID');
    },
  },
];

export const COMMANDS: CommandSpec[] = [
  ...processCommands,
  ...merchantCommands,
  ...providerCommands,
  ...transactionCommands,
  ...notificationCommands,
  ...simulateCommands,
  ...adminCommands,
];

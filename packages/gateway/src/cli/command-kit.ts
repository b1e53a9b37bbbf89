// What every snapgate command is made of: the spec types, shared flags and the small parsers.
import { readFileSync } from 'node:fs';
import type { AdminClient } from './admin-client.ts';
import { type Output, printRecord, printTable } from './output.ts';
import { parseSince } from './time.ts';

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
  ledger: 'the books: verify the ledger, list its entries',
  settlement: 'settle merchants, report and record payouts',
  payout: 'payouts through the bank: list, show, approve, reject',
  notifications: 'callbacks to merchants: list, inspect, replay, recover',
  report: 'reports',
  simulate: 'pay in the sandbox (or act as a provider over the SNAP API)',
  keys: 'the master key that seals stored secrets',
  'admin-key': 'admin API keys',
  audit: 'who changed what, when, from where',
};

export type Page = { items: Record<string, unknown>[]; nextCursor: string | null };

export const flag = (flags: string, description: string, dflt?: string): FlagSpec =>
  dflt === undefined ? { flags, description } : { flags, description, default: dflt };
export const PAGE_FLAGS = [
  flag('--limit <n>', 'how many to list, 1 to 500 (the gateway answers 50 when absent)'),
  flag('--cursor <cursor>', 'continue a list where the previous page ended (printed as "more: --cursor …")'),
];

/** Every list that is newest first: `--oldest-first` turns it around (`order=oldest`). */
const ORDER_FLAG = flag('--oldest-first', 'list oldest first (the default is newest first)');
const isOldestFirst = (values: Values) => values['oldest-first'] === true;

/** Lists that grow with traffic: newest first, within a time range. */
export const TIME_FLAGS = [
  flag('--since <time>', 'created at or after: a date (Jakarta midnight), an ISO time, or 2h / 30m / 7d ago'),
  flag('--until <time>', 'created before: same forms as --since'),
  ORDER_FLAG,
];

/** The query parameters of TIME_FLAGS. */
export function timeQuery(values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['since', 'until'] as const) {
    const v = values[name];
    if (typeof v !== 'string') continue;
    const t = parseSince(v);
    if (t === undefined) throw new UsageError(`--${name}: not a date, an ISO time or a duration like 2h: ${v}`);
    out[name] = t;
  }
  if (isOldestFirst(values)) out.order = 'oldest';
  return out;
}

/** `query` plus the time range. */
export function listQuery(values: Values, names: Record<string, string>): string {
  const q = new URLSearchParams(query(values, names).slice(1));
  for (const [k, v] of Object.entries(timeQuery(values))) q.set(k, v);
  return q.size ? `?${q}` : '';
}

export function readFlagFile(values: Values, name: string): string | undefined {
  const path = values[name];
  if (typeof path !== 'string') return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read --${name}: ${(e as Error).message}`);
  }
}

/** The request body a command's flags name: `--flag value` → `{ field: value }`. */
export function bodyOf(values: Values, fields: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(fields)) {
    if (typeof values[name] === 'string') body[field] = values[name];
  }
  return body;
}

export function query(values: Values, names: Record<string, string>): string {
  const q = new URLSearchParams();
  for (const [name, param] of Object.entries(names)) {
    if (typeof values[name] === 'string') q.set(param, values[name]);
  }
  return q.size ? `?${q}` : '';
}

export function onePositional(ctx: Ctx, what: string): string {
  const v = ctx.positionals[0];
  if (!v || ctx.positionals.length > 1) throw new UsageError(`expected exactly one ${what}`);
  return v;
}

export function overlapBody(values: Values): Record<string, unknown> {
  if (typeof values['overlap-sec'] !== 'string') return {};
  const n = Number(values['overlap-sec']);
  if (!Number.isInteger(n) || n < 0) throw new UsageError('--overlap-sec must be a whole number of seconds');
  return { overlapSec: n };
}
export const OVERLAP_FLAG = flag(
  '--overlap-sec <seconds>',
  'how long the previous secret keeps working, 0 to 2592000 (the gateway answers 86400 when absent)',
);

export const enc = encodeURIComponent;

// ── merchants ───────────────────────────────────────────────────────────────────────────────

export const STATUS_FLAG = flag('--status <status>', 'active or disabled');

/** What a kind of client (merchant, provider) needs for the commands both kinds have alike. */
export interface ClientKind {
  /** `merchant`: the command word and how a message names one. */
  noun: string;
  /** `/merchants`: the admin API's collection. */
  collection: string;
  columns: string[];
  updateFlags: FlagSpec[];
  bodyOf(values: Values): Record<string, unknown>;
}

/** `<noun> list`, `show`, `update` and `rotate-secret`, alike for merchants and providers. */
export function clientCommands(k: ClientKind): CommandSpec[] {
  const idArg = `<${k.noun}Id>`;
  const label = `${k.noun} id`;
  return [
    {
      path: `${k.noun} list`,
      description: `list ${k.collection.slice(1)}`,
      flags: [...PAGE_FLAGS, ORDER_FLAG],
      async run(ctx) {
        const q = new URLSearchParams(query(ctx.values, { limit: 'limit', cursor: 'cursor' }).slice(1));
        if (isOldestFirst(ctx.values)) q.set('order', 'oldest');
        const page = await ctx.admin.call<Page>('GET', `${k.collection}${q.size ? `?${q}` : ''}`);
        printTable(ctx.o, page, k.columns);
      },
    },
    {
      path: `${k.noun} show`,
      description: `show one ${k.noun}`,
      args: [idArg],
      async run(ctx) {
        printRecord(ctx.o, await ctx.admin.call('GET', `${k.collection}/${enc(onePositional(ctx, label))}`));
      },
    },
    {
      path: `${k.noun} update`,
      description: `change a ${k.noun}'s settings, or disable it`,
      args: [idArg],
      flags: [STATUS_FLAG, ...k.updateFlags],
      async run(ctx) {
        const id = onePositional(ctx, label);
        const body = k.bodyOf(ctx.values);
        if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
        if (Object.keys(body).length === 0) throw new UsageError('nothing to update');
        printRecord(ctx.o, await ctx.admin.call('PATCH', `${k.collection}/${enc(id)}`, body));
      },
    },
    {
      path: `${k.noun} rotate-secret`,
      description: 'issue a new client secret (shown once)',
      args: [idArg],
      flags: [OVERLAP_FLAG],
      async run(ctx) {
        const id = onePositional(ctx, label);
        printRecord(
          ctx.o,
          await ctx.admin.call('POST', `${k.collection}/${enc(id)}/rotate-secret`, overlapBody(ctx.values)),
        );
      },
    },
  ];
}

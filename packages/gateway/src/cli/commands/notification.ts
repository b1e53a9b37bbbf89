import {
  type CommandSpec,
  type Ctx,
  enc,
  flag,
  listQuery,
  onePositional,
  PAGE_FLAGS,
  type Page,
  query,
  TIME_FLAGS,
  UsageError,
} from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';
import { parseDuration, parseSince } from '../time.ts';

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

export const notificationCommands: CommandSpec[] = [
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

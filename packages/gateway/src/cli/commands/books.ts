import { readFileSync } from 'node:fs';
import { type CommandSpec, enc, flag, onePositional, query, UsageError } from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';

// The books (docs/books.md): balances, the ledger's verification, settlements and payouts,
// reconciliation against a provider's report.

const SETTLEMENT_COLUMNS = [
  'id',
  'merchantId',
  'status',
  'cutoff',
  'count',
  'gross',
  'fees',
  'refunds',
  'net',
  'bankReference',
];

interface Verification {
  ok: boolean;
  entries: number;
  problems: Array<{ type: string; message: string }>;
  mode?: 'incremental' | 'full';
  read?: number;
}

export const bookCommands: CommandSpec[] = [
  {
    path: 'merchant balance',
    description: "a merchant's balance: pending, settling, paid out, fees charged",
    args: ['<merchantId>'],
    async run(ctx) {
      printRecord(ctx.o, await ctx.admin.call('GET', `/merchants/${enc(onePositional(ctx, 'merchant id'))}/balance`));
    },
  },
  {
    path: 'ledger verify',
    description: 'check the books (what is new since the last clean check; --full: everything); exit 1 on a problem',
    flags: [flag('--full', 'check the whole journal and every invariant (takes longer as the books grow)')],
    async run(ctx) {
      const v = await ctx.admin.call<Verification>(
        'GET',
        ctx.values.full === true ? '/ledger/verify?full=true' : '/ledger/verify',
      );
      if (ctx.o.json) ctx.o.out(JSON.stringify(v, null, 2));
      else {
        const read = v.mode === 'incremental' ? ` (${v.read ?? 0} read since the last clean check)` : '';
        ctx.o.out(`${v.entries} entries${read}: ${v.ok ? 'ok' : `${v.problems.length} problem(s)`}`);
        for (const p of v.problems) ctx.o.out(`  ${p.type}: ${p.message}`);
      }
      if (!v.ok) throw new Error(`the ledger has ${v.problems.length} problem(s)`);
    },
  },
  {
    path: 'ledger entries',
    description: 'list ledger entries, newest first',
    flags: [
      flag('--merchant <merchantId>', "only this merchant's"),
      flag('--reference <referenceNo>', "only this transaction's"),
      flag('--kind <kind>', 'only payment, refund, settlement, payout, disbursement, disbursement_paid or …_returned'),
      flag('--limit <n>', 'how many to list, 1 to 500 (the gateway answers 50 when absent)'),
      flag('--cursor <cursor>', 'continue a list where the previous page ended'),
    ],
    async run(ctx) {
      const qs = query(ctx.values, {
        merchant: 'merchantId',
        reference: 'referenceNo',
        kind: 'kind',
        limit: 'limit',
        cursor: 'cursor',
      });
      const page = await ctx.admin.call<{ items: Array<Record<string, unknown>>; nextCursor: string | null }>(
        'GET',
        `/ledger/entries${qs}`,
      );
      // --json: the entries as the admin API answers them, lines and all.
      if (ctx.o.json) return ctx.o.out(JSON.stringify(page, null, 2));
      const rows = page.items.map((e) => ({
        ...e,
        lines: (e.lines as Array<{ account: string; debit: string; credit: string }>)
          .map((l) => `${l.account} ${l.debit !== '0.00' ? `Dr ${l.debit}` : `Cr ${l.credit}`}`)
          .join('; '),
      }));
      printTable(ctx.o, { items: rows, nextCursor: page.nextCursor }, [
        'id',
        'at',
        'kind',
        'merchantId',
        'referenceNo',
        'lines',
      ]);
    },
  },
  {
    path: 'settlement run',
    description: "settle now: each merchant's (or one's) unsettled payments and refunds before the cutoff",
    flags: [
      flag('--merchant <merchantId>', 'only this merchant'),
      flag('--cutoff <time>', 'entries before this ISO time (default: now)'),
    ],
    async run(ctx) {
      const body: Record<string, unknown> = {};
      if (typeof ctx.values.merchant === 'string') body.merchantId = ctx.values.merchant;
      if (typeof ctx.values.cutoff === 'string') body.cutoff = ctx.values.cutoff;
      printTable(ctx.o, await ctx.admin.call('POST', '/settlements', body), SETTLEMENT_COLUMNS);
    },
  },
  {
    path: 'settlement list',
    description: 'list settlements, newest first',
    flags: [flag('--merchant <merchantId>', "only this merchant's"), flag('--status <status>', 'open or paid')],
    async run(ctx) {
      const qs = query(ctx.values, { merchant: 'merchantId', status: 'status' });
      printTable(ctx.o, await ctx.admin.call('GET', `/settlements${qs}`), SETTLEMENT_COLUMNS);
    },
  },
  {
    path: 'settlement show',
    description: 'show a settlement and its entries; --csv prints its report',
    args: ['<settlementId>'],
    flags: [flag('--csv', 'print the settlement report (CSV) instead')],
    async run(ctx) {
      const id = enc(onePositional(ctx, 'settlement id'));
      if (ctx.values.csv === true)
        ctx.o.out(String(await ctx.admin.call('GET', `/settlements/${id}/report.csv`)).trimEnd());
      else printRecord(ctx.o, await ctx.admin.call('GET', `/settlements/${id}`));
    },
  },
  {
    path: 'settlement payout',
    description:
      'record a settlement paid out, with the bank reference of the transfer; or --bank: transfer it through the payout bank',
    args: ['<settlementId>'],
    flags: [
      flag('--bank-reference <ref>', "the bank's reference of the transfer to the merchant"),
      flag('--bank', "transfer the net to the merchant's verified account through the payout bank (docs/payouts.md)"),
    ],
    async run(ctx) {
      const id = enc(onePositional(ctx, 'settlement id'));
      const ref = ctx.values['bank-reference'];
      const isThroughBank = ctx.values.bank === true;
      if (isThroughBank === (typeof ref === 'string'))
        throw new UsageError('either --bank-reference <ref> or --bank is required');
      const body = isThroughBank ? {} : { bankReference: ref };
      printRecord(ctx.o, await ctx.admin.call('POST', `/settlements/${id}/payout`, body));
    },
  },
  {
    path: 'reconcile',
    description: "set a provider's report (CSV, or JSON {items}) against the gateway's records; exit 1 on a problem",
    args: ['<providerId>', '<file>'],
    flags: [flag('--apply', 'also apply each payment missing at the gateway (as if the provider had notified it)')],
    async run(ctx) {
      const [providerId, file] = ctx.positionals;
      if (!providerId || !file || ctx.positionals.length > 2) throw new UsageError('expected a provider id and a file');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
      }
      const isJson = /\.json$/i.test(file) || text.trimStart().startsWith('{');
      type Problem = Record<string, unknown>;
      const { nextCursor, ...run } = await ctx.admin.send<{
        id: string;
        matched: number;
        lines: number;
        problems: Problem[];
        nextCursor?: string | null;
      }>('POST', `/providers/${enc(providerId)}/reconciliations`, text, isJson ? 'application/json' : 'text/csv');
      // The run answers its first page of problems: the rest are read a page at a time.
      for (let cursor = nextCursor; cursor; ) {
        const page = await ctx.admin.call<{ items: Problem[]; nextCursor: string | null }>(
          'GET',
          `/reconciliations/${enc(run.id)}/problems?limit=500&cursor=${encodeURIComponent(cursor)}`,
        );
        for (const p of page.items) run.problems.push(p);
        cursor = page.nextCursor;
      }
      if (ctx.o.json) ctx.o.out(JSON.stringify(run, null, 2));
      else {
        ctx.o.out(
          `reconciliation ${run.id}: ${run.lines} lines, ${run.matched} matched, ${run.problems.length} problem(s)`,
        );
        for (const p of run.problems) {
          ctx.o.out(
            `  line ${p.line ?? '-'}: ${p.type} ${p.referenceNo ?? ''}${p.expected !== undefined ? ` expected ${p.expected}` : ''}${p.actual !== undefined ? ` actual ${p.actual}` : ''}`,
          );
        }
      }
      let left = run.problems.length;
      if (ctx.values.apply === true) {
        for (const p of run.problems) {
          if (p.type !== 'missing_at_gateway' || typeof p.line !== 'number') continue;
          try {
            await ctx.admin.call('POST', `/reconciliations/${enc(run.id)}/problems/${p.line}/apply`);
            ctx.o.out(`  line ${p.line}: applied ${p.referenceNo ?? ''}`);
            left--;
          } catch (e) {
            ctx.o.out(`  line ${p.line}: not applied: ${(e as Error).message}`);
          }
        }
      }
      if (left > 0) throw new Error(`${left} problem(s) left`);
    },
  },
];

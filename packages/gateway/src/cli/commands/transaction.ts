import {
  type CommandSpec,
  enc,
  flag,
  listQuery,
  onePositional,
  PAGE_FLAGS,
  type Page,
  TIME_FLAGS,
} from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';

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

export const transactionCommands: CommandSpec[] = [
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

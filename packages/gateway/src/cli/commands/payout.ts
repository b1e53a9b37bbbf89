import { type CommandSpec, enc, flag, onePositional, query } from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';

// Payouts through the bank (docs/payouts.md#paying-a-settlement): list, show (which asks the bank
// about one not yet ended), approve and reject one awaiting a second key.

const PAYOUT_COLUMNS = ['id', 'kind', 'merchantId', 'settlementId', 'amount', 'state', 'bankReference', 'error'];

const decide = (verb: 'approve' | 'reject', description: string): CommandSpec => ({
  path: `payout ${verb}`,
  description,
  args: ['<payoutId>'],
  async run(ctx) {
    const id = enc(onePositional(ctx, 'payout id'));
    printRecord(ctx.o, await ctx.admin.call('POST', `/payouts/${id}/${verb}`, {}));
  },
});

export const payoutCommands: CommandSpec[] = [
  {
    path: 'payout list',
    description: 'list payouts through the bank, newest first',
    flags: [
      flag('--merchant <merchantId>', "only this merchant's"),
      flag('--state <state>', 'awaiting_approval, sending, pending, paid, failed or rejected'),
      flag('--kind <kind>', 'settlement or disbursement'),
    ],
    async run(ctx) {
      const qs = query(ctx.values, { merchant: 'merchantId', state: 'state', kind: 'kind' });
      printTable(ctx.o, await ctx.admin.call('GET', `/payouts${qs}`), PAYOUT_COLUMNS);
    },
  },
  {
    path: 'payout show',
    description: 'show a payout and its exchanges with the bank (one not yet ended is asked about first)',
    args: ['<payoutId>'],
    async run(ctx) {
      const id = enc(onePositional(ctx, 'payout id'));
      printRecord(ctx.o, await ctx.admin.call('GET', `/payouts/${id}`));
    },
  },
  decide('approve', 'approve a payout another key asked for: the transfer is sent'),
  decide('reject', 'reject a payout another key asked for: its settlement is open again'),
];

import {
  type CommandSpec,
  enc,
  flag,
  onePositional,
  PAGE_FLAGS,
  type Page,
  query,
  UsageError,
} from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';

export const adminCommands: CommandSpec[] = [
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

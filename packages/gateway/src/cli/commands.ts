// Every snapgate command: its words, arguments, flags (with their meaning) and what it does.
// Thin: flags → a call to the admin API (or a service) → print. Built into a parser by main.ts;
// one module per area under commands/, the shared parts in command-kit.ts.
import type { CommandSpec } from './command-kit.ts';
import { adminCommands } from './commands/admin.ts';
import { backupCommands } from './commands/backup.ts';
import { bookCommands } from './commands/books.ts';
import { merchantCommands } from './commands/merchant.ts';
import { notificationCommands } from './commands/notification.ts';
import { payoutCommands } from './commands/payout.ts';
import { processCommands } from './commands/process.ts';
import { providerCommands } from './commands/provider.ts';
import { simulateCommands } from './commands/simulate.ts';
import { transactionCommands } from './commands/transaction.ts';

export { type CommandSpec, type Ctx, type FlagSpec, GROUPS, UsageError, type Values } from './command-kit.ts';

export const COMMANDS: CommandSpec[] = [
  ...processCommands,
  ...backupCommands,
  ...merchantCommands,
  ...providerCommands,
  ...transactionCommands,
  ...bookCommands,
  ...payoutCommands,
  ...notificationCommands,
  ...simulateCommands,
  ...adminCommands,
];

import type { ProviderRecord } from '../records/provider-records.ts';
import type { AttemptMinute, DeliveryBacklog } from '../records/records.ts';
import type { ClientStore, OutboxStore, StatisticsStore } from '../store/store.ts';

export type { AttemptMinute, DeliveryBacklog };

/** The console's overview: what happened since the start of the day, and in the last hour. */
export interface Overview {
  /** Transactions created since `dayStart`, by status. */
  transactionsByStatus: Record<string, number>;
  /** Every notification, by state. */
  notificationsByState: Record<string, number>;
  backlog: DeliveryBacklog;
  /** Callback attempts per minute since `minutesSince`. */
  attemptsPerMinute: AttemptMinute[];
  /** Inbound provider calls since `dayStart`, by provider id. */
  inboundByProvider: Record<string, number>;
  providers: ProviderRecord[];
}

/** The gateway's figures for operators, read in one go. */
export function createOverviewService({ store }: { store: StatisticsStore & OutboxStore & ClientStore }) {
  return {
    async overview(since: { dayStart: number; minutesSince: number }): Promise<Overview> {
      const [transactionsByStatus, notificationsByState, backlog, attemptsPerMinute, inboundByProvider, providers] =
        await Promise.all([
          store.countTransactionsByStatus(since.dayStart),
          store.countNotificationsByState(),
          store.deliveryBacklog(),
          store.attemptsPerMinute(since.minutesSince),
          store.countInboundByProvider(since.dayStart),
          store.listProviders({ limit: 500 }),
        ]);
      return {
        transactionsByStatus,
        notificationsByState,
        backlog,
        attemptsPerMinute,
        inboundByProvider,
        providers: providers.items,
      };
    },
  };
}

export type OverviewService = ReturnType<typeof createOverviewService>;

import { TRANSACTION_STATUS } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { TransactionReads } from '../../payments/transaction-reads.ts';
import { historyView, notificationView, transactionView } from '../../payments/transaction-view.ts';
import { callerOf } from '../admin-auth.ts';
import { listOrderOf, parseWith, timeRangeQuery } from '../admin-body.ts';

export const listQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  status: z.enum(Object.keys(TRANSACTION_STATUS) as [keyof typeof TRANSACTION_STATUS]).optional(),
  kind: z.enum(['qris', 'va']).optional(),
  reference: z.string().max(64).optional(),
  ...timeRangeQuery,
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});

export function adminTransactionRoutes(app: FastifyInstance, deps: { transactions: TransactionReads }) {
  const { transactions } = deps;
  const config = { api: 'admin' as const };

  app.get('/transactions', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await transactions.list(
      callerOf(request),
      { merchantId: q.merchantId, status: q.status, kind: q.kind, reference: q.reference, ...listOrderOf(q) },
      { limit: q.limit, cursor: q.cursor },
    );
    return { items: page.items.map(transactionView), nextCursor: page.nextCursor };
  });

  app.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, async (request) => {
    const d = await transactions.detail(callerOf(request), request.params.referenceNo);
    return {
      ...transactionView(d.transaction),
      statusHistory: d.history.map(historyView),
      notifications: d.notifications.map(notificationView),
    };
  });
}

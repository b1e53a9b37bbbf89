import { TRANSACTION_STATUS } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { historyView, notificationView, transactionView } from '../../payments/transaction-view.ts';
import type { Store } from '../../store/store.ts';
import { listOrderOf, parseWith, timeRangeQuery } from '../admin-body.ts';
import { notFound } from '../problem.ts';

export const listQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  status: z.enum(Object.keys(TRANSACTION_STATUS) as [keyof typeof TRANSACTION_STATUS]).optional(),
  kind: z.enum(['qris', 'va']).optional(),
  reference: z.string().max(64).optional(),
  ...timeRangeQuery,
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});

export function adminTransactionRoutes(app: FastifyInstance, deps: { store: Store }) {
  const { store } = deps;
  const config = { api: 'admin' as const };

  app.get('/transactions', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await store.listTransactions(
      { merchantId: q.merchantId, status: q.status, kind: q.kind, reference: q.reference, ...listOrderOf(q) },
      { limit: q.limit, cursor: q.cursor },
    );
    return { items: page.items.map(transactionView), nextCursor: page.nextCursor };
  });

  app.get<{ Params: { referenceNo: string } }>('/transactions/:referenceNo', { config }, async (request) => {
    const txn = await store.findTransaction(request.params.referenceNo);
    if (!txn) throw notFound('transaction');
    const [history, notifications] = await Promise.all([
      store.statusHistory(txn.referenceNo),
      store.notificationsOf(txn.referenceNo),
    ]);
    return {
      ...transactionView(txn),
      statusHistory: history.map(historyView),
      notifications: notifications.map(notificationView),
    };
  });
}

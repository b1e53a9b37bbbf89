import { TRANSACTION_STATUS } from '@snapgate/snap';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TRANSACTION_KINDS } from '../../methods/index.ts';
import type { TransactionReads } from '../../payments/transaction-reads.ts';
import { historyView, notificationView, transactionView } from '../../payments/transaction-view.ts';
import { callerOf } from '../admin-auth.ts';
import { listOrderOf, parseWith, timeRangeQuery } from '../admin-body.ts';
import { BAD_QUERY, LIST_DESCRIPTIONS, notFound, ok, op, page, T, TAG, textParam } from '../openapi/admin-kit.ts';
import { NOTIFICATION_EXAMPLE, propertiesOf, TRANSACTION_EXAMPLE } from '../openapi/admin-schemas.ts';
import { closed, queryParameters, ref } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

export const listQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  status: z.enum(Object.keys(TRANSACTION_STATUS) as [keyof typeof TRANSACTION_STATUS]).optional(),
  kind: z.enum(TRANSACTION_KINDS).optional(),
  reference: z.string().max(64).optional(),
  ...timeRangeQuery,
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});

export function adminTransactionRoutes(
  app: FastifyInstance,
  deps: { transactions: TransactionReads; docs: RouteDocs },
) {
  const { transactions } = deps;
  const config = { api: 'admin' as const };

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/transactions',
    config,
    operation: op({
      operationId: 'listTransactions',
      tags: [TAG.transactions],
      summary: 'List transactions',
      description: 'Newest first.',
      parameters: queryParameters(listQuery, { ...LIST_DESCRIPTIONS, status: 'Only in this status.' }),
      responses: {
        ...ok('A page of transactions.', page('Transaction'), { items: [TRANSACTION_EXAMPLE], nextCursor: null }),
        '400': BAD_QUERY,
      },
    }),
    handler: async (request) => {
      const q = parseWith(listQuery, request.query, 'invalid query');
      const page = await transactions.list(
        callerOf(request),
        { merchantId: q.merchantId, status: q.status, kind: q.kind, reference: q.reference, ...listOrderOf(q) },
        { limit: q.limit, cursor: q.cursor },
      );
      return { items: page.items.map(transactionView), nextCursor: page.nextCursor };
    },
  });

  documentedRoute<{ Params: { referenceNo: string } }>(app, deps.docs, {
    method: 'get',
    url: '/transactions/:referenceNo',
    config,
    operation: op({
      operationId: 'getTransaction',
      tags: [TAG.transactions],
      summary: 'Show a transaction, its history and its notifications',
      parameters: [textParam('referenceNo', 'snapgate’s reference.')],
      responses: {
        ...ok(
          'The transaction.',
          closed({
            ...propertiesOf('Transaction'),
            statusHistory: { type: 'array', items: ref('StatusChange') },
            notifications: { type: 'array', items: ref('Notification') },
          }),
          {
            ...TRANSACTION_EXAMPLE,
            statusHistory: [
              { seq: 1, status: '01', statusDesc: 'Initiated', reason: null, changedAt: T },
              { seq: 2, status: '00', statusDesc: 'Success', reason: 'notified by acquirer', changedAt: T },
            ],
            notifications: [NOTIFICATION_EXAMPLE],
          },
        ),
        '404': notFound('transaction'),
      },
    }),
    handler: async (request) => {
      const d = await transactions.detail(callerOf(request), request.params.referenceNo);
      return {
        ...transactionView(d.transaction),
        statusHistory: d.history.map(historyView),
        notifications: d.notifications.map(notificationView),
      };
    },
  });
}

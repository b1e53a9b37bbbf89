import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { NotificationOperations } from '../../delivery/notification-operations.ts';
import type { MerchantService } from '../../merchants/merchant-service.ts';
import { iso, notificationView } from '../../payments/transaction-view.ts';
import { callerOf } from '../admin-auth.ts';
import { listOrderOf, parseAdminBody, parseWith, timeRangeQuery } from '../admin-body.ts';

export const listQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  state: z.enum(['pending', 'delivering', 'retrying', 'delivered', 'superseded', 'dead']).optional(),
  referenceNo: z.string().max(64).optional(),
  ...timeRangeQuery,
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});
export const reportQuery = z.strictObject({
  merchantId: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(5000).default(500),
});
export const recoverBody = z.strictObject({ since: z.iso.datetime({ offset: true }) });

export function adminNotificationRoutes(
  app: FastifyInstance,
  deps: { notifications: NotificationOperations; merchants: MerchantService },
) {
  const { notifications, merchants } = deps;
  const config = { api: 'admin' as const };

  app.get('/notifications', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await notifications.list(
      callerOf(request),
      { merchantId: q.merchantId, state: q.state, referenceNo: q.referenceNo, ...listOrderOf(q) },
      { limit: q.limit, cursor: q.cursor },
    );
    return { items: page.items.map(notificationView), nextCursor: page.nextCursor };
  });

  app.get<{ Params: { id: string } }>('/notifications/:id', { config }, async (request) => {
    const { notification: n, attempts } = await notifications.show(callerOf(request), request.params.id);
    return {
      ...notificationView(n),
      body: n.body,
      attempts: attempts.map((a) => ({
        attemptNo: a.attemptNo,
        startedAt: iso(a.startedAt),
        url: a.url,
        requestHeaders: a.requestHeaders,
        requestBody: n.body,
        responseStatus: a.responseStatus,
        responseBody: a.responseBody,
        durationMs: a.durationMs,
        outcome: a.outcome,
        error: a.error,
      })),
    };
  });

  app.post<{ Params: { id: string } }>('/notifications/:id/replay', { config }, async (request, reply) => {
    const n = await notifications.replay(callerOf(request), request.params.id);
    return reply.code(202).send(notificationView(n));
  });

  app.post<{ Params: { id: string } }>('/merchants/:id/recover', { config }, async (request) => {
    // An unknown merchant is 404 whatever the body holds.
    await merchants.get(request.params.id);
    const { since } = parseAdminBody(request, recoverBody);
    return { recovered: await notifications.recover(callerOf(request), request.params.id, Date.parse(since)) };
  });

  app.get('/reports/undelivered', { config }, async (request) => {
    const q = parseWith(reportQuery, request.query, 'invalid query');
    const rows = await notifications.undelivered(callerOf(request), q.merchantId, q.limit);
    return { items: rows.map(notificationView), nextCursor: null };
  });
}

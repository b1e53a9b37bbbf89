import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import type { Dispatcher } from '../../delivery/dispatcher.ts';
import { iso, notificationView } from '../../payments/transaction-view.ts';
import type { Store } from '../../store/store.ts';
import { listOrderOf, parseAdminBody, parseWith, timeRangeQuery } from '../admin-body.ts';
import { conflict, notFound } from '../problem.ts';

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
  deps: { store: Store; clock: Clock; dispatcher: Dispatcher },
) {
  const { store, clock, dispatcher } = deps;
  const config = { api: 'admin' as const };

  app.get('/notifications', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await store.listNotifications(
      { merchantId: q.merchantId, state: q.state, referenceNo: q.referenceNo, ...listOrderOf(q) },
      { limit: q.limit, cursor: q.cursor },
    );
    return { items: page.items.map(notificationView), nextCursor: page.nextCursor };
  });

  app.get<{ Params: { id: string } }>('/notifications/:id', { config }, async (request) => {
    const n = await store.findNotification(request.params.id);
    if (!n) throw notFound('notification');
    const attempts = await store.attemptsOf(n.id);
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
    const existing = await store.findNotification(request.params.id);
    if (!existing) throw notFound('notification');
    const n = await store.replayNotification(existing.id, clock.now());
    if (!n) {
      throw conflict(
        existing.state === 'delivering'
          ? 'the notification is being delivered right now'
          : 'a newer notification exists for this transaction: replay that one (a merchant must never see an older status after a newer)',
      );
    }
    dispatcher.wake();
    return reply.code(202).send(notificationView(n));
  });

  app.post<{ Params: { id: string } }>('/merchants/:id/recover', { config }, async (request) => {
    const merchant = await store.findMerchantById(request.params.id);
    if (!merchant) throw notFound('merchant');
    const { since } = parseAdminBody(request, recoverBody);
    const recovered = await store.recoverDead(merchant.id, Date.parse(since), clock.now());
    dispatcher.wake();
    return { recovered };
  });

  app.get('/reports/undelivered', { config }, async (request) => {
    const q = parseWith(reportQuery, request.query, 'invalid query');
    const rows = await store.undelivered(q.merchantId, q.limit);
    return { items: rows.map(notificationView), nextCursor: null };
  });
}

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { NotificationOperations } from '../../delivery/notification-operations.ts';
import type { MerchantService } from '../../merchants/merchant-service.ts';
import { iso, notificationView } from '../../payments/transaction-view.ts';
import { callerOf } from '../admin-auth.ts';
import { listOrderOf, parseAdminBody, parseWith, timeRangeQuery } from '../admin-body.ts';
import {
  BAD_QUERY,
  badRequest,
  body,
  conflict,
  LIST_DESCRIPTIONS,
  notFound,
  ok,
  op,
  page,
  TAG,
  textParam,
} from '../openapi/admin-kit.ts';
import { NOTIFICATION_EXAMPLE, propertiesOf } from '../openapi/admin-schemas.ts';
import { closed, fromZod, type Operation, queryParameters, ref } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

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
  deps: { notifications: NotificationOperations; merchants: MerchantService; docs: RouteDocs },
) {
  const { notifications, merchants } = deps;
  const config = { api: 'admin' as const };
  const ops = notificationOperations();

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/recover',
    config,
    operation: ops.recoverNotifications,
    handler: async (request) => {
      // An unknown merchant is 404 whatever the body holds.
      await merchants.get(request.params.id);
      const { since } = parseAdminBody(request, recoverBody);
      return { recovered: await notifications.recover(callerOf(request), request.params.id, Date.parse(since)) };
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/notifications',
    config,
    operation: ops.listNotifications,
    handler: async (request) => {
      const q = parseWith(listQuery, request.query, 'invalid query');
      const page = await notifications.list(
        callerOf(request),
        { merchantId: q.merchantId, state: q.state, referenceNo: q.referenceNo, ...listOrderOf(q) },
        { limit: q.limit, cursor: q.cursor },
      );
      return { items: page.items.map(notificationView), nextCursor: page.nextCursor };
    },
  });

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'get',
    url: '/notifications/:id',
    config,
    operation: ops.getNotification,
    handler: async (request) => {
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
    },
  });

  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'post',
    url: '/notifications/:id/replay',
    config,
    operation: ops.replayNotification,
    handler: async (request, reply) => {
      const n = await notifications.replay(callerOf(request), request.params.id);
      return reply.code(202).send(notificationView(n));
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/reports/undelivered',
    config,
    operation: ops.undeliveredReport,
    handler: async (request) => {
      const q = parseWith(reportQuery, request.query, 'invalid query');
      const rows = await notifications.undelivered(callerOf(request), q.merchantId, q.limit);
      return { items: rows.map(notificationView), nextCursor: null };
    },
  });
}

/** What the admin API's document says of each route of this area, by operationId. */
function notificationOperations() {
  return {
    recoverNotifications: op({
      operationId: 'recoverNotifications',
      tags: [TAG.notifications],
      summary: 'Send a merchant’s dead notifications again',
      description: 'Every `dead` notification of the merchant created since `since` goes back to `pending`.',
      parameters: [textParam('id', 'The merchant’s id.')],
      requestBody: body(
        fromZod(recoverBody, { since: 'Dead notifications created since then, ISO 8601 with a zone.' }),
        { since: '2026-01-14T00:00:00+07:00' },
      ),
      responses: {
        ...ok('How many were recovered.', closed({ recovered: { type: 'integer', minimum: 0 } }), { recovered: 3 }),
        '400': badRequest('Invalid body.', ['since: Invalid ISO datetime']),
        '404': notFound('merchant'),
      },
    }),
    listNotifications: op({
      operationId: 'listNotifications',
      tags: [TAG.notifications],
      summary: 'List notifications (the callback outbox)',
      parameters: queryParameters(listQuery, { ...LIST_DESCRIPTIONS, state: 'Only in this delivery state.' }),
      responses: {
        ...ok('A page of notifications.', page('Notification'), { items: [NOTIFICATION_EXAMPLE], nextCursor: null }),
        '400': BAD_QUERY,
      },
    }),
    getNotification: op({
      operationId: 'getNotification',
      tags: [TAG.notifications],
      summary: 'Show a notification and every delivery attempt',
      parameters: [textParam('id', 'The notification’s id.')],
      responses: {
        ...ok(
          'The notification.',
          closed({
            ...propertiesOf('Notification'),
            body: { type: 'string', description: 'The exact bytes signed and sent.' },
            attempts: { type: 'array', items: ref('DeliveryAttempt') },
          }),
        ),
        '404': notFound('notification'),
      },
    }),
    replayNotification: op({
      operationId: 'replayNotification',
      tags: [TAG.notifications],
      summary: 'Send a notification again',
      description:
        'Queues the same body again, with the same `X-EXTERNAL-ID`. Only the newest notification of a transaction can be replayed: a merchant must never see an older status after a newer.',
      parameters: [textParam('id', 'The notification’s id.')],
      responses: {
        ...ok('Queued.', ref('Notification'), { ...NOTIFICATION_EXAMPLE, state: 'pending' }, '202'),
        '404': notFound('notification'),
        '409': conflict(
          'A newer notification exists for the transaction, or this one is being delivered right now.',
          'the notification is being delivered right now',
        ),
      },
    }),
    undeliveredReport: op({
      operationId: 'undeliveredReport',
      tags: [TAG.notifications],
      summary: 'Notifications not delivered yet',
      description: 'Every notification not delivered (nor superseded), oldest first; `nextCursor` is always null.',
      parameters: queryParameters(reportQuery, LIST_DESCRIPTIONS),
      responses: {
        ...ok('The undelivered notifications.', page('Notification'), { items: [], nextCursor: null }),
        '400': BAD_QUERY,
      },
    }),
  } satisfies Record<string, Operation>;
}

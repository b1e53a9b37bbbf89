import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type NotificationOperations,
  type NotificationRecord,
  ReplayRefused,
} from '../delivery/notification-operations.ts';
import type { OperatorPages } from './operator.ts';
import { watchQuery } from './transaction-views.ts';
import { notificationSubjectHref } from './views.ts';

/** What a replay needs of the console's or the portal's gate (the portal's PortalPages has the same three). */
type ReplayGate = Pick<OperatorPages, 'callerOf' | 'audit' | 'refused'>;

/**
 * Replays a notification from its transaction's page, alike in the console and the portal
 * (`base`: `/console` or `/console/portal`; `action`: the audit row's): back to the top of that
 * page, which waits on this replay's attempt and says how it went; a refusal said on the same page.
 */
export async function replayFromPage(
  gate: ReplayGate,
  notifications: NotificationOperations,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  o: { base: string; action: string; fields?: Record<string, string> },
): Promise<FastifyReply> {
  const caller = gate.callerOf(request);
  const pageOf = (n: Pick<NotificationRecord, 'kind' | 'referenceNo'>) => notificationSubjectHref(o.base, n);
  let n: Awaited<ReturnType<NotificationOperations['replay']>>;
  try {
    n = await notifications.replay(caller, request.params.id);
  } catch (e) {
    if (!(e instanceof ReplayRefused)) throw e;
    const { notification } = await notifications.show(caller, e.notificationId);
    return gate.refused(
      request,
      reply,
      pageOf(notification),
      `Notification ${e.notificationId} was not replayed: ${e.message}.`,
      { status: 409, action: o.action, target: e.notificationId },
    );
  }
  await gate.audit(request, {
    action: o.action,
    target: n.id,
    httpStatus: 202,
    ...(o.fields ? { fields: o.fields, after: { id: n.id, state: n.state } } : {}),
  });
  return reply.redirect(`${pageOf(n)}?ok=replayed&${watchQuery(n)}`, 303);
}

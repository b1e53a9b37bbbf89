import type {
  DeliveryBacklog,
  NotificationFilter,
  NotificationRecord,
  Page,
  PageRequest,
  StoredAttempt,
} from '../../records/records.ts';
import { toPage } from '../cursor.ts';
import { attemptFromRow, listSql, notificationFromRow, notificationListSpec } from '../rows.ts';
import { firstRow, type Sql } from '../sql.ts';

// The outbox as operators see and steer it: notifications and their attempts, replay, recover,
// the backlog. Claiming and recording attempts is each engine's own (store/sqlite, store/postgres).

/** No newer notification of the same transaction exists (only the newest may be sent again). */
const IS_NEWEST = `NOT EXISTS (SELECT 1 FROM notifications o
  WHERE o.reference_no = notifications.reference_no AND o.txn_seq > notifications.txn_seq)`;

export async function notificationsOf(sql: Sql, referenceNo: string): Promise<NotificationRecord[]> {
  const rows = await sql.all('SELECT * FROM notifications WHERE reference_no = ? ORDER BY txn_seq, created_at', [
    referenceNo,
  ]);
  return rows.map(notificationFromRow);
}

export async function findNotification(sql: Sql, id: string): Promise<NotificationRecord | undefined> {
  const r = await firstRow(sql.all('SELECT * FROM notifications WHERE id = ?', [id]));
  return r ? notificationFromRow(r) : undefined;
}

export async function listNotifications(
  sql: Sql,
  filter: NotificationFilter,
  page: PageRequest,
): Promise<Page<NotificationRecord>> {
  const { text, values } = listSql(notificationListSpec(filter, page), () => '?');
  const rows = await sql.all(text, values);
  return toPage(rows.map(notificationFromRow), page.limit, (n) => [n.createdAt, n.id]);
}

export async function attemptsOf(sql: Sql, notificationId: string): Promise<StoredAttempt[]> {
  const rows = await sql.all('SELECT * FROM notification_attempts WHERE notification_id = ? ORDER BY id', [
    notificationId,
  ]);
  return rows.map(attemptFromRow);
}

/** Due again now, unless it is being sent or a newer one of its transaction exists. */
export async function replayNotification(sql: Sql, id: string, now: number): Promise<NotificationRecord | undefined> {
  const r = await firstRow(
    sql.all(
      `UPDATE notifications SET state = 'pending', next_attempt_at = ?, updated_at = ?
       WHERE id = ? AND state <> 'delivering' AND ${IS_NEWEST}
       RETURNING *`,
      [now, now, id],
    ),
  );
  return r ? notificationFromRow(r) : undefined;
}

/** A merchant's dead notifications since `since` are due again (the newest of each transaction). */
export async function recoverDead(sql: Sql, merchantId: string, since: number, now: number): Promise<number> {
  return sql.run(
    `UPDATE notifications SET state = 'pending', next_attempt_at = ?, updated_at = ?
     WHERE merchant_id = ? AND state = 'dead' AND created_at >= ? AND ${IS_NEWEST}`,
    [now, now, merchantId, since],
  );
}

/** Undelivered notifications (the newest of each transaction), oldest first; all merchants when none is named. */
export async function undelivered(
  sql: Sql,
  merchantId: string | undefined,
  limit: number,
): Promise<NotificationRecord[]> {
  const rows = await sql.all(
    `SELECT * FROM notifications
     WHERE state <> 'delivered' AND (CAST(? AS TEXT) IS NULL OR merchant_id = ?) AND ${IS_NEWEST}
     ORDER BY created_at, id LIMIT ?`,
    [merchantId ?? null, merchantId ?? null, limit],
  );
  return rows.map(notificationFromRow);
}

export async function deliveryBacklog(sql: Sql): Promise<DeliveryBacklog> {
  const r = await firstRow(
    sql.all(
      `SELECT count(*) AS n, min(created_at) AS oldest FROM notifications
       WHERE state IN ('pending', 'retrying', 'delivering')`,
    ),
  );
  return {
    undelivered: Number(r?.n ?? 0),
    oldestUndeliveredAt: r?.oldest === null || r?.oldest === undefined ? null : Number(r.oldest),
  };
}

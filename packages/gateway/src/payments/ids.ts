import { randomInt } from 'node:crypto';

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** The gateway's transaction reference: Jakarta date `yyMMdd` + 12 random digits (18 characters). */
export function newReferenceNo(nowMs: number): string {
  return `${new Date(nowMs + 7 * 3600_000).toISOString().slice(2, 10).replaceAll('-', '')}${digits(12)}`;
}

// The last 7 digits of a notification id count up in this process from a random start, so two
// ids drawn in the same millisecond here never collide (7 random digits did, about once in
// 50,000 pairs: at thousands of changes a second, within minutes). Another instance of a shared
// database counts from its own start; a collision there is retried by the status changer.
let notificationSequence = randomInt(10_000_000);

/** After a collision with another instance's id: count on from another random place. */
export function reseedNotificationIds(): void {
  notificationSequence = randomInt(10_000_000);
}

/** A notification id, sent as X-EXTERNAL-ID: numeric, time-ordered, 20 digits. */
export function newNotificationId(nowMs: number): string {
  notificationSequence = (notificationSequence + 1) % 10_000_000;
  return `${String(nowMs).padStart(13, '0')}${String(notificationSequence).padStart(7, '0')}`;
}

/** A refund number: `RF` + 16 digits. */
export const newRefundNo = (nowMs: number) => `RF${String(nowMs).slice(-8)}${digits(8)}`;

/** A bill number, sent as a JSON integer (docs/protocol.md#callbacks): 12 digits, inside the safe-integer range. */
export const newBillNumber = () => 100_000_000_000 + randomInt(900_000_000_000);

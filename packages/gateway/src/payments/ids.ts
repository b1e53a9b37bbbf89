import { randomFillSync, randomInt } from 'node:crypto';
import { jakartaDay } from '@snapgate/snap';

/**
 * `n` uniformly random decimal digits. randomInt draws below 2^48, so up to 12 digits come from one
 * draw (measured: a draw per digit was about 7 µs of every payment call).
 */
export function randomDigits(n: number): string {
  let out = '';
  for (let left = n; left > 0; left -= 12) {
    const k = Math.min(12, left);
    out += String(randomInt(10 ** k)).padStart(k, '0');
  }
  return out;
}

const ID_BYTES = 16;
/** Random bytes drawn 256 ids at a time (as node's randomUUID does): one randomBytes call cost 7–25 µs. */
const idPool = Buffer.allocUnsafeSlow(ID_BYTES * 256);
let idPoolAt = idPool.length;

/** 16 random bytes in base64url (22 characters), from the operating system's CSPRNG. */
export function newRandomId(): string {
  if (idPoolAt === idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = idPool.toString('base64url', idPoolAt, idPoolAt + ID_BYTES);
  idPoolAt += ID_BYTES;
  return id;
}

const DAY_MS = 86_400_000;
const JAKARTA_OFFSET_MS = 7 * 3_600_000;
/** The last four digits of a reference: this process's counter, from a random start. */
let referenceCounter = randomInt(10_000);

/**
 * The gateway's transaction reference (18 digits): the Jakarta date `yyMMdd`, the millisecond of the
 * Jakarta day (8 digits), and 4 digits of a counter that starts at random in each process. In the
 * order they were made, so each new transaction's reference (and the indexes keyed by it: the status
 * history, the notifications by transaction) lands at the end of its b-tree instead of on a random
 * page (docs/benchmarks.md#measured-decisions). Not a secret: nothing is served under it (the
 * QR image and the checkout page are under the checkout's random id). Two instances can draw the
 * same one in the same millisecond (about once in 10,000 such pairs): the database refuses the
 * second and its service draws again.
 */
export function newReferenceNo(nowMs: number): string {
  // jakartaDay keeps the last day it formatted: no Date is made per reference.
  const msOfDay = (nowMs + JAKARTA_OFFSET_MS) % DAY_MS;
  referenceCounter = (referenceCounter + 1) % 10_000;
  return `${jakartaDay(nowMs).slice(2).replaceAll('-', '')}${String(msOfDay).padStart(8, '0')}${String(referenceCounter).padStart(4, '0')}`;
}

const SUFFIXES = 10_000_000;
const HALF_BITS = 12;
const HALF_MASK = (1 << HALF_BITS) - 1;
const ROUNDS = 8;

/**
 * A permutation of 0..9,999,999 keyed by `key` (ROUNDS × 4096 random 12-bit values): a balanced
 * Feistel network on 24 bits whose round functions are those tables, cycle-walked into range (the
 * network is applied again while the value is 10,000,000 or more, which keeps it a permutation of
 * the smaller set: about 1.7 passes on average).
 */
export function suffixPermutation(key: Uint16Array): (n: number) => number {
  if (key.length !== ROUNDS << HALF_BITS) throw new TypeError(`the key takes ${ROUNDS << HALF_BITS} values`);
  const encrypt = (x: number) => {
    let left = x >>> HALF_BITS;
    let right = x & HALF_MASK;
    for (let round = 0; round < ROUNDS; round++) {
      const next = left ^ ((key[(round << HALF_BITS) | right] as number) & HALF_MASK);
      left = right;
      right = next;
    }
    return (left << HALF_BITS) | right;
  };
  return (n) => {
    let x = encrypt(n);
    while (x >= SUFFIXES) x = encrypt(x);
    return x;
  };
}

// The last 7 digits of a notification id are a counter of this process, from a random start, so
// two ids drawn in the same millisecond here never collide (7 random digits did, about once in
// 50,000 pairs: at thousands of changes a second, within minutes). The counter goes out through a
// permutation keyed at start-up, so a merchant comparing two of its ids cannot tell how many the
// gateway sent in between. Another instance of a shared database counts from its own start; a
// collision there is retried by the status changer.
const permuteSuffix = suffixPermutation(randomFillSync(new Uint16Array(ROUNDS << HALF_BITS)));
let notificationSequence = randomInt(SUFFIXES);

/** After a collision with another instance's id: count on from another random place. */
export function reseedNotificationIds(): void {
  notificationSequence = randomInt(SUFFIXES);
}

/** A notification id, sent as X-EXTERNAL-ID: numeric, 20 digits, time-ordered by its 13-digit ms prefix. */
export function newNotificationId(nowMs: number): string {
  notificationSequence = (notificationSequence + 1) % SUFFIXES;
  return `${String(nowMs).padStart(13, '0')}${String(permuteSuffix(notificationSequence)).padStart(7, '0')}`;
}

/** A refund number: `RF` + 16 digits. */
export const newRefundNo = (nowMs: number) => `RF${String(nowMs).slice(-8)}${randomDigits(8)}`;

/** A bill number, sent as a JSON integer (docs/protocol.md#callbacks): 12 digits, inside the safe-integer range. */
export const newBillNumber = () => 100_000_000_000 + randomInt(900_000_000_000);

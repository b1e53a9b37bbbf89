import { snapError, successCode } from '@snapgate/snap';
import { type IdempotencyRecord, UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import type { SnapRequestBase } from './snap-request.ts';

/** What an operation answers: the status and the exact bytes of the body. */
export interface SnapResponse {
  httpStatus: number;
  body: string;
}

/** Keeps an operation's answer with the change that makes it (idempotency). */
export type RecordFor = (response: SnapResponse) => IdempotencyRecord;

/** A success answer of a service: its `200xx00` code, `Successful`, and the fields in their order. */
export const snapOk = (serviceCode: string, fields: Record<string, unknown>): SnapResponse => ({
  httpStatus: 200,
  body: JSON.stringify({ responseCode: successCode(serviceCode), responseMessage: 'Successful', ...fields }),
});

/**
 * Runs a SNAP operation under X-EXTERNAL-ID idempotency (docs/protocol.md#payment-calls). A write operation stores
 * the record through `recordFor` in its own database transaction; a read is recorded after.
 * The database key decides between concurrent duplicates: the loser replays the winner.
 * Only successful answers are kept, so a refused request can be corrected and retried.
 *
 * `createsFirst`: the operation creates a record whose insert carries the idempotency record, and
 * writes nothing before it that a replay must not repeat (a VA create takes a VA number first,
 * which a refused create leaves unused: numbers may skip, never repeat). Its key is then not read
 * before it runs: the insert refuses a key already kept, and every refusal is answered by replay()
 * as above. A replay costs the operation's work; a new request saves a read (measured: about 6 %
 * of a QRIS generate's main-thread CPU on the embedded store, where a read after the writer
 * thread's commits starts from a cold page cache).
 */
export async function withIdempotency(
  store: Store,
  ctx: SnapRequestBase,
  operation: (recordFor: (response: SnapResponse) => IdempotencyRecord) => Promise<SnapResponse>,
  options: { writes: boolean; createsFirst?: boolean },
): Promise<SnapResponse> {
  if (!(options.writes && options.createsFirst)) {
    const earlier = await replay(store, ctx);
    if (earlier) return earlier;
  }
  // Module functions, not closures made per call (under tsx each closure is also renamed).
  const recordFor = recordOf.bind(undefined, ctx);
  try {
    const response = await operation(recordFor);
    if (!options.writes) await store.insertIdempotency(recordFor(response), ctx.now);
    return response;
  } catch (e) {
    // A duplicate that lost the race to its twin (on any write, or on the key itself) replays the
    // twin's answer; a different body under the same key is a 409 from replay().
    if (options.writes || (e instanceof UniqueViolation && e.constraint.includes('idempotency_keys'))) {
      const winner = await replay(store, ctx);
      if (winner) return winner;
    }
    throw e;
  }
}

/** The answer kept under the request's key: its own (replayed), a 409 for another body, or none. */
async function replay(store: Store, ctx: SnapRequestBase): Promise<SnapResponse | undefined> {
  const existing = await store.findIdempotency(ctx.idempotencyKey);
  if (!existing) return undefined;
  if (existing.requestHash !== ctx.requestHash) {
    throw snapError('CONFLICT', ctx.serviceCode, { detail: { externalId: ctx.idempotencyKey.externalId } });
  }
  return { httpStatus: existing.httpStatus, body: existing.responseBody };
}

function recordOf(ctx: SnapRequestBase, response: SnapResponse): IdempotencyRecord {
  return {
    ...ctx.idempotencyKey,
    requestHash: ctx.requestHash,
    httpStatus: response.httpStatus,
    responseBody: response.body,
  };
}

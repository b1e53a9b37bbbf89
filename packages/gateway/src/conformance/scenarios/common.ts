// Building blocks shared by the scenario files.
import { formatJakartaTimestamp } from '@snapgate/snap';
import type { AnswerBody, ConformanceContext, Expectation, Scenario } from '../types.ts';

/** An IDR amount. */
export const idr = (value: string) => ({ value, currency: 'IDR' });

/** A string of `n` characters, for "too long" rows. */
export const longText = (n: number) => 'X'.repeat(n);

/** A success: `200<service>00`. */
export const OK = { status: 200, cases: ['00'] } as const satisfies Expectation;
/** A missing mandatory header or field: `400xx02`. */
export const MISSING = { status: 400, cases: ['02'] } as const satisfies Expectation;
/** A header or field present but malformed: `400xx01`. */
export const MALFORMED = { status: 400, cases: ['01'] } as const satisfies Expectation;
/** A request that is not authentic (signature, timestamp, token): any 401 of the service. */
export const UNAUTHORIZED = { status: 401 } as const satisfies Expectation;
/** A body that is not a JSON object: any 400 of the service. */
export const BAD_REQUEST = { status: 400 } as const satisfies Expectation;
/** An X-EXTERNAL-ID reused for another request: any 409 of the service. */
export const CONFLICT = { status: 409 } as const satisfies Expectation;
/**
 * An operation the transaction's state does not allow (cancel twice, refund unpaid, delete twice).
 * The SNAP standard's code is `405xx01`; servers legitimately differ, so any 403, 404, 405 or 409
 * of the service is accepted.
 */
export const NOT_ALLOWED = { status: [403, 404, 405, 409] } as const satisfies Expectation;

/** An hour ago, in Jakarta time: far outside any accepted clock skew. */
export function staleTimestamp(): string {
  return formatJakartaTimestamp(Date.now() - 3_600_000);
}

/** Reads a value at a dotted path (`virtualAccountData.trxId`). */
export function at(body: unknown, path: string): unknown {
  let v: unknown = body;
  for (const key of path.split('.')) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** A check that every path names a non-empty string. */
export function nonEmptyStrings(...paths: string[]): (body: AnswerBody) => string | undefined {
  return (body) => {
    for (const p of paths) {
      const v = at(body, p);
      if (typeof v !== 'string' || v === '') return `${p} should be a non-empty string, got ${JSON.stringify(v)}`;
    }
    return undefined;
  };
}

/** Runs several checks, answering the first problem. */
export function all(
  ...checks: Array<(body: AnswerBody, ctx: ConformanceContext) => string | undefined>
): (body: AnswerBody, ctx: ConformanceContext) => string | undefined {
  return (body, ctx) => {
    for (const c of checks) {
      const problem = c(body, ctx);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
}

/**
 * The refusals every payment call must give, whatever the operation: no token, a token the server
 * never issued, a wrong signature, a stale timestamp, a missing or malformed X-EXTERNAL-ID, a
 * body that is not JSON. `body` is a valid body of the operation, so only the one defect differs.
 */
export function authNegatives(op: string, body: (ctx: ConformanceContext) => unknown): Scenario[] {
  return [
    {
      id: `${op}-no-token`,
      title: 'no Authorization header is refused as unauthorized',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), token: 'none' }),
      expect: UNAUTHORIZED,
    },
    {
      id: `${op}-invalid-token`,
      title: 'a bearer token the server never issued is refused as unauthorized',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), token: 'invalid' }),
      expect: UNAUTHORIZED,
    },
    {
      id: `${op}-bad-signature`,
      title: 'a wrong X-SIGNATURE is refused as unauthorized',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), signature: 'wrong' }),
      expect: UNAUTHORIZED,
    },
    {
      id: `${op}-stale-timestamp`,
      title: 'an X-TIMESTAMP one hour old is refused as unauthorized',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), timestamp: staleTimestamp() }),
      expect: UNAUTHORIZED,
    },
    {
      id: `${op}-missing-external-id`,
      title: 'a missing X-EXTERNAL-ID is a missing mandatory field (400xx02)',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), headers: { 'x-external-id': null } }),
      expect: MISSING,
    },
    {
      id: `${op}-malformed-external-id`,
      title: 'an X-EXTERNAL-ID with a space and a slash is an invalid field format (400xx01)',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), externalId: '12 34/56' }),
      expect: MALFORMED,
    },
    {
      id: `${op}-malformed-timestamp`,
      title: 'an X-TIMESTAMP that is not ISO 8601 is an invalid field format (400xx01)',
      kind: 'negative',
      request: (ctx) => ({ body: body(ctx), timestamp: '23/11/2026 10:00:00' }),
      expect: MALFORMED,
    },
    {
      id: `${op}-body-not-json`,
      title: 'a body that is not JSON is a bad request (400)',
      kind: 'negative',
      request: () => ({ raw: '{"truncated":' }),
      expect: BAD_REQUEST,
    },
  ];
}

/** The row that repeats `original` (same X-EXTERNAL-ID, same bytes) and must get the same answer. */
export function replayRow(op: string, original: string): Scenario {
  return {
    id: `${op}-idempotent-replay`,
    title: 'the same X-EXTERNAL-ID and body again gets the first answer byte for byte',
    kind: 'positive',
    request: (ctx) => {
      const first = ctx.sent(original);
      return { raw: first.raw, externalId: first.externalId };
    },
    expect: { ...OK, sameAs: original },
  };
}

/** The row that reuses `original`'s X-EXTERNAL-ID with another body: 409. */
export function conflictRow(op: string, original: string, otherBody: (ctx: ConformanceContext) => unknown): Scenario {
  return {
    id: `${op}-external-id-conflict`,
    title: 'the same X-EXTERNAL-ID with another body is a conflict (409)',
    kind: 'negative',
    request: (ctx) => ({ body: otherBody(ctx), externalId: ctx.sent(original).externalId }),
    expect: CONFLICT,
  };
}

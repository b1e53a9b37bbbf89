import { isJsonObject, mediaType, parseJsonBody } from '@snapgate/snap';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { firstBadTextField } from '../text.ts';
import { badRequest } from './problem.ts';
import { headerValue, rawBodyOf } from './raw-body.ts';

export const badTextProblem = (field: string) => `${field}: control characters and unpaired surrogates are not allowed`;

/** Parses an admin request body with a schema; every problem is listed at once. */
export function parseAdminBody<T extends z.ZodType>(
  request: FastifyRequest,
  schema: T,
  emptyAllowed = false,
): z.output<T> {
  const raw = rawBodyOf(request);
  let value: unknown = {};
  if (raw.length > 0 || !emptyAllowed) {
    const ct = headerValue(request, 'content-type');
    if (ct === undefined || mediaType(ct) !== 'application/json') {
      throw badRequest('Content-Type must be application/json');
    }
    value = parseJsonBody(raw);
    if (!isJsonObject(value)) throw badRequest('body must be a JSON object');
    const bad = firstBadTextField(value);
    if (bad !== undefined) throw badRequest('invalid request body', [badTextProblem(bad || 'body')]);
  }
  return parseWith(schema, value, 'invalid request body');
}

/** A route that takes no body: anything but nothing (or `{}`) is refused, so a mistaken field is never ignored. */
export function refuseBody(request: FastifyRequest): void {
  const raw = rawBodyOf(request);
  if (raw.length > 0 && raw.toString('utf8').trim() !== '{}') throw badRequest('this route takes no body');
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw badRequest(
      what,
      r.error.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`),
    );
  }
  return r.data;
}

/** `?limit=&cursor=` of every admin list. */
export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(512).optional(),
});
/** `?order=` of an admin list that is newest first by default. */
const listOrder = z.enum(['newest', 'oldest']).default('newest');
/** `?limit=&cursor=&order=` of the merchants' and the providers' lists. */
export const clientListQuery = listQuery.extend({ order: listOrder });
/** `/…/:id` of a merchant or a provider. */
export const idParams = z.object({ id: z.string().max(64) });
/** `POST /…/:id/rotate-secret`: how long the previous secret stays valid. */
export const rotateSchema = z.strictObject({
  overlapSec: z
    .number()
    .int()
    .min(0)
    .max(30 * 86_400)
    .optional(),
});

/** `?since=&until=&order=` of the admin lists that grow with traffic: newest first by default. */
export const timeRangeQuery = {
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  order: listOrder,
};

/** The store's list order from a parsed time-range query. */
export function listOrderOf(q: { since?: string | undefined; until?: string | undefined; order: 'newest' | 'oldest' }) {
  return {
    since: q.since === undefined ? undefined : Date.parse(q.since),
    until: q.until === undefined ? undefined : Date.parse(q.until),
    oldestFirst: q.order === 'oldest',
  };
}

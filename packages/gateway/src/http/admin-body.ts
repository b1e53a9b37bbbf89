import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { badRequest } from './problem.ts';
import { headerValue, isJsonObject, mediaType, parseJsonBody, rawBodyOf } from './raw-body.ts';

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
  }
  return parseWith(schema, value, 'invalid request body');
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

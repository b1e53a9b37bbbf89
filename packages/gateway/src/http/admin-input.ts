import { isNestedDeeper, MAX_JSON_DEPTH } from '@snapgate/snap';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { firstBadTextField } from '../text.ts';
import { badTextProblem } from './admin-body.ts';
import { badRequest } from './problem.ts';
import { BODY_LIMIT_BYTES, rawBodyOf } from './raw-body.ts';

/**
 * A preValidation hook for the admin API: a path parameter or query value holding a control
 * character or an unpaired surrogate is refused with 400 naming it, on every store alike
 * (PostgreSQL cannot even compare such text). Bodies are checked where they are parsed, but for
 * their depth: a body nested deeper than any admin body is refused here, on every route, before a
 * handler runs, even on a route that ignores its body. A body over the usual 64 KiB reaches only a
 * route that reads it itself (a provider's report, up to 8 MiB): walking it here would hold the
 * event loop 100-200 ms, so that route checks its depth where it parses it, off the loop
 * (books/report-reader.ts).
 */
export async function refuseBadAdminText(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  for (const [where, value] of [
    ['path', request.params],
    ['query', request.query],
  ] as const) {
    const field = firstBadTextField(value);
    if (field !== undefined) throw badRequest(`invalid ${where}`, [badTextProblem(field || where)]);
  }
  const raw = rawBodyOf(request);
  if (raw.length <= BODY_LIMIT_BYTES && isNestedDeeper(raw)) {
    throw badRequest('invalid request body', [`body: nested deeper than ${MAX_JSON_DEPTH} levels`]);
  }
}

import type { FastifyReply, FastifyRequest } from 'fastify';
import { firstBadTextField } from '../text.ts';
import { badTextProblem } from './admin-body.ts';
import { badRequest } from './problem.ts';

/**
 * A preValidation hook for the admin API: a path parameter or query value holding a control
 * character or an unpaired surrogate is refused with 400 naming it, on every store alike
 * (PostgreSQL cannot even compare such text). Bodies are checked where they are parsed.
 */
export async function refuseBadAdminText(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  for (const [where, value] of [
    ['path', request.params],
    ['query', request.query],
  ] as const) {
    const field = firstBadTextField(value);
    if (field !== undefined) throw badRequest(`invalid ${where}`, [badTextProblem(field || where)]);
  }
}

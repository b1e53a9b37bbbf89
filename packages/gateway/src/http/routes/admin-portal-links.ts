import type { FastifyInstance } from 'fastify';
import type { SessionService } from '../../operators/sessions.ts';
import { badRequest } from '../problem.ts';
import { rawBodyOf } from '../raw-body.ts';

/** `POST /admin/v1/merchants/:id/portal-link`: a merchant portal sign-in link (docs/console.md). */
export function adminPortalLinkRoutes(app: FastifyInstance, deps: { sessions: SessionService }) {
  // The link is a credential: the audit log keeps that one was made, never the link itself.
  const config = { api: 'admin' as const, auditRedacts: ['url'] };
  app.post<{ Params: { id: string } }>('/merchants/:id/portal-link', { config }, async (request, reply) => {
    const body = rawBodyOf(request);
    if (body.length > 0 && body.toString('utf8').trim() !== '{}') throw badRequest('this route takes no body');
    const { url, expiresAt } = await deps.sessions.portalLink(request.params.id.slice(0, 64));
    return reply.code(201).send({ url, expiresAt });
  });
}

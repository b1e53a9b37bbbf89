import type { FastifyInstance } from 'fastify';
import type { SessionService } from '../../operators/sessions.ts';
import { refuseBody } from '../admin-body.ts';
import { conflict, idParam, notFound, ok, op, T, TAG } from '../openapi/admin-kit.ts';
import type { Operation } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

/** `POST /admin/v1/merchants/:id/portal-link`: a merchant portal sign-in link (docs/console.md). */
export function adminPortalLinkRoutes(app: FastifyInstance, deps: { sessions: SessionService; docs: RouteDocs }) {
  documentedRoute<{ Params: { id: string } }>(app, deps.docs, {
    method: 'post',
    url: '/merchants/:id/portal-link',
    // The link is a credential: the audit log keeps that one was made, never the link itself.
    config: { api: 'admin', auditRedacts: ['url'] },
    operation: PORTAL_LINK,
    handler: async (request, reply) => {
      refuseBody(request);
      const { url, expiresAt } = await deps.sessions.portalLink(request.params.id.slice(0, 64));
      return reply.code(201).send({ url, expiresAt });
    },
  });
}

const PORTAL_LINK: Operation = op({
  operationId: 'createMerchantPortalLink',
  tags: [TAG.merchants],
  summary: 'Create a merchant portal sign-in link',
  description:
    'A short-lived (15 minutes), single-use signed link that signs the merchant in to its own portal at `/console/portal` (docs/console.md). Until it is used or expires, anyone holding the link can sign in as the merchant; once one browser has signed in with it, the link only says that it was already used (on every instance). The audit log records that a link was made, never the link. No body.',
  parameters: [idParam('merchant')],
  responses: {
    ...ok(
      'The link and when it expires.',
      {
        type: 'object',
        required: ['url', 'expiresAt'],
        additionalProperties: false,
        properties: {
          url: { type: 'string', format: 'uri', description: 'The sign-in link (a credential).' },
          expiresAt: { type: 'string', format: 'date-time' },
        },
      },
      {
        url: 'https://gateway.example/console/portal/enter?token=eyJ0IjoicG9ydGFsIn0.c2lnbmF0dXJl',
        expiresAt: T,
      },
      '201',
    ),
    '404': notFound('merchant'),
    '409': conflict('The merchant is disabled.', 'the merchant is disabled'),
  },
});

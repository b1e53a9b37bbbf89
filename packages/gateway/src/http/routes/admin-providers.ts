import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { iso } from '../../payments/transaction-view.ts';
import { type ProviderService, providerView } from '../../providers/provider-service.ts';
import { idParams, listQuery, parseAdminBody, parseWith, rotateSchema } from '../admin-body.ts';

const text = (max: number) => z.string().trim().min(1).max(max);
const pem = z.string().max(16_384);
const bankCode = z.string().regex(/^\d{3}$/, 'must be 3 digits');
const path = z.string().regex(/^\/[\x21-\x7e]{0,255}$/, 'must be a path starting with /');
const outbound = z.strictObject({
  baseUrl: z.string().max(2048),
  clientKey: text(128),
  clientSecret: text(512),
  privateKeyPem: pem.nullable().optional(),
  partnerId: text(64),
  channelId: z.string().max(5).optional(),
  tokenPath: path.optional(),
  pathPrefix: path.optional(),
});

export const createSchema = z.strictObject({
  name: text(100),
  kind: z.enum(['bank', 'acquirer']),
  bankCode,
  publicKeyPem: pem.optional(),
  outbound: outbound.optional(),
});
export const patchSchema = z
  .strictObject({
    name: text(100).optional(),
    bankCode: bankCode.optional(),
    publicKeyPem: pem.nullable().optional(),
    outbound: outbound.nullable().optional(),
    status: z.enum(['active', 'disabled']).optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'at least one field is required');

/** Admin API for upstream providers: banks and acquirers. Secrets are shown once. */
export function adminProviderRoutes(app: FastifyInstance, deps: { providers: ProviderService }) {
  const { providers } = deps;
  const config = { api: 'admin' as const };

  app.post('/providers', { config }, async (request, reply) => {
    const input = parseAdminBody(request, createSchema);
    const { provider, clientSecret } = await providers.create(input);
    return reply.code(201).send({ ...providerView(provider), clientSecret });
  });

  app.get('/providers', { config }, async (request) => {
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await providers.list({ limit: q.limit, cursor: q.cursor });
    return { items: page.items.map(providerView), nextCursor: page.nextCursor };
  });

  app.get('/providers/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    return providerView(await providers.get(id));
  });

  app.patch('/providers/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const patch = parseAdminBody(request, patchSchema);
    return providerView(await providers.update(id, patch));
  });

  app.post('/providers/:id/rotate-secret', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const { overlapSec } = parseAdminBody(request, rotateSchema, true);
    const r = await providers.rotateSecret(id, overlapSec ?? 86_400);
    return { clientSecret: r.clientSecret, previousValidUntil: iso(r.previousValidUntil) };
  });

  app.get('/providers/:id/inbound', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const q = parseWith(listQuery, request.query, 'invalid query');
    const page = await providers.inbound(id, { limit: q.limit, cursor: q.cursor });
    return {
      items: page.items.map(({ providerId: _p, at, ...rest }) => ({ ...rest, at: iso(at) })),
      nextCursor: page.nextCursor,
    };
  });
}

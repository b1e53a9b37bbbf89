import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { Page, PageRequest } from '../../records/records.ts';
import { clientListQuery, idParams, parseAdminBody, parseWith, rotateSchema } from '../admin-body.ts';

// The admin routes merchants and providers share, one shape for both: create (the client secret
// answered this once), list, show, change (or disable), rotate the client secret with an overlap.
// What differs (the settings, how a record is shown) comes from each one's fields and service.

/** What a kind of client (merchants, providers) gives the shared routes. */
export interface ClientAdmin<Rec, Create extends z.ZodType, Patch extends z.ZodType> {
  /** Where they are served: `/merchants`, `/providers`. */
  path: string;
  createSchema: Create;
  patchSchema: Patch;
  /** A record as the admin API shows it (never a secret). */
  view: (record: Rec) => object;
  create: (input: z.output<Create>) => Promise<{ record: Rec; clientSecret: string }>;
  list: (page: PageRequest) => Promise<Page<Rec>>;
  get: (id: string) => Promise<Rec>;
  update: (id: string, patch: z.output<Patch>) => Promise<Rec>;
  rotateSecret: (id: string, overlapSec: number) => Promise<{ clientSecret: string; previousValidUntil: number }>;
}

/** How long the previous secret keeps working after a rotation, unless `overlapSec` says. */
const DEFAULT_OVERLAP_SEC = 86_400;

export function clientAdminRoutes<Rec, Create extends z.ZodType, Patch extends z.ZodType>(
  app: FastifyInstance,
  client: ClientAdmin<Rec, Create, Patch>,
): void {
  const { path, view } = client;
  const config = { api: 'admin' as const };
  const idOf = (params: unknown) => parseWith(idParams, params, 'invalid path').id;

  app.post(path, { config }, async (request, reply) => {
    const { record, clientSecret } = await client.create(parseAdminBody(request, client.createSchema));
    return reply.code(201).send({ ...view(record), clientSecret });
  });

  app.get(path, { config }, async (request) => {
    const q = parseWith(clientListQuery, request.query, 'invalid query');
    const page = await client.list({ limit: q.limit, cursor: q.cursor, oldestFirst: q.order === 'oldest' });
    return { items: page.items.map(view), nextCursor: page.nextCursor };
  });

  app.get(`${path}/:id`, { config }, async (request) => view(await client.get(idOf(request.params))));

  app.patch(`${path}/:id`, { config }, async (request) => {
    const id = idOf(request.params);
    return view(await client.update(id, parseAdminBody(request, client.patchSchema)));
  });

  app.post(`${path}/:id/rotate-secret`, { config }, async (request) => {
    const id = idOf(request.params);
    const { overlapSec } = parseAdminBody(request, rotateSchema, true);
    const r = await client.rotateSecret(id, overlapSec ?? DEFAULT_OVERLAP_SEC);
    return { clientSecret: r.clientSecret, previousValidUntil: new Date(r.previousValidUntil).toISOString() };
  });
}

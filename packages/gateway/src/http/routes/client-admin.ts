import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { z } from 'zod';
import type { Page, PageRequest } from '../../records/records.ts';
import { clientListQuery, idParams, parseAdminBody, parseWith, rotateSchema } from '../admin-body.ts';
import type { HttpMethod, Operation } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

// The admin routes merchants and providers share, one shape for both: create (the client secret
// answered this once), list, show, change (or disable), rotate the client secret with an overlap.
// What differs (the settings, how a record is shown, what the document says of each route) comes
// from each one's fields, service and operations.

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
  /** What the admin API's document says of each route. */
  operations: ClientOperations;
}

/** The admin document's operation of each shared route. */
export interface ClientOperations {
  create: Operation;
  list: Operation;
  get: Operation;
  update: Operation;
  rotateSecret: Operation;
}

/** How long the previous secret keeps working after a rotation, unless `overlapSec` says. */
const DEFAULT_OVERLAP_SEC = 86_400;

export function clientAdminRoutes<Rec, Create extends z.ZodType, Patch extends z.ZodType>(
  app: FastifyInstance,
  docs: RouteDocs,
  client: ClientAdmin<Rec, Create, Patch>,
): void {
  const { path, view, operations } = client;
  const config = { api: 'admin' as const };
  const idOf = (params: unknown) => parseWith(idParams, params, 'invalid path').id;
  const route = (method: HttpMethod, url: string, operation: Operation, handler: RouteHandlerMethod) =>
    documentedRoute(app, docs, { method, url, config, operation, handler });

  route('post', path, operations.create, async (request, reply) => {
    const { record, clientSecret } = await client.create(parseAdminBody(request, client.createSchema));
    return reply.code(201).send({ ...view(record), clientSecret });
  });

  route('get', path, operations.list, async (request) => {
    const q = parseWith(clientListQuery, request.query, 'invalid query');
    const page = await client.list({ limit: q.limit, cursor: q.cursor, oldestFirst: q.order === 'oldest' });
    return { items: page.items.map(view), nextCursor: page.nextCursor };
  });

  route('get', `${path}/:id`, operations.get, async (request) => view(await client.get(idOf(request.params))));

  route('patch', `${path}/:id`, operations.update, async (request) => {
    const id = idOf(request.params);
    return view(await client.update(id, parseAdminBody(request, client.patchSchema)));
  });

  route('post', `${path}/:id/rotate-secret`, operations.rotateSecret, async (request) => {
    const id = idOf(request.params);
    const { overlapSec } = parseAdminBody(request, rotateSchema, true);
    const r = await client.rotateSecret(id, overlapSec ?? DEFAULT_OVERLAP_SEC);
    return { clientSecret: r.clientSecret, previousValidUntil: new Date(r.previousValidUntil).toISOString() };
  });
}

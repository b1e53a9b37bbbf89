import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type AdminKeyService, adminKeyView } from '../../operators/admin-keys.ts';
import type { AuditLog, StoredAuditEntry } from '../../operators/audit-log.ts';
import { idParams, listQuery, parseAdminBody, parseWith } from '../admin-body.ts';
import {
  BAD_PATH,
  BAD_QUERY,
  badRequest,
  body,
  conflict,
  idParam,
  LIST_DESCRIPTIONS,
  notFound,
  ok,
  op,
  page,
  T,
  TAG,
} from '../openapi/admin-kit.ts';
import { closed, fromZod, type Operation, queryParameters, ref } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

export const adminKeyCreateSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, dot, dash or underscore'),
  scope: z.enum(['read', 'operate', 'admin', 'approve']),
});
export const auditQuery = listQuery.extend({ target: z.string().max(128).optional() });

const parsed = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

function auditView(e: StoredAuditEntry) {
  return {
    id: e.id,
    at: new Date(e.at).toISOString(),
    keyId: e.keyId,
    keyName: e.keyName,
    address: e.address,
    action: e.action,
    path: e.path,
    target: e.target,
    httpStatus: e.httpStatus,
    request: parsed(e.request),
    before: parsed(e.before),
    after: parsed(e.after),
  };
}

/** Named admin keys with a scope (shown once, stored hashed, revocable) and the audit log. */
export function adminAccessRoutes(
  app: FastifyInstance,
  deps: { adminKeys: AdminKeyService; audit: AuditLog; docs: RouteDocs },
) {
  const { adminKeys, audit } = deps;
  const config = { api: 'admin' as const };
  const ops = accessOperations();

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/admin-keys',
    config,
    operation: ops.createAdminKey,
    handler: async (request, reply) => {
      const input = parseAdminBody(request, adminKeyCreateSchema);
      const { record, key } = await adminKeys.create(input);
      return reply.code(201).send({ ...adminKeyView(record), key });
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/admin-keys',
    config,
    operation: ops.listAdminKeys,
    handler: async () => ({ items: (await adminKeys.list()).map(adminKeyView) }),
  });

  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/admin-keys/:id/revoke',
    config,
    operation: ops.revokeAdminKey,
    handler: async (request) => {
      const { id } = parseWith(idParams, request.params, 'invalid path');
      return adminKeyView(await adminKeys.revoke(id));
    },
  });

  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/audit',
    config,
    operation: ops.listAudit,
    handler: async (request) => {
      const q = parseWith(auditQuery, request.query, 'invalid query');
      const page = await audit.list({ limit: q.limit, cursor: q.cursor }, q.target ? { target: q.target } : {});
      return { items: page.items.map(auditView), nextCursor: page.nextCursor };
    },
  });
}

const ADMIN_KEY_EXAMPLE = {
  id: 'key_3f9a1c2b4d5e6f70',
  name: 'ops-readonly',
  scope: 'read',
  createdAt: T,
  lastUsedAt: null,
  revokedAt: null,
};

/** What the admin API's document says of each route of this area, by operationId. */
function accessOperations() {
  return {
    createAdminKey: op({
      operationId: 'createAdminKey',
      tags: [TAG.access],
      summary: 'Create an admin key',
      description:
        'A named key with a scope: `read` (every GET), `operate` (also deliveries and the sandbox), `admin` (everything). The key is shown this once; only its SHA-256 is stored.',
      requestBody: body(
        fromZod(adminKeyCreateSchema, {
          name: 'Unique among admin keys; shown in the audit log.',
          scope: 'What the key may do.',
        }),
        { name: 'ops-readonly', scope: 'read' },
      ),
      responses: {
        ...ok('Created.', ref('CreatedAdminKey'), { ...ADMIN_KEY_EXAMPLE, key: 'sgk_…' }, '201'),
        '400': badRequest('Invalid body.', ['scope: Invalid option: expected one of "read"|"operate"|"admin"']),
        '409': conflict('An admin key of that name exists.', 'an admin key named ops-readonly exists'),
      },
    }),
    listAdminKeys: op({
      operationId: 'listAdminKeys',
      tags: [TAG.access],
      summary: 'List admin keys',
      description: 'Every admin key, revoked ones too; never a key or its hash.',
      responses: ok('The keys.', closed({ items: { type: 'array', items: ref('AdminKey') } }), {
        items: [ADMIN_KEY_EXAMPLE],
      }),
    }),
    revokeAdminKey: op({
      operationId: 'revokeAdminKey',
      tags: [TAG.access],
      summary: 'Revoke an admin key',
      description: 'Refused at once by every instance. The last admin-scope key cannot be revoked.',
      parameters: [idParam('admin key')],
      responses: {
        ...ok('The key, revoked.', ref('AdminKey'), { ...ADMIN_KEY_EXAMPLE, revokedAt: T }),
        '400': BAD_PATH,
        '404': notFound('admin key'),
        '409': conflict(
          'It is the last admin-scope key.',
          'the last admin key cannot be revoked: create another admin key first',
        ),
      },
    }),
    listAudit: op({
      operationId: 'listAudit',
      tags: [TAG.access],
      summary: 'The audit log',
      description:
        'Every state-changing admin action, newest first: who, from where, what, the resource before and after (secrets redacted), and how it ended.',
      parameters: queryParameters(auditQuery, { ...LIST_DESCRIPTIONS, target: 'Only actions about this id.' }),
      responses: { ...ok('A page of the log.', page('AuditEntry')), '400': BAD_QUERY },
    }),
  } satisfies Record<string, Operation>;
}

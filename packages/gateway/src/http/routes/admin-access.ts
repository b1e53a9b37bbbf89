import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AdminKeyRecord, AdminKeyService } from '../../operators/admin-keys.ts';
import type { AuditLog, StoredAuditEntry } from '../../operators/audit-log.ts';
import { idParams, listQuery, parseAdminBody, parseWith } from '../admin-body.ts';

export const adminKeyCreateSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1 to 64 letters, digits, dot, dash or underscore'),
  scope: z.enum(['read', 'operate', 'admin']),
});
export const auditQuery = listQuery.extend({ target: z.string().max(128).optional() });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An admin key as the API shows it: never the key, never its hash. */
function adminKeyView(k: AdminKeyRecord) {
  return {
    id: k.id,
    name: k.name,
    scope: k.scope,
    createdAt: iso(k.createdAt),
    lastUsedAt: iso(k.lastUsedAt),
    revokedAt: iso(k.revokedAt),
  };
}

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
export function adminAccessRoutes(app: FastifyInstance, deps: { adminKeys: AdminKeyService; audit: AuditLog }) {
  const { adminKeys, audit } = deps;
  const config = { api: 'admin' as const };

  app.post('/admin-keys', { config }, async (request, reply) => {
    const input = parseAdminBody(request, adminKeyCreateSchema);
    const { record, key } = await adminKeys.create(input);
    return reply.code(201).send({ ...adminKeyView(record), key });
  });

  app.get('/admin-keys', { config }, async () => ({ items: (await adminKeys.list()).map(adminKeyView) }));

  app.post('/admin-keys/:id/revoke', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    return adminKeyView(await adminKeys.revoke(id));
  });

  app.get('/audit', { config }, async (request) => {
    const q = parseWith(auditQuery, request.query, 'invalid query');
    const page = await audit.list({ limit: q.limit, cursor: q.cursor }, q.target ? { target: q.target } : {});
    return { items: page.items.map(auditView), nextCursor: page.nextCursor };
  });
}

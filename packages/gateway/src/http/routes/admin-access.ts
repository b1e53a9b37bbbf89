import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import { type AdminKeyRecord, type Store, type StoredAuditEntry, UniqueViolation } from '../../store/store.ts';
import { hashAdminToken } from '../admin-auth.ts';
import { idParams, listQuery, parseAdminBody, parseWith } from '../admin-body.ts';
import { conflict, notFound } from '../problem.ts';

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
export function adminAccessRoutes(app: FastifyInstance, deps: { store: Store; clock: Clock }) {
  const { store, clock } = deps;
  const config = { api: 'admin' as const };

  app.post('/admin-keys', { config }, async (request, reply) => {
    const input = parseAdminBody(request, adminKeyCreateSchema);
    const key = `sgk_${randomBytes(24).toString('base64url')}`;
    const record: AdminKeyRecord = {
      id: `key_${randomUUID().replaceAll('-', '').slice(0, 16)}`,
      name: input.name,
      scope: input.scope,
      tokenSha256: hashAdminToken(key),
      createdAt: clock.now(),
      lastUsedAt: null,
      revokedAt: null,
    };
    try {
      await store.insertAdminKey(record);
    } catch (e) {
      if (e instanceof UniqueViolation) throw conflict(`an admin key named ${input.name} exists`);
      throw e;
    }
    return reply.code(201).send({ ...adminKeyView(record), key });
  });

  app.get('/admin-keys', { config }, async () => ({ items: (await store.listAdminKeys()).map(adminKeyView) }));

  app.post('/admin-keys/:id/revoke', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const keys = await store.listAdminKeys();
    const key = keys.find((k) => k.id === id);
    if (!key) throw notFound('admin key');
    const adminsLeft = keys.filter((k) => k.scope === 'admin' && k.revokedAt === null && k.id !== id).length;
    if (key.scope === 'admin' && key.revokedAt === null && adminsLeft === 0) {
      throw conflict('the last admin key cannot be revoked: create another admin key first');
    }
    return adminKeyView((await store.revokeAdminKey(id, clock.now())) as AdminKeyRecord);
  });

  app.get('/audit', { config }, async (request) => {
    const q = parseWith(auditQuery, request.query, 'invalid query');
    const page = await store.listAudit({ limit: q.limit, cursor: q.cursor }, q.target ? { target: q.target } : {});
    return { items: page.items.map(auditView), nextCursor: page.nextCursor };
  });
}

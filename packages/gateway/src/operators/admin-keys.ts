import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { conflict, notFound } from '../domain-error.ts';
import { type AdminKeyRecord, type AdminScope, UniqueViolation } from '../records/records.ts';
import type { AccessStore } from '../store/store.ts';

export type { AdminKeyRecord, AdminScope };

/** Keys are stored as the SHA-256 of the key: a copied database lets no one in. */
export const hashAdminToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Named admin keys with a scope: made (the key shown once, stored hashed), listed, revoked (never
 * the last admin key), and looked up by the key itself. The admin API, its auth hook and the
 * console's log-in all go through here.
 */
export function createAdminKeyService({ store, clock }: { store: AccessStore; clock: Clock }) {
  return {
    async create(input: { name: string; scope: AdminScope }): Promise<{ record: AdminKeyRecord; key: string }> {
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
      return { record, key };
    },

    list: (): Promise<AdminKeyRecord[]> => store.listAdminKeys(),

    /** A key by its id, revoked or not. */
    async find(id: string): Promise<AdminKeyRecord | undefined> {
      return (await store.listAdminKeys()).find((k) => k.id === id);
    },

    async revoke(id: string): Promise<AdminKeyRecord> {
      const revocation = await store.revokeAdminKey(id, clock.now());
      if (revocation.outcome === 'not-found') throw notFound('admin key');
      if (revocation.outcome === 'last-admin-key') {
        throw conflict('the last admin key cannot be revoked: create another admin key first');
      }
      return revocation.key;
    },

    /** The key a caller presented, when it is one and not revoked; read from the database every time. */
    async authenticate(token: string | undefined): Promise<AdminKeyRecord | undefined> {
      const key = token ? await store.findAdminKeyByHash(hashAdminToken(token)) : undefined;
      return key && key.revokedAt === null ? key : undefined;
    },

    touch: (id: string, at: number): Promise<void> => store.touchAdminKey(id, at),
  };
}

export type AdminKeyService = ReturnType<typeof createAdminKeyService>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An admin key as the admin API answers it and the audit log keeps it: never the key, never its hash. */
export const adminKeyView = (k: AdminKeyRecord) => ({
  id: k.id,
  name: k.name,
  scope: k.scope,
  createdAt: iso(k.createdAt),
  lastUsedAt: iso(k.lastUsedAt),
  revokedAt: iso(k.revokedAt),
});

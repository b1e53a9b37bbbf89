// Never the last admin key, even when revokes race: the check and the revoke are one atomic step
// of the store, so two operators revoking the last two admin keys at the same moment leave one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { type AdminKeyService, createAdminKeyService } from '../../src/operators/admin-keys.ts';
import type { AdminKeyRecord } from '../../src/records/records.ts';
import type { Store } from '../../src/store/store.ts';

export interface BareStore {
  name: 'SQLite' | 'PostgreSQL';
  open(): Promise<{ store: Store; cleanup: () => Promise<void> }>;
}

type Outcome = 'revoked' | 'refused';

export function adminKeyRevokeSuite(under: BareStore): void {
  describe(`revoking admin keys (${under.name})`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let keys: AdminKeyService;
    let n = 0;

    before(async () => {
      ({ store, cleanup } = await under.open());
      keys = createAdminKeyService({ store, clock: createManualClock(1_800_000_000_000) });
    });
    after(async () => {
      await store.close();
      await cleanup();
    });

    const make = async (scope: 'admin' | 'read' = 'admin'): Promise<AdminKeyRecord> =>
      (await keys.create({ name: `key-${++n}`, scope })).record;
    const activeAdmins = async () =>
      (await keys.list()).filter((k) => k.scope === 'admin' && k.revokedAt === null).map((k) => k.id);
    const attempt = (id: string): Promise<Outcome> =>
      keys.revoke(id).then(
        () => 'revoked',
        (e: { kind?: string; message?: string }) => {
          assert.equal(e.kind, 'conflict', `refused as a conflict, not ${String(e.message)}`);
          return 'refused';
        },
      );

    it('says whether it revoked, refused the last admin key, or found no key', async () => {
      const only = await make();
      const reader = await make('read');
      assert.deepEqual(await store.revokeAdminKey(only.id, 1), { outcome: 'last-admin-key' });
      assert.deepEqual(await store.revokeAdminKey('key_none', 1), { outcome: 'not-found' });
      const revoked = await store.revokeAdminKey(reader.id, 5);
      assert.equal(revoked.outcome, 'revoked');
      assert.equal(revoked.outcome === 'revoked' && revoked.key.revokedAt, 5);
      // Revoked once: a second revoke changes nothing and says so.
      const again = await store.revokeAdminKey(reader.id, 9);
      assert.equal(again.outcome === 'revoked' && again.key.revokedAt, 5);
      assert.deepEqual(await activeAdmins(), [only.id]);
    });

    it('leaves one admin key when the last two are revoked at once, round after round', async () => {
      // One admin key is active (the previous test's); each round adds one, then revokes both at
      // once, several times each: one of the pair goes, the other is refused every time.
      let survivor = (await activeAdmins())[0] ?? (await make()).id;
      for (let round = 0; round < 24; round++) {
        const fresh = (await make()).id;
        const copies = 1 + (round % 4);
        const pair = [survivor, fresh];
        const targets = Array.from({ length: copies * 2 }, (_, i) => pair[i % 2] as string);
        const outcomes = await Promise.all(targets.map(attempt));
        const active = await activeAdmins();
        assert.equal(active.length, 1, `round ${round}: one admin key remains, not ${active.length}`);
        const kept = active[0] as string;
        assert.ok(pair.includes(kept), `round ${round}: the one left is one of the pair`);
        targets.forEach((id, i) => {
          assert.equal(outcomes[i], id === kept ? 'refused' : 'revoked', `round ${round}: revoke ${i} of ${id}`);
        });
        survivor = kept;
      }
    });
  });
}

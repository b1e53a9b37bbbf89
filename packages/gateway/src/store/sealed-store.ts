import type { AccountBinding, BindingChange } from '../records/binding-records.ts';
import type { MerchantUser } from '../records/merchant-user-records.ts';
import type { ProviderOutbound, ProviderPatch, ProviderRecord } from '../records/provider-records.ts';
import type { MerchantRecord, Page, SecretPlace } from '../records/records.ts';
import { RECORD_HEAD_CHARS, SealError, type Sealer } from '../secrets/sealer.ts';
import type { Store } from './store.ts';

/** Settings that hold secrets (the rest, like the admin token's hash, are not secret). */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'jwt_hs256_key',
  'callback_rsa_private_pem',
  'console_session_key',
]);

/**
 * Where a secret lives, as its seal names it (Sealer.seal: a record opens only there). A previous
 * secret is the client secret of before, moved in one statement by a rotation (parts/clients.ts),
 * so both columns are one place: who can write the database to swap them could as well extend
 * `previous_valid_until`.
 */
export function placeOfSecret(place: SecretPlace): string {
  if (place.table === 'settings') return `settings/${place.key}`;
  const column = place.column === 'previous_secret' ? 'client_secret' : place.column;
  return `${place.table}.${column}/${place.id}`;
}

const clientSecretAt = (table: 'merchants' | 'providers', id: string) =>
  placeOfSecret({ table, column: 'client_secret', id });
const outboundAt = (id: string, field: 'clientSecret' | 'privateKeyPem') =>
  placeOfSecret({ table: 'providers', column: `outbound.${field}`, id });
const settingAt = (key: string) => placeOfSecret({ table: 'settings', key });
const totpSecretAt = (id: string) => placeOfSecret({ table: 'merchant_users', column: 'totp_secret', id });
const walletTokenAt = (id: string, column: 'wallet_access_token' | 'wallet_refresh_token') =>
  placeOfSecret({ table: 'account_bindings', column, id });

/**
 * The store as the gateway uses it: every secret it writes is sealed (src/secrets/sealer.ts) for
 * the place it is written to, and every secret it reads is opened there, so nothing else in the
 * gateway ever sees a sealed value and the database never holds a clear one. Records are opened
 * once per stored version: the stores' caches hand back the same object until it changes, and so
 * does this.
 */
export function sealedStore(inner: Store, sealer: Sealer): Store {
  const openedMerchants = new WeakMap<MerchantRecord, MerchantRecord>();
  const openedProviders = new WeakMap<ProviderRecord, ProviderRecord>();
  const open = (s: string | null, place: string) => (s === null ? null : sealer.unseal(s, place));
  const seal = (s: string | null, place: string) => (s === null ? null : sealer.seal(s, place));

  function openMerchant(m: MerchantRecord | undefined): MerchantRecord | undefined {
    if (!m) return undefined;
    let o = openedMerchants.get(m);
    if (!o) {
      const at = clientSecretAt('merchants', m.id);
      o = { ...m, clientSecret: sealer.unseal(m.clientSecret, at), previousSecret: open(m.previousSecret, at) };
      openedMerchants.set(m, o);
    }
    return o;
  }
  const openOutbound = (id: string, o: ProviderOutbound | null) =>
    o && {
      ...o,
      clientSecret: sealer.unseal(o.clientSecret, outboundAt(id, 'clientSecret')),
      privateKeyPem: open(o.privateKeyPem, outboundAt(id, 'privateKeyPem')),
    };
  const sealOutbound = (id: string, o: ProviderOutbound | null) =>
    o && {
      ...o,
      clientSecret: sealer.seal(o.clientSecret, outboundAt(id, 'clientSecret')),
      privateKeyPem: seal(o.privateKeyPem, outboundAt(id, 'privateKeyPem')),
    };
  function openProvider(p: ProviderRecord | undefined): ProviderRecord | undefined {
    if (!p) return undefined;
    let o = openedProviders.get(p);
    if (!o) {
      const at = clientSecretAt('providers', p.id);
      o = {
        ...p,
        clientSecret: sealer.unseal(p.clientSecret, at),
        previousSecret: open(p.previousSecret, at),
        outbound: openOutbound(p.id, p.outbound),
      };
      openedProviders.set(p, o);
    }
    return o;
  }
  const openUser = (u: MerchantUser | undefined): MerchantUser | undefined =>
    u && { ...u, totpSecret: open(u.totpSecret, totpSecretAt(u.id)) };
  const openBinding = (b: AccountBinding | undefined): AccountBinding | undefined =>
    b && {
      ...b,
      walletAccessToken: open(b.walletAccessToken, walletTokenAt(b.id, 'wallet_access_token')),
      walletRefreshToken: open(b.walletRefreshToken, walletTokenAt(b.id, 'wallet_refresh_token')),
    };
  /** A binding's change with the wallet's tokens it sets sealed for that binding's row. */
  function sealBindingChange(id: string, change: BindingChange): BindingChange {
    const sealed = { ...change };
    if (change.walletAccessToken !== undefined) {
      sealed.walletAccessToken = seal(change.walletAccessToken, walletTokenAt(id, 'wallet_access_token'));
    }
    if (change.walletRefreshToken !== undefined) {
      sealed.walletRefreshToken = seal(change.walletRefreshToken, walletTokenAt(id, 'wallet_refresh_token'));
    }
    return sealed;
  }
  const openPage = <T>(page: Page<T>, opener: (t: T) => T | undefined): Page<T> => ({
    ...page,
    items: page.items.map((t) => opener(t) as T),
  });
  const sealRotation = <R extends { clientSecret: string }>(table: 'merchants' | 'providers', id: string, r: R): R => ({
    ...r,
    clientSecret: sealer.seal(r.clientSecret, clientSecretAt(table, id)),
  });

  const overrides: Partial<Store> = {
    async getSetting(key) {
      const v = await inner.getSetting(key);
      return v !== undefined && SECRET_SETTINGS.has(key) ? sealer.unseal(v, settingAt(key)) : v;
    },
    async getOrCreateSetting(key, create) {
      if (!SECRET_SETTINGS.has(key)) return inner.getOrCreateSetting(key, create);
      const at = settingAt(key);
      return sealer.unseal(await inner.getOrCreateSetting(key, () => sealer.seal(create(), at)), at);
    },
    insertMerchant: (m) => {
      const at = clientSecretAt('merchants', m.id);
      return inner.insertMerchant({
        ...m,
        clientSecret: sealer.seal(m.clientSecret, at),
        previousSecret: seal(m.previousSecret, at),
      });
    },
    findMerchantById: async (id) => openMerchant(await inner.findMerchantById(id)),
    findMerchantByClientKey: async (key) => openMerchant(await inner.findMerchantByClientKey(key)),
    listMerchants: async (page) => openPage(await inner.listMerchants(page), openMerchant),
    updateMerchant: async (id, patch, at) => openMerchant(await inner.updateMerchant(id, patch, at)),
    rotateMerchantSecret: async (id, r) =>
      openMerchant(await inner.rotateMerchantSecret(id, sealRotation('merchants', id, r))),
    insertProvider: (p) => {
      const at = clientSecretAt('providers', p.id);
      return inner.insertProvider({
        ...p,
        clientSecret: sealer.seal(p.clientSecret, at),
        previousSecret: seal(p.previousSecret, at),
        outbound: sealOutbound(p.id, p.outbound),
      });
    },
    findProviderById: async (id) => openProvider(await inner.findProviderById(id)),
    findProviderByClientKey: async (key) => openProvider(await inner.findProviderByClientKey(key)),
    listProviders: async (page) => openPage(await inner.listProviders(page), openProvider),
    findBanks: async (code) => (await inner.findBanks(code)).map((p) => openProvider(p) as ProviderRecord),
    findPayoutBank: async () => openProvider(await inner.findPayoutBank()),
    findWallet: async (payOption) => openProvider(await inner.findWallet(payOption)),
    updateProvider: async (id, patch, at) => {
      const sealed: ProviderPatch =
        patch.outbound === undefined ? patch : { ...patch, outbound: sealOutbound(id, patch.outbound) };
      return openProvider(await inner.updateProvider(id, sealed, at));
    },
    rotateProviderSecret: async (id, r) =>
      openProvider(await inner.rotateProviderSecret(id, sealRotation('providers', id, r))),
    insertMerchantUser: (u) => inner.insertMerchantUser({ ...u, totpSecret: seal(u.totpSecret, totpSecretAt(u.id)) }),
    findMerchantUser: async (key) => openUser(await inner.findMerchantUser(key)),
    listMerchantUsers: async (merchantId) =>
      (await inner.listMerchantUsers(merchantId)).map((u) => openUser(u) as MerchantUser),
    changeMerchantUser: async (id, change, at, guard) => {
      const sealed =
        change.totpSecret === undefined ? change : { ...change, totpSecret: seal(change.totpSecret, totpSecretAt(id)) };
      return openUser(await inner.changeMerchantUser(id, sealed, at, guard));
    },
    claimSignInAttempt: async (attempt) => openUser(await inner.claimSignInAttempt(attempt)),
    insertBinding: (b, idempotency) => inner.insertBinding({ ...b, ...sealBindingChange(b.id, b) }, idempotency),
    findBinding: async (key) => openBinding(await inner.findBinding(key)),
    findUntradedBindings: async (now, limit) =>
      (await inner.findUntradedBindings(now, limit)).map((b) => openBinding(b) as AccountBinding),
    changeBinding: async (key, from, change, at, options) => {
      // A wallet's token is sealed for its row: only a change keyed by the row's id may set one.
      const sealed = change.walletAccessToken === undefined && change.walletRefreshToken === undefined;
      if (!sealed && !('id' in key)) throw new TypeError('a binding’s wallet tokens change by its id');
      const next = sealed ? change : sealBindingChange((key as { id: string }).id, change);
      return openBinding(await inner.changeBinding(key, from, next, at, options));
    },
  };

  // Bound once per method, not on every call (several store calls per request); a method
  // replaced on the inner store (a test's or a benchmark's probe) is bound anew.
  const bound = new Map<PropertyKey, { method: unknown; bound: unknown }>();
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Store];
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function') return v;
      const known = bound.get(prop);
      if (known?.method === v) return known.bound;
      const b = v.bind(target);
      bound.set(prop, { method: v, bound: b });
      return b;
    },
  });
}

/**
 * At start-up: seals what the database holds in clear (written before sealing existed) and
 * rewrites form-1 records (sealed before they were bound to their place) in form 2, each under
 * the key it names. A record that does not open is left as it is (counted in `unopened`): it is
 * refused where it is used, as it would be without this.
 */
export async function upgradeStoredSecrets(
  store: Store,
  sealer: Sealer,
): Promise<{ rewritten: number; unopened: number }> {
  let unopened = 0;
  const rewritten = await store.resealSecrets((stored, place) => {
    try {
      return sealer.upgrade(stored, placeOfSecret(place));
    } catch (e) {
      if (!(e instanceof SealError)) throw e;
      unopened++;
      return undefined;
    }
  }, SECRET_SETTINGS);
  return { rewritten, unopened };
}

/**
 * Re-seals every stored secret under the current master key, in the current form (`keys rotate`).
 * Counts secret values, as `keys status` does (a row may hold two), not the rows rewritten.
 */
export async function resealStoredSecrets(store: Store, sealer: Sealer): Promise<number> {
  let values = 0;
  await store.resealSecrets((stored, place) => {
    const next = sealer.reseal(stored, placeOfSecret(place));
    if (next !== undefined) values++;
    return next;
  }, SECRET_SETTINGS);
  return values;
}

/**
 * How many stored secrets each master key seals (`clear`: none, never expected after start-up),
 * counted by the database from the head of each record: no row is locked or rewritten.
 */
export async function countSecretsByKey(store: Store, sealer: Sealer): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [head, n] of Object.entries(await store.countSecretsByHead(RECORD_HEAD_CHARS, SECRET_SETTINGS))) {
    const kid = sealer.keyIdOfRecord(head) ?? 'clear';
    counts[kid] = (counts[kid] ?? 0) + n;
  }
  return counts;
}

import type { Sealer } from '../secrets/sealer.ts';
import type { MerchantRecord, Page, ProviderOutbound, ProviderPatch, ProviderRecord, Store } from './store.ts';

/** Settings that hold secrets (the rest, like the admin token's hash, are not secret). */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'jwt_hs256_key',
  'callback_rsa_private_pem',
  'console_session_key',
]);

/**
 * The store as the gateway uses it: every secret it writes is sealed (src/secrets/sealer.ts) and
 * every secret it reads is opened, so nothing else in the gateway ever sees a sealed value and the
 * database never holds a clear one. Records are opened once per stored version: the stores'
 * caches hand back the same object until it changes, and so does this.
 */
export function sealedStore(inner: Store, sealer: Sealer): Store {
  const openedMerchants = new WeakMap<MerchantRecord, MerchantRecord>();
  const openedProviders = new WeakMap<ProviderRecord, ProviderRecord>();
  const open = (s: string | null) => (s === null ? null : sealer.unseal(s));
  const seal = (s: string | null) => (s === null ? null : sealer.seal(s));

  function openMerchant(m: MerchantRecord | undefined): MerchantRecord | undefined {
    if (!m) return undefined;
    let o = openedMerchants.get(m);
    if (!o) {
      o = { ...m, clientSecret: sealer.unseal(m.clientSecret), previousSecret: open(m.previousSecret) };
      openedMerchants.set(m, o);
    }
    return o;
  }
  const openOutbound = (o: ProviderOutbound | null) =>
    o && { ...o, clientSecret: sealer.unseal(o.clientSecret), privateKeyPem: open(o.privateKeyPem) };
  const sealOutbound = (o: ProviderOutbound | null) =>
    o && { ...o, clientSecret: sealer.seal(o.clientSecret), privateKeyPem: seal(o.privateKeyPem) };
  function openProvider(p: ProviderRecord | undefined): ProviderRecord | undefined {
    if (!p) return undefined;
    let o = openedProviders.get(p);
    if (!o) {
      o = {
        ...p,
        clientSecret: sealer.unseal(p.clientSecret),
        previousSecret: open(p.previousSecret),
        outbound: openOutbound(p.outbound),
      };
      openedProviders.set(p, o);
    }
    return o;
  }
  const openPage = <T>(page: Page<T>, opener: (t: T) => T | undefined): Page<T> => ({
    ...page,
    items: page.items.map((t) => opener(t) as T),
  });
  const sealRotation = <R extends { clientSecret: string }>(r: R): R => ({
    ...r,
    clientSecret: sealer.seal(r.clientSecret),
  });

  const overrides: Partial<Store> = {
    async getSetting(key) {
      const v = await inner.getSetting(key);
      return v !== undefined && SECRET_SETTINGS.has(key) ? sealer.unseal(v) : v;
    },
    async getOrCreateSetting(key, create) {
      if (!SECRET_SETTINGS.has(key)) return inner.getOrCreateSetting(key, create);
      return sealer.unseal(await inner.getOrCreateSetting(key, () => sealer.seal(create())));
    },
    insertMerchant: (m) =>
      inner.insertMerchant({ ...m, clientSecret: sealer.seal(m.clientSecret), previousSecret: seal(m.previousSecret) }),
    findMerchantById: async (id) => openMerchant(await inner.findMerchantById(id)),
    findMerchantByClientKey: async (key) => openMerchant(await inner.findMerchantByClientKey(key)),
    listMerchants: async (page) => openPage(await inner.listMerchants(page), openMerchant),
    updateMerchant: async (id, patch, at) => openMerchant(await inner.updateMerchant(id, patch, at)),
    rotateMerchantSecret: async (id, r) => openMerchant(await inner.rotateMerchantSecret(id, sealRotation(r))),
    insertProvider: (p) =>
      inner.insertProvider({
        ...p,
        clientSecret: sealer.seal(p.clientSecret),
        previousSecret: seal(p.previousSecret),
        outbound: sealOutbound(p.outbound),
      }),
    findProviderById: async (id) => openProvider(await inner.findProviderById(id)),
    findProviderByClientKey: async (key) => openProvider(await inner.findProviderByClientKey(key)),
    listProviders: async (page) => openPage(await inner.listProviders(page), openProvider),
    findBanks: async (code) => (await inner.findBanks(code)).map((p) => openProvider(p) as ProviderRecord),
    updateProvider: async (id, patch, at) => {
      const sealed: ProviderPatch =
        patch.outbound === undefined ? patch : { ...patch, outbound: sealOutbound(patch.outbound) };
      return openProvider(await inner.updateProvider(id, sealed, at));
    },
    rotateProviderSecret: async (id, r) => openProvider(await inner.rotateProviderSecret(id, sealRotation(r))),
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

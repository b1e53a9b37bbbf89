import type { TransactionStatus } from '@snapgate/snap';

type MaybePromise<T> = T | Promise<T>;

/**
 * Where the callback handler remembers the X-EXTERNAL-ID of every notification it acknowledged,
 * to drop a duplicate (docs/protocol.md#callbacks: the same id on every attempt and replay), and,
 * with `onRefund`, each refund it applied as `refund:<refundNo>` (strings of at most 25
 * characters, kept as long as the ids). Use a shared, durable store when several processes
 * receive callbacks.
 *
 * @example
 * const seen: DedupeStore = {
 *   has: async (id) => (await db.get('SELECT 1 FROM seen WHERE id = ?', id)) !== undefined,
 *   add: async (id) => db.run('INSERT OR IGNORE INTO seen (id) VALUES (?)', id),
 * };
 */
export interface DedupeStore {
  has(externalId: string): MaybePromise<boolean>;
  add(externalId: string): MaybePromise<void>;
}

/**
 * Where the callback handler keeps the last status it applied per transaction, keyed by the
 * gateway's `originalReferenceNo`, so an older or lower status never overwrites a newer one.
 *
 * @example
 * const statuses: StatusStore = {
 *   get: (ref) => db.get('SELECT status FROM payment_status WHERE ref = ?', ref)?.status,
 *   set: (ref, status) => db.run('INSERT OR REPLACE INTO payment_status VALUES (?, ?)', ref, status),
 * };
 */
export interface StatusStore {
  get(referenceNo: string): MaybePromise<TransactionStatus | undefined>;
  set(referenceNo: string, status: TransactionStatus): MaybePromise<void>;
}

/** Keeps at most `maxEntries`, forgetting the oldest first. */
function boundedMap<V>(maxEntries: number) {
  const map = new Map<string, V>();
  return {
    get: (key: string) => map.get(key),
    set(key: string, value: V) {
      map.delete(key);
      map.set(key, value);
      while (map.size > maxEntries) {
        const oldest = map.keys().next().value as string;
        map.delete(oldest);
      }
    },
  };
}

/**
 * The in-memory {@link DedupeStore}: the default; one process, forgotten on restart, at most
 * `maxEntries` ids (default 100 000).
 *
 * @example
 * const handler = createCallbackHandler({ ..., dedupeStore: createMemoryDedupeStore({ maxEntries: 10_000 }) });
 */
export function createMemoryDedupeStore(options: { maxEntries?: number } = {}): DedupeStore {
  const seen = boundedMap<true>(options.maxEntries ?? 100_000);
  return {
    has: (id) => seen.get(id) === true,
    add: (id) => seen.set(id, true),
  };
}

/**
 * The in-memory {@link StatusStore}: the default; one process, forgotten on restart, at most
 * `maxEntries` transactions (default 100 000).
 *
 * @example
 * const statuses = createMemoryStatusStore();
 * statuses.set('241121000000000001', '00');
 */
export function createMemoryStatusStore(options: { maxEntries?: number } = {}): StatusStore {
  const statuses = boundedMap<TransactionStatus>(options.maxEntries ?? 100_000);
  return {
    get: (ref) => statuses.get(ref),
    set: (ref, status) => statuses.set(ref, status),
  };
}

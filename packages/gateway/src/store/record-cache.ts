/**
 * A store's in-process cache of client records (merchants, providers), by id and by client key.
 * A read takes the generation first and is kept only if no write came in between, so a record
 * read before a write is never served after it.
 */
export interface RecordCache<T extends { id: string; clientKey: string }> {
  get(by: 'id' | 'client_key', key: string): T | undefined;
  generation(): number;
  remember(record: T, generation: number): void;
  forget(): void;
}

/** A cache that answers while `isOn()` (PostgreSQL: while it hears every instance's writes). */
export function createRecordCache<T extends { id: string; clientKey: string }>(
  options: { isOn?: () => boolean; onForget?: () => void } = {},
): RecordCache<T> {
  const isOn = options.isOn ?? (() => true);
  const byId = new Map<string, T>();
  const byKey = new Map<string, T>();
  let generation = 0;
  return {
    get: (by, key) => (isOn() ? (by === 'id' ? byId : byKey).get(key) : undefined),
    generation: () => generation,
    remember(record, seen) {
      if (!isOn() || seen !== generation) return;
      byId.set(record.id, record);
      byKey.set(record.clientKey, record);
    },
    forget() {
      generation++;
      byId.clear();
      byKey.clear();
      options.onForget?.();
    },
  };
}

/** No cache: every read goes to the database. */
export function noRecordCache<T extends { id: string; clientKey: string }>(): RecordCache<T> {
  return { get: () => undefined, generation: () => 0, remember: () => undefined, forget: () => undefined };
}

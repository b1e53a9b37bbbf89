import type { FastifyInstance } from 'fastify';
import type { Sealer } from '../../secrets/sealer.ts';
import { SECRET_SETTINGS } from '../../store/sealed-store.ts';
import type { Store } from '../../store/store.ts';

/** How many stored secrets each master key seals (`clear`: none, never expected after start-up). */
async function recordsByKey(store: Store, sealer: Sealer): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await store.resealSecrets((stored) => {
    const kid = sealer.keyIdOfRecord(stored) ?? 'clear';
    counts[kid] = (counts[kid] ?? 0) + 1;
    return undefined;
  }, SECRET_SETTINGS);
  return counts;
}

/**
 * The master keys (docs/operations.md#master-key): which key seals how many secrets, and
 * re-sealing every secret under the current key once a new SNAPGATE_MASTER_KEY is in place (the
 * old one still configured as SNAPGATE_MASTER_KEY_PREVIOUS until this is done).
 */
export function adminKeyRoutes(app: FastifyInstance, deps: { store: Store; sealer: Sealer }) {
  const config = { api: 'admin' as const };
  const status = async () => ({
    currentKeyId: deps.sealer.currentKeyId,
    configuredKeyIds: deps.sealer.keyIds,
    secretsByKeyId: await recordsByKey(deps.store, deps.sealer),
  });
  app.get('/keys', { config }, status);
  app.post('/keys/rotate', { config }, async () => {
    const resealed = await deps.store.resealSecrets((stored) => deps.sealer.reseal(stored), SECRET_SETTINGS);
    return { resealed, ...(await status()) };
  });
}

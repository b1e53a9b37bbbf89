import type { FastifyInstance } from 'fastify';
import type { Sealer } from '../../secrets/sealer.ts';
import { countSecretsByKey, resealStoredSecrets } from '../../store/sealed-store.ts';
import type { Store } from '../../store/store.ts';

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
    secretsByKeyId: await countSecretsByKey(deps.store, deps.sealer),
  });
  app.get('/keys', { config }, status);
  app.post('/keys/rotate', { config }, async () => {
    const resealed = await resealStoredSecrets(deps.store, deps.sealer);
    return { resealed, ...(await status()) };
  });
}

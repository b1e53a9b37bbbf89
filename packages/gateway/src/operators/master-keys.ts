import type { Sealer } from '../secrets/sealer.ts';
import { countSecretsByKey, resealStoredSecrets } from '../store/sealed-store.ts';
import type { Store } from '../store/store.ts';

/** Which master key seals how many stored secrets. */
export interface MasterKeyStatus {
  currentKeyId: string;
  configuredKeyIds: string[];
  secretsByKeyId: Record<string, number>;
}

/**
 * The master keys (docs/operations.md#master-key), alike for the admin API and the console: which
 * key seals how many secrets, and re-sealing every secret under the current key once a new
 * SNAPGATE_MASTER_KEY is in place (the old one still configured as SNAPGATE_MASTER_KEY_PREVIOUS).
 */
export function createMasterKeyService(deps: { store: Store; sealer: Sealer }) {
  const status = async (): Promise<MasterKeyStatus> => ({
    currentKeyId: deps.sealer.currentKeyId,
    configuredKeyIds: [...deps.sealer.keyIds],
    secretsByKeyId: await countSecretsByKey(deps.store, deps.sealer),
  });
  return {
    status,
    /** Re-seals every secret under the current key; how many were re-sealed, and the status after. */
    async rotate(): Promise<MasterKeyStatus & { resealed: number }> {
      const resealed = await resealStoredSecrets(deps.store, deps.sealer);
      return { resealed, ...(await status()) };
    },
  };
}

export type MasterKeyService = ReturnType<typeof createMasterKeyService>;

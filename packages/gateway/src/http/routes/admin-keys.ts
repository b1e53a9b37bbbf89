import type { FastifyInstance } from 'fastify';
import type { MasterKeyService } from '../../operators/master-keys.ts';

/**
 * The master keys (docs/operations.md#master-key): which key seals how many secrets, and
 * re-sealing every secret under the current key once a new SNAPGATE_MASTER_KEY is in place (the
 * old one still configured as SNAPGATE_MASTER_KEY_PREVIOUS until this is done).
 */
export function adminKeyRoutes(app: FastifyInstance, deps: { masterKeys: MasterKeyService }) {
  const config = { api: 'admin' as const };
  app.get('/keys', { config }, () => deps.masterKeys.status());
  app.post('/keys/rotate', { config }, () => deps.masterKeys.rotate());
}

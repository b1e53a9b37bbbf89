import type { FastifyInstance } from 'fastify';
import type { MasterKeyService } from '../../operators/master-keys.ts';
import { ok, op, TAG } from '../openapi/admin-kit.ts';
import { propertiesOf } from '../openapi/admin-schemas.ts';
import { closed, ref } from '../openapi/kit.ts';
import { documentedRoute, type RouteDocs } from '../openapi/route-docs.ts';

const MASTER_KEYS_EXAMPLE = {
  currentKeyId: 'k1a2b3c4',
  configuredKeyIds: ['k1a2b3c4'],
  secretsByKeyId: { k1a2b3c4: 12 },
};

/**
 * The master keys (docs/operations.md#master-key): which key seals how many secrets, and
 * re-sealing every secret under the current key once a new SNAPGATE_MASTER_KEY is in place (the
 * old one still configured as SNAPGATE_MASTER_KEY_PREVIOUS until this is done).
 */
export function adminKeyRoutes(app: FastifyInstance, deps: { masterKeys: MasterKeyService; docs: RouteDocs }) {
  const config = { api: 'admin' as const };
  documentedRoute(app, deps.docs, {
    method: 'get',
    url: '/keys',
    config,
    operation: op({
      operationId: 'masterKeys',
      tags: [TAG.access],
      summary: 'Master keys, and what each seals',
      description:
        'The key sealing new secrets, the keys configured (`SNAPGATE_MASTER_KEY`, `SNAPGATE_MASTER_KEY_PREVIOUS`), and how many stored secrets each seals.',
      responses: ok('The keys.', ref('MasterKeys'), MASTER_KEYS_EXAMPLE),
    }),
    handler: () => deps.masterKeys.status(),
  });
  documentedRoute(app, deps.docs, {
    method: 'post',
    url: '/keys/rotate',
    config,
    operation: op({
      operationId: 'resealSecrets',
      tags: [TAG.access],
      summary: 'Re-seal every secret under the current master key',
      description:
        'Run once a new `SNAPGATE_MASTER_KEY` is in place, the old one still configured as `SNAPGATE_MASTER_KEY_PREVIOUS`. No body.',
      responses: ok(
        'How many secrets were re-sealed, and the keys after.',
        closed({ resealed: { type: 'integer', minimum: 0 }, ...propertiesOf('MasterKeys') }),
        { resealed: 12, ...MASTER_KEYS_EXAMPLE },
      ),
    }),
    handler: () => deps.masterKeys.rotate(),
  });
}

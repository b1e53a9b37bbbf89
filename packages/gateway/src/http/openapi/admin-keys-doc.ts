import { ADMIN, ok, op, TAG } from './admin-kit.ts';
import { propertiesOf } from './admin-schemas.ts';
import { closed, type PathItem, ref } from './kit.ts';

// The path items of http/routes/admin-keys.ts (the master keys). Every other admin area describes
// its routes in its own route file; these wait here while that file is being changed (the sealing
// of secrets at rest), and move beside the routes after.

const MASTER_KEYS_EXAMPLE = {
  currentKeyId: 'k1a2b3c4',
  configuredKeyIds: ['k1a2b3c4'],
  secretsByKeyId: { k1a2b3c4: 12 },
};

export function masterKeyPaths(): Record<string, PathItem> {
  return {
    [`${ADMIN}/keys`]: {
      get: op({
        operationId: 'masterKeys',
        tags: [TAG.access],
        summary: 'Master keys, and what each seals',
        description:
          'The key sealing new secrets, the keys configured (`SNAPGATE_MASTER_KEY`, `SNAPGATE_MASTER_KEY_PREVIOUS`), and how many stored secrets each seals.',
        responses: ok('The keys.', ref('MasterKeys'), MASTER_KEYS_EXAMPLE),
      }),
    },
    [`${ADMIN}/keys/rotate`]: {
      post: op({
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
    },
  };
}

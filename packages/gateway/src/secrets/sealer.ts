import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Secrets the gateway must read back (client secrets, the JWT key, private keys) are stored
// sealed: AES-256-GCM under a key-encryption key from SNAPGATE_MASTER_KEY, each record naming the
// key it was sealed under, so a new master key can re-seal everything while the old one still
// opens what is not re-sealed yet. A database copied without the key yields no secret.
//
//   sg1.<key id: 8 hex>.<base64url(12-byte IV | ciphertext | 16-byte tag)>

const PREFIX = 'sg1.';
const AAD = Buffer.from('snapgate sealed secret v1');

/** The id a record names its key by: the first 8 hex digits of the key's SHA-256. */
const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export interface Sealer {
  /** The id of the key new secrets are sealed under. */
  readonly currentKeyId: string;
  /** Ids of every key that can open a record (current first). */
  readonly keyIds: readonly string[];
  seal(plain: string): string;
  /** The secret inside a sealed record; a record stored before sealing existed is returned as is. */
  unseal(stored: string): string;
  isSealed(stored: string): boolean;
  /** The key id a sealed record names, or `undefined` for a clear one. */
  keyIdOfRecord(stored: string): string | undefined;
  /** The record sealed under the current key, or `undefined` when it already is. */
  reseal(stored: string): string | undefined;
}

export class SealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SealError';
  }
}

/** A sealer over the current master key and any previous ones still needed to open old records. */
export function createSealer(current: Buffer, previous: readonly Buffer[] = []): Sealer {
  for (const k of [current, ...previous]) {
    if (k.length !== 32) throw new SealError('a master key is 32 bytes');
  }
  const keys = new Map<string, Buffer>();
  for (const k of [current, ...previous]) keys.set(keyIdOf(k), k);
  const currentKeyId = keyIdOf(current);
  // Opening costs a decryption; the token hot path opens the same few secrets again and again.
  const opened = new Map<string, string>();

  const keyIdOfRecord = (stored: string) => (stored.startsWith(PREFIX) ? stored.slice(4, 12) : undefined);

  const sealer: Sealer = {
    currentKeyId,
    keyIds: [...keys.keys()],
    isSealed: (stored) => stored.startsWith(PREFIX),
    keyIdOfRecord,
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(AAD);
      const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${currentKeyId}.${body.toString('base64url')}`;
    },
    unseal(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const hit = opened.get(stored);
      if (hit !== undefined) return hit;
      const kid = stored.slice(4, 12);
      const key = keys.get(kid);
      if (!key) {
        throw new SealError(
          `a secret is sealed under master key ${kid}, which is not configured (SNAPGATE_MASTER_KEY or SNAPGATE_MASTER_KEY_PREVIOUS)`,
        );
      }
      const body = Buffer.from(stored.slice(13), 'base64url');
      if (body.length < 28) throw new SealError('a sealed secret is damaged');
      const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 12));
      decipher.setAAD(AAD);
      decipher.setAuthTag(body.subarray(body.length - 16));
      let plain: string;
      try {
        plain = Buffer.concat([decipher.update(body.subarray(12, body.length - 16)), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SealError(`a secret sealed under master key ${kid} does not open: damaged, or a different key`);
      }
      if (opened.size >= 10_000) opened.clear();
      opened.set(stored, plain);
      return plain;
    },
    reseal(stored) {
      if (keyIdOfRecord(stored) === currentKeyId) return undefined;
      return sealer.seal(sealer.unseal(stored));
    },
  };
  return sealer;
}

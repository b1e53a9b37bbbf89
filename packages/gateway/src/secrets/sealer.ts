import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Secrets the gateway must read back (client secrets, the JWT key, private keys) are stored
// sealed: AES-256-GCM under a key-encryption key from SNAPGATE_MASTER_KEY, each record naming the
// key it was sealed under, so a new master key can re-seal everything while the old one still
// opens what is not re-sealed yet. A database copied without the key yields no secret.
//
//   sg1.<key id: 8 hex>.2.<base64url(12-byte IV | ciphertext | 16-byte tag)>
//
// Form 2 binds a record to its place (the table, column and row it is stored in, or the setting):
// its additional authenticated data names the place, so a record copied to another row or column
// by someone who can write the database does not open there. Form 1, `sg1.<key id>.<base64url>`,
// written by earlier versions with one constant AAD, still opens anywhere; the gateway rewrites it
// as form 2 at start-up (upgrade). A form-2 record keeps the `sg1.` prefix on purpose: an earlier
// version reads a value without it as one stored in clear, but fails to open this one (a form-1
// body has no `.`), so it refuses a form-2 record instead of misusing it.

const PREFIX = 'sg1.';
/** How many characters of a record name its family and its key: enough for keyIdOfRecord. */
export const RECORD_HEAD_CHARS = 12;
const FORM_2 = '2.';
const AAD_FORM_1 = Buffer.from('snapgate sealed secret v1');
const aadForm2 = (place: string) => Buffer.from(`snapgate sealed secret v2\0${place}`);

/** The id a record names its key by: the first 8 hex digits of the key's SHA-256. */
const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export interface Sealer {
  /** The id of the key new secrets are sealed under. */
  readonly currentKeyId: string;
  /** Ids of every key that can open a record (current first). */
  readonly keyIds: readonly string[];
  /**
   * Seals a secret stored at `place` (where it lives: `merchants.client_secret/m_1`); the record
   * opens only there.
   */
  seal(plain: string, place: string): string;
  /**
   * The secret inside the record stored at `place`; a record stored before sealing existed is
   * returned as is. Throws SealError when it does not open there: sealed for another place,
   * damaged, or under a key not configured.
   */
  unseal(stored: string, place: string): string;
  isSealed(stored: string): boolean;
  /** The key id a sealed record names, or `undefined` for a clear one. */
  keyIdOfRecord(stored: string): string | undefined;
  /** The record sealed under the current key in the current form, or `undefined` when it already is. */
  reseal(stored: string, place: string): string | undefined;
  /**
   * What start-up rewrites: a clear value sealed under the current key, a form-1 record sealed
   * anew in form 2 under the key it names; `undefined` for a form-2 record (not opened).
   */
  upgrade(stored: string, place: string): string | undefined;
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
  // Remembered by place and record: the same record elsewhere is opened (and refused) anew.
  const opened = new Map<string, string>();

  const isSealed = (stored: string) => stored.startsWith(PREFIX);
  const keyIdOfRecord = (stored: string) => (isSealed(stored) ? stored.slice(4, 12) : undefined);
  const isForm2 = (stored: string) => stored.startsWith(FORM_2, RECORD_HEAD_CHARS + 1);

  function keyOf(kid: string): Buffer {
    const key = keys.get(kid);
    if (!key) {
      throw new SealError(
        `a secret is sealed under master key ${kid}, which is not configured (SNAPGATE_MASTER_KEY or SNAPGATE_MASTER_KEY_PREVIOUS)`,
      );
    }
    return key;
  }

  function sealUnder(kid: string, plain: string, place: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyOf(kid), iv);
    cipher.setAAD(aadForm2(place));
    const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${kid}.${FORM_2}${body.toString('base64url')}`;
  }

  function open(stored: string, place: string): string {
    const kid = stored.slice(4, 12);
    const key = keyOf(kid);
    const form2 = isForm2(stored);
    const encoded = stored.slice(RECORD_HEAD_CHARS + 1 + (form2 ? FORM_2.length : 0));
    // A form this version does not know is refused, never taken for a form-1 body.
    if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new SealError(`the secret at ${place} is sealed in an unknown form`);
    const body = Buffer.from(encoded, 'base64url');
    if (body.length < 28) throw new SealError(`the secret at ${place} is damaged`);
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 12));
    decipher.setAAD(form2 ? aadForm2(place) : AAD_FORM_1);
    decipher.setAuthTag(body.subarray(body.length - 16));
    try {
      return Buffer.concat([decipher.update(body.subarray(12, body.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealError(
        `the secret at ${place} does not open under master key ${kid}: sealed for another place, damaged, or a different key`,
      );
    }
  }

  const sealer: Sealer = {
    currentKeyId,
    keyIds: [...keys.keys()],
    isSealed,
    keyIdOfRecord,
    seal: (plain, place) => sealUnder(currentKeyId, plain, place),
    unseal(stored, place) {
      if (!isSealed(stored)) return stored;
      const remembered = `${place}\n${stored}`;
      const hit = opened.get(remembered);
      if (hit !== undefined) return hit;
      const plain = open(stored, place);
      if (opened.size >= 10_000) opened.clear();
      opened.set(remembered, plain);
      return plain;
    },
    reseal(stored, place) {
      if (keyIdOfRecord(stored) === currentKeyId && isForm2(stored)) return undefined;
      return sealer.seal(sealer.unseal(stored, place), place);
    },
    upgrade(stored, place) {
      if (!isSealed(stored)) return sealer.seal(stored, place);
      if (isForm2(stored)) return undefined;
      return sealUnder(stored.slice(4, 12), sealer.unseal(stored, place), place);
    },
  };
  return sealer;
}

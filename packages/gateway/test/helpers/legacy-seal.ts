import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Form 1 of a sealed secret, as snapgate wrote it before seals named their place (up to commit
// 385715a): `sg1.<key id>.<base64url(IV | ciphertext | tag)>` with one constant AAD. For tests
// that build a database as an earlier version left it, and that read a record as it would.

const AAD = Buffer.from('snapgate sealed secret v1');
const keyIdOf = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

export function sealForm1(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `sg1.${keyIdOf(key)}.${body.toString('base64url')}`;
}

/** What an earlier version does with a stored value: a value without `sg1.` is taken as clear. */
export function openAsEarlierVersion(key: Buffer, stored: string): string {
  if (!stored.startsWith('sg1.')) return stored;
  if (stored.slice(4, 12) !== keyIdOf(key)) throw new Error('not configured');
  const body = Buffer.from(stored.slice(13), 'base64url');
  if (body.length < 28) throw new Error('damaged');
  const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, 12));
  decipher.setAAD(AAD);
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(12, body.length - 16)), decipher.final()]).toString('utf8');
}

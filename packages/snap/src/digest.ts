import { createHash } from 'node:crypto';

/**
 * Lowercase hex SHA-256 of the raw body bytes (docs/protocol.md#payment-calls: an empty body hashes the empty string).
 *
 * @example
 * bodyDigest(Buffer.from('')); // 'e3b0c442...b855'
 */
export function bodyDigest(rawBody: Uint8Array | string): string {
  return createHash('sha256').update(rawBody).digest('hex');
}

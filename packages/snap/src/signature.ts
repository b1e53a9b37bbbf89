import { createHmac, type KeyObject, sign, timingSafeEqual, verify } from 'node:crypto';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decodeBase64(value: string): Buffer | undefined {
  if (value.length === 0 || value.length % 4 !== 0 || !BASE64.test(value)) return undefined;
  return Buffer.from(value, 'base64');
}

function constantTimeEqual(expected: Buffer, provided: Buffer | undefined): boolean {
  // Length of a digest is public; comparing equal-length buffers is constant time.
  if (!provided || provided.length !== expected.length) return false;
  return timingSafeEqual(expected, provided);
}

/**
 * base64(HMAC-SHA256(secret, data)): the HMAC form of the token signature (docs/protocol.md#access-token).
 *
 * @example
 * hmacSha256Base64('secret', 'ck|2024-01-01T10:00:00+07:00');
 */
export function hmacSha256Base64(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data).digest('base64');
}

/**
 * base64(HMAC-SHA512(secret, data)): payment API requests and `hmac-sha512` callbacks.
 *
 * @example
 * hmacSha512Base64('secret', stringToSign);
 */
export function hmacSha512Base64(secret: string, data: string): string {
  return createHmac('sha512', secret).update(data).digest('base64');
}

/**
 * Verifies a base64 HMAC-SHA256 signature in constant time.
 *
 * @example
 * verifyHmacSha256('secret', data, req.headers['x-signature']); // true | false
 */
export function verifyHmacSha256(secret: string, data: string, signatureBase64: string): boolean {
  const expected = createHmac('sha256', secret).update(data).digest();
  return constantTimeEqual(expected, decodeBase64(signatureBase64));
}

/**
 * Verifies a base64 HMAC-SHA512 signature in constant time.
 *
 * @example
 * verifyHmacSha512('secret', stringToSign, signature); // true | false
 */
export function verifyHmacSha512(secret: string, data: string, signatureBase64: string): boolean {
  const expected = createHmac('sha512', secret).update(data).digest();
  return constantTimeEqual(expected, decodeBase64(signatureBase64));
}

/**
 * base64(SHA256withRSA(privateKey, data)), RSASSA-PKCS1-v1_5.
 *
 * @example
 * rsaSha256SignBase64(privateKeyPem, 'ck|2024-01-01T10:00:00+07:00');
 */
export function rsaSha256SignBase64(privateKey: KeyObject | string, data: string): string {
  return sign('sha256', Buffer.from(data), privateKey).toString('base64');
}

/**
 * Verifies a base64 SHA256withRSA signature. Pass a cached `KeyObject` on hot paths:
 * parsing the PEM costs more than the verification.
 *
 * @example
 * verifyRsaSha256(publicKey, data, signature); // true | false
 */
export function verifyRsaSha256(publicKey: KeyObject | string, data: string, signatureBase64: string): boolean {
  const sig = decodeBase64(signatureBase64);
  if (!sig) return false;
  try {
    return verify('sha256', Buffer.from(data), publicKey, sig);
  } catch {
    return false;
  }
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

// Time-based one-time passwords (RFC 6238, over HOTP of RFC 4226) as authenticator apps compute
// them: HMAC-SHA1, 6 digits, a 30-second step. The shared secret travels as base32 (RFC 4648,
// without padding), inside an `otpauth://` URI the app reads from a QR code or from the text.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const TOTP_STEP_SEC = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now a code is still taken for: a phone's clock a little off, a code typed late. */
const DRIFT_STEPS = 1;

/** Bytes as base32, without padding. */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/** Base32 as bytes (case, spaces and padding ignored); undefined when it is not base32. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of clean) {
    const i = ALPHABET.indexOf(c);
    if (i < 0) return undefined;
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new shared secret: 160 random bits (RFC 4226's recommended length for HMAC-SHA1), base32. */
export const newTotpSecret = (): string => base32Encode(randomBytes(20));

/** The HOTP code of `secret` at `counter` (RFC 4226 §5.3, dynamic truncation). */
export function hotp(secret: Buffer, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', secret).update(message).digest();
  const offset = (mac[mac.length - 1] as number) & 0xf;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** The step a time falls in. */
export const totpStepOf = (nowMs: number): number => Math.floor(nowMs / 1000 / TOTP_STEP_SEC);

/** The code of a base32 secret at a time (what the authenticator app shows then). */
export function totpAt(secretBase32: string, nowMs: number, digits = TOTP_DIGITS): string {
  const secret = base32Decode(secretBase32);
  if (!secret || secret.length === 0) throw new TypeError('a TOTP secret is base32');
  return hotp(secret, totpStepOf(nowMs), digits);
}

/**
 * The step whose code `code` is, within one step of now and after `usedStep` (a code is taken
 * once: the step of the last one taken is kept and passed here); undefined when it is none.
 * Compared in constant time.
 */
export function verifyTotp(
  secretBase32: string,
  code: string,
  nowMs: number,
  usedStep: number | null = null,
): number | undefined {
  const given = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(given)) return undefined;
  const secret = base32Decode(secretBase32);
  if (!secret || secret.length === 0) return undefined;
  const now = totpStepOf(nowMs);
  let found: number | undefined;
  for (let step = now - DRIFT_STEPS; step <= now + DRIFT_STEPS; step++) {
    const isMatch = timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(given));
    if (isMatch && (usedStep === null || step > usedStep) && found === undefined) found = step;
  }
  return found;
}

/** The `otpauth://` URI an authenticator app reads (its QR code holds exactly this text). */
export function otpauthUri(input: { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
  const query = new URLSearchParams({
    secret: input.secret,
    issuer: input.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_STEP_SEC),
  });
  return `otpauth://totp/${label}?${query.toString()}`;
}

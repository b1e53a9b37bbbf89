// One-time codes (RFC 6238, the RFC's own test vectors) and password hashes and rules
// (src/secrets/totp.ts, src/secrets/passwords.ts): what merchant users sign in with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashPassword, PASSWORD_MAX, passwordProblem, verifyPassword } from '../../src/secrets/passwords.ts';
import {
  base32Decode,
  base32Encode,
  newTotpSecret,
  otpauthUri,
  totpAt,
  totpStepOf,
  verifyTotp,
} from '../../src/secrets/totp.ts';

// RFC 6238 Appendix B: the SHA-1 secret is the ASCII of "12345678901234567890".
const RFC_SECRET = base32Encode(Buffer.from('12345678901234567890'));
const RFC_VECTORS: Array<[number, string]> = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP (RFC 6238)', () => {
  it('computes the RFC’s test vectors, 8 digits and the 6 an app shows', () => {
    assert.equal(RFC_SECRET, 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    for (const [t, code] of RFC_VECTORS) {
      assert.equal(totpAt(RFC_SECRET, t * 1000, 8), code, String(t));
      assert.equal(totpAt(RFC_SECRET, t * 1000), code.slice(2), String(t));
    }
  });

  it('takes a code within one step of now, once, and nothing else', () => {
    const now = 1_700_000_000_000;
    const secret = newTotpSecret();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const step = totpStepOf(now);
    assert.equal(verifyTotp(secret, totpAt(secret, now), now), step);
    assert.equal(verifyTotp(secret, totpAt(secret, now - 30_000), now), step - 1, 'typed a little late');
    assert.equal(verifyTotp(secret, totpAt(secret, now + 30_000), now), step + 1, 'a phone a little ahead');
    assert.equal(verifyTotp(secret, totpAt(secret, now - 60_000), now), undefined, 'too old');
    assert.equal(verifyTotp(secret, totpAt(secret, now), now, step), undefined, 'used already');
    assert.equal(verifyTotp(secret, totpAt(secret, now + 30_000), now, step), step + 1, 'the next one, once');
    const spaced = totpAt(secret, now).replace(/^(\d{3})/, '$1 ');
    assert.equal(verifyTotp(secret, spaced, now), step, 'as an app groups it');
    for (const bad of ['', '12345', '1234567', 'abcdef', '12345a']) {
      assert.equal(verifyTotp(secret, bad, now), undefined, bad);
    }
    assert.equal(verifyTotp('not base32!', '123456', now), undefined);
  });

  it('reads base32 back, and writes the URI an authenticator app reads', () => {
    const bytes = Buffer.from('snapgate: a secret');
    assert.deepEqual(base32Decode(base32Encode(bytes).toLowerCase()), bytes);
    assert.equal(base32Decode('A1'), undefined);
    assert.equal(
      otpauthUri({ issuer: 'snapgate', account: 'siti@toko.example', secret: RFC_SECRET }),
      'otpauth://totp/snapgate:siti%40toko.example?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=snapgate&algorithm=SHA1&digits=6&period=30',
    );
  });
});

describe('passwords', () => {
  it('keeps a salted scrypt hash that opens only with its password', async () => {
    const record = await hashPassword('kopi susu gula aren 2026');
    assert.match(record, /^scrypt\$15\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(record, await hashPassword('kopi susu gula aren 2026'), 'a salt of its own');
    assert.equal(await verifyPassword('kopi susu gula aren 2026', record), true);
    assert.equal(await verifyPassword('kopi susu gula aren 2027', record), false);
    assert.equal(await verifyPassword('', record), false);
    assert.equal(await verifyPassword('kopi susu gula aren 2026', 'plain'), false);
    // A record whose parameters would make a hash cost minutes is not one.
    const heavy = record.replace('scrypt$15$', 'scrypt$30$');
    assert.equal(await verifyPassword('kopi susu gula aren 2026', heavy), false);
  });

  it('refuses a short, long, common or patterned password, and one made of the email', () => {
    const refused: Array<[string, RegExp]> = [
      ['short pass1', /at least 12/],
      ['x'.repeat(PASSWORD_MAX + 1), /at most 256/],
      ['Password1234', /too common/],
      ['bismillah123', /too common/],
      ['aaaaaaaaaaaa', /too common/],
      ['abababababab', /too common/],
      ['123456789012', /too common/],
      ['qwertyuiop!!', /too common/],
      ['zyxwvutsrqpo', /too common/],
      ['siti.rahayu2026', /too common/],
      ['Password2024', /too common/],
      ['P@ssw0rd2024!', /too common/],
      ['Jakarta2024!!', /too common/],
      ['Qwerty123456!', /too common/],
      ['iloveyou12345', /too common/],
      ['abc123456789', /too common/],
      ['2024!!Bismillah', /too common/],
    ];
    for (const [password, why] of refused) {
      assert.match(passwordProblem(password, 'siti.rahayu@toko.example') ?? '', why, password);
    }
    for (const good of ['kopi susu gula aren', 'Tr4nsfer-ke-BCA-jam-9', 'qwerty plus six words here']) {
      assert.equal(passwordProblem(good, 'siti.rahayu@toko.example'), undefined, good);
    }
  });
});

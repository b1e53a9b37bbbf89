import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

// People's passwords (merchant users): kept as scrypt hashes, a memory-hard function built into
// Node (no dependency), each with its own salt and its parameters in the record, so stronger
// parameters later still open older records:
//
//   scrypt$<log2 N>$<r>$<p>$<base64url salt>$<base64url 32-byte hash>

/**
 * N = 2^15, r = 8, p = 3: 32 MiB of memory per hash, one of OWASP's equivalent scrypt settings
 * (its floor is N = 2^17, r = 8, p = 1; N = 2^15 with p = 3 costs the same with a quarter of the memory).
 */
const LOG_N = 15;
const R = 8;
const P = 3;
const KEY_BYTES = 32;
/** Passwords longer than this are refused outright: hashing them costs the same, reading them does not. */
export const PASSWORD_MAX = 256;
export const PASSWORD_MIN = 12;

const maxmemOf = (logN: number, r: number) => 128 * 2 ** logN * r * 2;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: maxmemOf(logN, r) };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The record of a new password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, LOG_N, R, P);
  return ['scrypt', LOG_N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `record` was made of; false for a record that is not one. */
export async function verifyPassword(password: string, record: string): Promise<boolean> {
  const [kind, logN, r, p, salt, key] = record.split('$');
  if (kind !== 'scrypt' || !logN || !r || !p || !salt || !key || password.length > PASSWORD_MAX) return false;
  const [n, rr, pp] = [Number(logN), Number(r), Number(p)];
  // A record's parameters are its own, within bounds (a forged record must not make a hash cost minutes).
  if (![n, rr, pp].every(Number.isInteger) || n < 10 || n > 20 || rr < 1 || rr > 32 || pp < 1 || pp > 16) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), n, rr, pp);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Passwords people choose most (long enough to pass the length rule): a short list of our own,
 * and the patterns below. Compared lower case.
 */
const COMMON = new Set([
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'password1234!',
  'p@ssword1234',
  'p@ssw0rd1234',
  'passw0rd1234',
  'qwertyuiop12',
  'qwertyuiop123',
  'qwerty123456',
  'qwertyqwerty',
  'asdfghjkl123',
  'zxcvbnm12345',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'qazwsxedcrfv',
  'iloveyou1234',
  'iloveyouiloveyou',
  'letmein12345',
  'welcome12345',
  'welcome123456',
  'administrator',
  'admin1234567',
  'admin123456789',
  'changeme1234',
  'superman1234',
  'football1234',
  'baseball1234',
  'sunshine1234',
  'princess1234',
  'dragon123456',
  'monkey123456',
  'trustno11234',
  'starwars1234',
  'whatever1234',
  'bismillah123',
  'bismillah1234',
  'alhamdulillah',
  'sayangkamu123',
  'sayangkamu1234',
  'akusayangkamu',
  'indonesia123',
  'indonesia1234',
  'indonesia12345',
  'jakarta12345',
  'jakarta123456',
  'merdeka12345',
  'rahasia12345',
  'rahasiaku123',
  'katasandi123',
  'katasandi1234',
  'snapgate1234',
  'snapgate123456',
  'merchant1234',
  'merchant123456',
  'tokoonline123',
  'tokosaya1234',
]);

/** Why a new password is refused, or undefined when it is taken. */
export function passwordProblem(password: string, email?: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `at most ${PASSWORD_MAX} characters`;
  const lower = password.toLowerCase();
  const local = email?.split('@')[0]?.toLowerCase();
  if (COMMON.has(lower) || isPattern(lower) || (local !== undefined && local.length >= 4 && lower.includes(local))) {
    return 'too common or too easy to guess: choose another';
  }
  return undefined;
}

/** Runs people type without thinking: the alphabet, the digits, the keyboard's rows, each both ways. */
const WALKS = ['abcdefghijklmnopqrstuvwxyz', '01234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'].flatMap((w) => [
  w,
  [...w].reverse().join(''),
]);

/** The longest part of `s` (6 characters or more) that is a piece of one of WALKS, or ''. */
function longestWalk(s: string): string {
  let best = '';
  for (let i = 0; i < s.length; i++) {
    for (let j = s.length; j - i > Math.max(5, best.length); j--) {
      const piece = s.slice(i, j);
      if (WALKS.some((w) => w.includes(piece))) {
        best = piece;
        break;
      }
    }
  }
  return best;
}

/**
 * Too easy: three different characters or fewer, a short piece repeated, or a walk (WALKS) with
 * fewer than 6 other characters around it.
 */
function isPattern(s: string): boolean {
  if (new Set(s).size <= 3) return true;
  for (let len = 1; len <= s.length / 2; len++) {
    if (s.length % len === 0 && s.slice(0, len).repeat(s.length / len) === s) return true;
  }
  const walk = longestWalk(s);
  return walk !== '' && s.length - walk.length < 6;
}

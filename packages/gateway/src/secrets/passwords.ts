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

/**
 * Hashes run two at a time (Node's thread pool, 4 threads, also resolves names and reads files for
 * the payments), and at most 32 wait: past that a sign-in is refused as busy, not queued.
 */
const RUNNING_MAX = 2;
const WAITING_MAX = 32;
let running = 0;
const waiting: Array<() => void> = [];

/** Too many passwords are being hashed at once: try again in a moment. */
export class PasswordsBusy extends Error {
  constructor() {
    super('too many sign-ins at once: try again in a moment');
    this.name = 'PasswordsBusy';
  }
}

async function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  if (running >= RUNNING_MAX) {
    if (waiting.length >= WAITING_MAX) throw new PasswordsBusy();
    await new Promise<void>((go) => waiting.push(go));
  } else running++;
  try {
    const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: maxmemOf(logN, r) };
    return await new Promise((resolve, reject) =>
      scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
    );
  } finally {
    // The next waiting hash takes this one's place (`running` stays), or the place is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
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
 * Keyboard walks down its columns, which no rule below catches (the rows, the alphabet and the
 * digits are walks of WALKS; the common words are BASE_WORDS). Compared lower case.
 */
const COLUMN_WALKS = new Set(['1q2w3e4r5t6y', '1qaz2wsx3edc', 'qazwsxedcrfv']);

/**
 * Words people build passwords on, with digits and symbols around them (`Password2024!`,
 * `Jakarta123!!`, `P@ssw0rd1`): compared with a password's core (baseOf).
 */
const BASE_WORDS = new Set([
  'password',
  'passwort',
  'qwerty',
  'qwertyuiop',
  'asdfgh',
  'asdfghjkl',
  'zxcvbnm',
  'iloveyou',
  'admin',
  'administrator',
  'welcome',
  'letmein',
  'changeme',
  'monkey',
  'dragon',
  'football',
  'baseball',
  'sunshine',
  'princess',
  'superman',
  'starwars',
  'whatever',
  'trustno',
  'master',
  'secret',
  'bismillah',
  'alhamdulillah',
  'sayang',
  'sayangkamu',
  'akusayangkamu',
  'cinta',
  'indonesia',
  'jakarta',
  'bandung',
  'surabaya',
  'merdeka',
  'garuda',
  'rahasia',
  'rahasiaku',
  'katasandi',
  'selamat',
  'snapgate',
  'merchant',
  'tokoonline',
  'tokosaya',
]);
/** What people write for letters: `p@ssw0rd` is `password`. */
const LEET: Record<string, string> = {
  '@': 'a',
  '4': 'a',
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '5': 's',
  $: 's',
  '7': 't',
  '!': 'i',
};

/** A password's core: without the digits and symbols around it, its stand-ins for letters read as letters. */
function baseOf(lower: string): string {
  const core = lower.replace(/^[\d\W_]+/, '').replace(/[\d\W_]+$/, '');
  return [...core].map((c) => LEET[c] ?? c).join('');
}

/** Why a new password is refused, or undefined when it is taken. */
export function passwordProblem(password: string, email?: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `at most ${PASSWORD_MAX} characters`;
  const lower = password.toLowerCase();
  const base = baseOf(lower);
  const local = email?.split('@')[0]?.toLowerCase();
  const isCommon = COLUMN_WALKS.has(lower) || BASE_WORDS.has(base) || base.length < 6 || isPattern(lower);
  if (isCommon || (local !== undefined && local.length >= 4 && lower.includes(local))) {
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

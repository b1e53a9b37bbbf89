import { isIP } from 'node:net';
import type { Mode } from '../config.ts';

// docs/protocol.md#callbacks: in production, callback URLs must be https and must not point at loopback,
// private, link-local or metadata addresses. Names are resolved again at send time.
function isForbiddenV4(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

/** The 8 groups of an IPv6 address (a trailing dotted IPv4 counts as two), or undefined. */
function ipv6Groups(ip: string): number[] | undefined {
  let text = ip.toLowerCase().split('%')[0] as string;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -(dotted[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? (halves[0] as string).split(':') : [];
  const tail = halves.length === 2 && halves[1] ? (halves[1] as string).split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const groups = [...head, ...Array<string>(Math.max(0, missing)).fill('0'), ...tail].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : undefined;
}

/**
 * True for loopback, private, link-local, CGNAT, benchmark, multicast and unspecified addresses,
 * IPv4 or IPv6 in any spelling: an IPv6 address that carries an IPv4 one (mapped `::ffff:a.b.c.d`,
 * compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is judged by the IPv4 rules.
 */
export function isForbiddenAddress(ip: string): boolean {
  const v = isIP(ip.split('%')[0] as string);
  if (v === 4) return isForbiddenV4(ip);
  if (v !== 6) return false;
  const g = ipv6Groups(ip);
  if (!g) return true;
  const v4 = () =>
    `${(g[6] as number) >> 8}.${(g[6] as number) & 255}.${(g[7] as number) >> 8}.${(g[7] as number) & 255}`;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(5) && g[5] === 0xffff) return isForbiddenV4(v4());
  if (zeroUpTo(6)) return true; // ::, ::1 and the deprecated IPv4-compatible block
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isForbiddenV4(v4());
  const first = g[0] as number;
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);

/** Why a callback URL is not acceptable, or `undefined` when it is. */
export function callbackUrlProblem(value: string, mode: Mode): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  if (mode === 'production') {
    if (url.protocol !== 'https:') return 'must be https in production mode';
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost') || METADATA_HOSTS.has(host) || isForbiddenAddress(host)) {
      return 'must not point at a loopback, private, link-local or metadata address in production mode';
    }
  }
  return undefined;
}

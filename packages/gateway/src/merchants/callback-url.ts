import { isIP } from 'node:net';
import type { Mode } from '../config.ts';

// SPEC §4: in production, callback URLs must be https and must not point at loopback,
// private, link-local or metadata addresses. Names are resolved again at send time.
export function isForbiddenAddress(ip: string): boolean {
  const v = isIP(ip);
  if (v === 4) {
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
  if (v === 6) {
    const x = ip.toLowerCase();
    if (x === '::' || x === '::1') return true;
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x);
    if (mapped) return isForbiddenAddress(mapped[1] as string);
    return /^(fc|fd|fe8|fe9|fea|feb|ff)/.test(x) || x.startsWith('fd00:ec2::254');
  }
  return false;
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

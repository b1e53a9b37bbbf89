import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type AddressGuard, createAddressGuard, isLinkLocalOrMetadata, normalHost } from '../address-guard.ts';
import type { Mode } from '../config.ts';

export { isForbiddenAddress, isLinkLocalOrMetadata } from '../address-guard.ts';

// docs/protocol.md#callbacks: in production, callback URLs must be https and may reach only
// global unicast addresses (or what SNAPGATE_STAGING_ALLOW names). Names are resolved when the URL
// is saved and again at every send. Acquirers' URLs are held to the same guard (address-guard.ts).

/** The guard of a mode, when the caller names only the mode (no staging allowance). */
const guardOf = (g: Mode | AddressGuard): AddressGuard =>
  typeof g === 'string' ? createAddressGuard(g === 'production') : g;

/** Why an outbound URL is not acceptable, or `undefined` when it is. */
export function callbackUrlProblem(value: string, mode: Mode | AddressGuard): string | undefined {
  const guard = guardOf(mode);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  if (guard.production && url.protocol !== 'https:') return 'must be https in production mode';
  const problem = guard.hostProblem(url.hostname);
  return problem ? `must not point at ${problem}` : undefined;
}

const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * `callbackUrlProblem`, and also the name resolved now: a name that resolves to a forbidden
 * address (`localhost.`, a name in /etc/hosts, an internal DNS name) is refused when it is saved.
 * A name that does not resolve yet is accepted: the check at every connection still applies.
 */
export async function callbackUrlProblemResolved(
  value: string,
  mode: Mode | AddressGuard,
  resolve: (host: string) => Promise<Array<{ address: string }>> = (host) => lookup(host, { all: true }),
): Promise<string | undefined> {
  const guard = guardOf(mode);
  const problem = callbackUrlProblem(value, guard);
  if (problem) return problem;
  const host = normalHost(new URL(value).hostname);
  if (isIP(host) !== 0) return undefined;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return undefined;
  }
  const bad = addresses.find((a) => !guard.allowsAddress(host, a.address));
  if (!bad) return undefined;
  return isLinkLocalOrMetadata(bad.address)
    ? `must not resolve to a link-local or cloud metadata address (${host} is ${bad.address})`
    : `must not resolve to a loopback, private or reserved address in production mode (${host} is ${bad.address})`;
}

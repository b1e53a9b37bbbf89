import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Mode } from '../config.ts';

// docs/protocol.md#callbacks: in production, callback URLs must be https and may reach only
// global unicast addresses. Names are resolved when the URL is saved and again at every send.

/**
 * True for every address that is not global unicast, in any spelling: loopback, private,
 * link-local, CGNAT, multicast, unspecified, reserved and documentation ranges, and every IPv6
 * form that carries or translates another address (IPv4-mapped and -translated, NAT64, 6to4,
 * Teredo), judged by ipaddr.js's range table. A host name (not an address) is `false`: it is
 * resolved and its addresses judged.
 */
export function isForbiddenAddress(ip: string): boolean {
  const text = ip.replace(/^\[|\]$/g, '').split('%')[0] as string;
  if (isIP(text) === 0) return false;
  const address = ipaddr.process(text);
  return (
    address.range() !== 'unicast' ||
    NOT_GLOBAL.some(([net, bits]) => address.kind() === net.kind() && address.match(net, bits))
  );
}

// What ipaddr.js calls unicast but no callback may reach: the deprecated IPv4-compatible IPv6
// block (`::a.b.c.d`, e.g. `::7f00:1` for 127.0.0.1).
const NOT_GLOBAL = ['::/96'].map((cidr) => ipaddr.parseCIDR(cidr));

const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
/** Cloud instance metadata services outside the link-local ranges (AWS over IPv6, Alibaba Cloud). */
const METADATA_ADDRESSES = ['fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString());

/**
 * True for a link-local address (169.254.0.0/16, fe80::/10, in any spelling) or a cloud metadata
 * address: never a callback's, in any mode. Loopback and private ranges are a sandbox's to use;
 * these lead to the machine's own metadata service and its credentials.
 */
export function isLinkLocalOrMetadata(ip: string): boolean {
  const text = ip.replace(/^\[|\]$/g, '').split('%')[0] as string;
  if (isIP(text) === 0) return false;
  const address = ipaddr.process(text);
  return address.range() === 'linkLocal' || METADATA_ADDRESSES.includes(address.toNormalizedString());
}

/** A callback host that is a metadata service by its name, or link-local or metadata by its address. */
function isMetadataHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  return METADATA_HOSTS.has(host) || isLinkLocalOrMetadata(host);
}

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
  if (isMetadataHost(url.hostname)) return 'must not point at a link-local or cloud metadata address';
  if (mode === 'production') {
    if (url.protocol !== 'https:') return 'must be https in production mode';
    const host = url.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (host === 'localhost' || host.endsWith('.localhost') || METADATA_HOSTS.has(host) || isForbiddenAddress(host)) {
      return 'must not point at a loopback, private, link-local or metadata address in production mode';
    }
  }
  return undefined;
}

const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * `callbackUrlProblem`, and in production also the name resolved now: a name that resolves to a
 * forbidden address (`localhost.`, a name in /etc/hosts, an internal DNS name) is refused when it
 * is saved. A name that does not resolve yet is accepted: the check at every send still applies.
 */
export async function callbackUrlProblemResolved(
  value: string,
  mode: Mode,
  resolve: (host: string) => Promise<Array<{ address: string }>> = (host) => lookup(host, { all: true }),
): Promise<string | undefined> {
  const problem = callbackUrlProblem(value, mode);
  if (problem) return problem;
  const host = new URL(value).hostname.replace(/\.$/, '');
  if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return undefined;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await Promise.race([
      resolve(host),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS).unref()),
    ]);
  } catch {
    return undefined;
  }
  const metadata = addresses.find((a) => isLinkLocalOrMetadata(a.address));
  if (metadata) return `must not resolve to a link-local or cloud metadata address (${host} is ${metadata.address})`;
  if (mode !== 'production') return undefined;
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  return bad
    ? `must not resolve to a loopback, private or reserved address in production mode (${host} is ${bad.address})`
    : undefined;
}

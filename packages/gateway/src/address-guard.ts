import { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { embeddedIpv4, networkCarries } from './embedded-ipv4.ts';

// One guard for every address the gateway dials on its own (callbacks, callback token URLs,
// acquirers), in every mode (docs/operations.md#outbound-addresses-and-staging-rehearsals).
// Link-local and cloud metadata addresses are never reached, in any spelling. In production mode
// nothing but global unicast is, except what SNAPGATE_STAGING_ALLOW names: the hosts and networks
// of a staging rehearsal.

const unbracket = (host: string) => host.replace(/^\[|\]$/g, '').split('%')[0] as string;

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Address, number];

/** An address literal (brackets and zone dropped), parsed; undefined for a host name. */
function addressOf(ip: string): Address | undefined {
  const text = unbracket(ip);
  return isIP(text) === 0 ? undefined : ipaddr.process(text);
}

/** The address and every IPv4 address it carries: each is judged, so no spelling slips through. */
const spellings = (address: Address): Address[] => [address, ...embeddedIpv4(address)];

const inNetwork = (address: Address, [net, bits]: Network) => address.kind() === net.kind() && address.match(net, bits);

/**
 * True for every address that is not global unicast, in any spelling: loopback, private,
 * link-local, CGNAT, multicast, unspecified, reserved and documentation ranges, and every IPv6
 * form that carries or translates another address (IPv4-mapped and -translated, NAT64, 6to4,
 * Teredo), judged by ipaddr.js's range table and by the IPv4 address carried. A host name (not an
 * address) is `false`: it is resolved and its addresses judged.
 */
export function isForbiddenAddress(ip: string): boolean {
  const address = addressOf(ip);
  return address !== undefined && spellings(address).some(isNotGlobal);
}

const isNotGlobal = (address: Address) =>
  address.range() !== 'unicast' || NOT_GLOBAL.some((net) => inNetwork(address, net));

// What ipaddr.js calls unicast but the gateway never dials: the deprecated IPv4-compatible IPv6
// block (`::a.b.c.d`, e.g. `::7f00:1` for 127.0.0.1).
const NOT_GLOBAL: Network[] = ['::/96'].map((cidr) => ipaddr.parseCIDR(cidr));

export const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
/**
 * Never dialled, in any mode: link-local (the metadata service 169.254.169.254 among them) and the
 * cloud metadata services outside it (AWS over IPv6, Alibaba Cloud).
 */
const NEVER_DIALLED: Network[] = ['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128', '100.100.100.200/32'].map(
  (cidr) => ipaddr.parseCIDR(cidr),
);

/**
 * True for a link-local address (169.254.0.0/16, fe80::/10) or a cloud metadata address, in any
 * spelling (an IPv6 form carrying one included): never dialled, in any mode. Loopback and private
 * ranges are a sandbox's to use; these lead to the machine's own metadata service and its
 * credentials.
 */
export function isLinkLocalOrMetadata(ip: string): boolean {
  const address = addressOf(ip);
  return address !== undefined && spellings(address).some((a) => NEVER_DIALLED.some((net) => inNetwork(a, net)));
}

/** A host as compared: no brackets, no trailing dot, lower case. */
export const normalHost = (hostname: string) =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

/** SNAPGATE_STAGING_ALLOW, parsed: host names (exact) and networks. */
export interface StagingAllow {
  hosts: string[];
  networks: Network[];
  /** As configured, for the start-up line, /readyz and the console. */
  text: string[];
}

export const NO_STAGING: StagingAllow = { hosts: [], networks: [], text: [] };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * SNAPGATE_STAGING_ALLOW: comma-separated host names, addresses and CIDRs. Throws with the reason,
 * quoting the entry. Link-local and metadata ranges cannot be allowed, nor an IPv6 network that
 * carries one: nothing is worth a path to the machine's credentials.
 */
export function parseStagingAllow(text: string): StagingAllow {
  const out: StagingAllow = { hosts: [], networks: [], text: [] };
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const shown = JSON.stringify(raw.trim());
    const network = parseNetwork(entry, shown);
    if (network) {
      out.networks.push(allowedNetwork(network, shown));
    } else if (!entry.includes('/') && HOST_NAME.test(normalHost(entry)) && !METADATA_HOSTS.has(normalHost(entry))) {
      out.hosts.push(normalHost(entry));
    } else {
      throw new TypeError(`${shown} is neither a host name, an address nor a CIDR`);
    }
    out.text.push(entry);
  }
  return out;
}

/**
 * An address or CIDR entry as a network; undefined when it does not start with an address (a host
 * name, or garbage). Throws when it does but the rest is not one prefix length in range
 * (`10.0.0.0/8/8`, `1.2.3.4/33`): an entry read other than as written would allow what was not meant.
 */
function parseNetwork(entry: string, shown: string): Network | undefined {
  const [first = '', ...prefix] = entry.split('/');
  const text = first.replace(/^\[(.*)\]$/, '$1');
  // A zone (`fe80::1%eth0`) names an interface, not a network: not an address here.
  if (text.includes('%') || isIP(text) === 0) return undefined;
  const address = ipaddr.parse(text);
  const width = address.kind() === 'ipv4' ? 32 : 128;
  const bits = prefix.length === 0 ? width : Number(prefix[0]);
  if (prefix.length > 1 || !/^\d{1,3}$/.test(prefix[0] ?? '0') || bits > width) {
    throw new TypeError(`${shown} is not an address or CIDR (one prefix length, at most ${width})`);
  }
  return [address, bits];
}

/**
 * The network, refused when any of its addresses is never dialled or carries one that is (an IPv6
 * form of 169.254.169.254); an IPv4-mapped network becomes the IPv4 one, as addresses are compared.
 */
function allowedNetwork([address, bits]: Network, shown: string): Network {
  if (NEVER_DIALLED.some((never) => overlaps([address, bits], never) || carriesAny([address, bits], never))) {
    throw new TypeError(
      `${shown} covers link-local or cloud metadata addresses, or IPv6 forms carrying them (NAT64, 6to4, Teredo…), which are never dialled`,
    );
  }
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

const overlaps = ([a, aBits]: Network, [b, bBits]: Network) =>
  a.kind() === b.kind() && (a.match(b, bBits) || b.match(a, aBits));

const carriesAny = ([net, bits]: Network, [v4, v4Bits]: Network) =>
  net.kind() === 'ipv6' &&
  v4.kind() === 'ipv4' &&
  networkCarries([net as ipaddr.IPv6, bits], [v4 as ipaddr.IPv4, v4Bits]);

/** What the gateway may dial, by mode and staging allowance. */
export interface AddressGuard {
  production: boolean;
  staging: StagingAllow;
  /** Why a URL's host may not be dialled (checked when it is saved and before each call), or undefined. */
  hostProblem(hostname: string): string | undefined;
  /** Whether a resolved address of this host may be dialled (at every connection: DNS may change). */
  allowsAddress(hostname: string, address: string): boolean;
}

export function createAddressGuard(production: boolean, staging: StagingAllow = NO_STAGING): AddressGuard {
  const isStagingHost = (host: string) => staging.hosts.includes(normalHost(host));
  const inStagingNetwork = (ip: string) => {
    const address = addressOf(ip);
    return address !== undefined && staging.networks.some((net) => inNetwork(address, net));
  };
  return {
    production,
    staging,
    hostProblem(hostname) {
      const host = normalHost(hostname);
      if (METADATA_HOSTS.has(host) || isLinkLocalOrMetadata(host)) return 'a link-local or cloud metadata address';
      if (!production || isStagingHost(host) || inStagingNetwork(host)) return undefined;
      if (host === 'localhost' || host.endsWith('.localhost') || isForbiddenAddress(host)) {
        return 'a loopback, private, link-local or metadata address in production mode (SNAPGATE_STAGING_ALLOW lets a staging one through)';
      }
      return undefined;
    },
    allowsAddress(hostname, address) {
      if (isLinkLocalOrMetadata(address)) return false;
      if (!production || isStagingHost(hostname) || inStagingNetwork(address)) return true;
      return !isForbiddenAddress(address);
    },
  };
}

/**
 * Every address a host resolves to is checked when the connection is made, not only when the URL
 * was saved, so DNS rebinding cannot reach what is forbidden (address-guard.ts): in production
 * anything but global unicast or what SNAPGATE_STAGING_ALLOW names, in sandbox mode link-local and
 * metadata addresses.
 */
export const lookupRefusing =
  (guard: AddressGuard): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      const bad = list.find((a) => !guard.allowsAddress(hostname, a.address));
      if (bad || list.length === 0) {
        const e = Object.assign(
          new Error(`host ${hostname} resolves to a forbidden address ${bad?.address ?? ''}`.trim()),
          {
            code: 'EFORBIDDENADDR',
          },
        );
        return callback(e, '', 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      const first = list[0] as { address: string; family: number };
      return callback(null, first.address, first.family);
    });
  };

/** How the gateway's own outbound connections are made: the guard, and extra trusted CAs (SNAPGATE_CA_FILE). */
export interface OutboundPolicy {
  guard: AddressGuard;
  /** Trusted CAs besides Node's own, PEM; undefined: Node's own only. */
  ca?: string[] | undefined;
}

/**
 * The CAs an outbound connection trusts with an operator's PEM file (SNAPGATE_CA_FILE, the CLI's
 * `--ca-file`): Node's own and the file's, since undici's `ca` replaces Node's. Throws, naming the
 * file as `name`, when it cannot be read or holds no certificate.
 */
export function trustedCasWith(file: string, name: string): string[] {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${name} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${name} ${file} holds no PEM certificate`);
  return [...rootCertificates, pem];
}

/** The `connect` options of a guarded undici dispatcher. */
export function connectOptions(policy: OutboundPolicy) {
  return { lookup: lookupRefusing(policy.guard), ...(policy.ca ? { ca: policy.ca } : {}) };
}

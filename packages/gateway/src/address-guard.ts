import { lookup as dnsLookup } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIP, type LookupFunction } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';

// One guard for every address the gateway dials on its own (callbacks, callback token URLs,
// acquirers), in every mode (docs/operations.md#outbound-addresses). Link-local and cloud metadata
// addresses are never reached. In production mode nothing but global unicast is, except what
// SNAPGATE_STAGING_ALLOW names: the hosts and networks of a staging rehearsal.

const unbracket = (host: string) => host.replace(/^\[|\]$/g, '').split('%')[0] as string;

/**
 * True for every address that is not global unicast, in any spelling: loopback, private,
 * link-local, CGNAT, multicast, unspecified, reserved and documentation ranges, and every IPv6
 * form that carries or translates another address (IPv4-mapped and -translated, NAT64, 6to4,
 * Teredo), judged by ipaddr.js's range table. A host name (not an address) is `false`: it is
 * resolved and its addresses judged.
 */
export function isForbiddenAddress(ip: string): boolean {
  const text = unbracket(ip);
  if (isIP(text) === 0) return false;
  const address = ipaddr.process(text);
  return (
    address.range() !== 'unicast' ||
    NOT_GLOBAL.some(([net, bits]) => address.kind() === net.kind() && address.match(net, bits))
  );
}

// What ipaddr.js calls unicast but the gateway never dials: the deprecated IPv4-compatible IPv6
// block (`::a.b.c.d`, e.g. `::7f00:1` for 127.0.0.1).
const NOT_GLOBAL = ['::/96'].map((cidr) => ipaddr.parseCIDR(cidr));

export const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'instance-data']);
/** Cloud instance metadata services outside the link-local ranges (AWS over IPv6, Alibaba Cloud). */
const METADATA_ADDRESSES = ['fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString());

/**
 * True for a link-local address (169.254.0.0/16, fe80::/10, in any spelling) or a cloud metadata
 * address: never dialled, in any mode. Loopback and private ranges are a sandbox's to use; these
 * lead to the machine's own metadata service and its credentials.
 */
export function isLinkLocalOrMetadata(ip: string): boolean {
  const text = unbracket(ip);
  if (isIP(text) === 0) return false;
  const address = ipaddr.process(text);
  return address.range() === 'linkLocal' || METADATA_ADDRESSES.includes(address.toNormalizedString());
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
  networks: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  /** As configured, for the start-up line, /readyz and the console. */
  text: string[];
}

export const NO_STAGING: StagingAllow = { hosts: [], networks: [], text: [] };

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * SNAPGATE_STAGING_ALLOW: comma-separated host names, addresses and CIDRs. Throws with the reason.
 * Link-local and metadata ranges cannot be allowed: nothing is worth a path to the machine's
 * credentials.
 */
export function parseStagingAllow(text: string): StagingAllow {
  const out: StagingAllow = { hosts: [], networks: [], text: [] };
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    const [addr, bits] = entry.includes('/') ? (entry.split('/', 2) as [string, string]) : [entry, undefined];
    if (isIP(unbracket(addr)) !== 0) {
      const address = ipaddr.process(unbracket(addr));
      const width = address.kind() === 'ipv4' ? 32 : 128;
      const prefix = bits === undefined ? width : Number(bits);
      if (!/^\d{1,3}$/.test(bits ?? '0') || prefix > width) throw new TypeError(`${raw.trim()} is not a CIDR`);
      const probe = address.kind() === 'ipv4' ? ['169.254.169.254', '100.100.100.200'] : ['fe80::1', 'fd00:ec2::254'];
      if (isLinkLocalOrMetadata(address.toString()) || probe.some((p) => ipaddr.parse(p).match(address, prefix))) {
        throw new TypeError(`${raw.trim()} covers link-local or cloud metadata addresses, which are never dialled`);
      }
      out.networks.push([address, prefix]);
    } else if (bits === undefined && HOST_NAME.test(normalHost(entry)) && !METADATA_HOSTS.has(normalHost(entry))) {
      out.hosts.push(normalHost(entry));
    } else {
      throw new TypeError(`${JSON.stringify(raw.trim())} is neither a host name, an address nor a CIDR`);
    }
    out.text.push(entry);
  }
  return out;
}

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
  const inStagingNetwork = (address: string) => {
    const text = unbracket(address);
    if (isIP(text) === 0) return false;
    const a = ipaddr.process(text);
    return staging.networks.some(([net, bits]) => a.kind() === net.kind() && a.match(net, bits));
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

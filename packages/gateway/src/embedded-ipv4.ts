import ipaddr from 'ipaddr.js';

// The IPv4 address an IPv6 address carries, read in one place for the address guard
// (address-guard.ts): a guard that judged only the IPv6 address would let `[64:ff9b::a9fe:a9fe]`
// reach 169.254.169.254 through a NAT64, or `[2002:a9fe:a9fe::1]` through a 6to4 relay. Pure.

/** Where an IPv6 address carries an IPv4 one: its prefix, the four bytes holding it, and their XOR. */
interface Embedding {
  net: [ipaddr.IPv6, number];
  at: number[];
  xor: number;
}

const LAST = [12, 13, 14, 15];
const EMBEDDINGS: Embedding[] = (
  [
    ['::/96', LAST, 0], // IPv4-compatible, deprecated (RFC 4291 2.5.5.1)
    ['::ffff:0:0/96', LAST, 0], // IPv4-mapped (RFC 4291 2.5.5.2)
    ['::ffff:0:0:0/96', LAST, 0], // IPv4-translated (RFC 2765 2.1)
    ['64:ff9b::/96', LAST, 0], // NAT64 well-known prefix (RFC 6052 2.1)
    // NAT64 local-use (RFC 8215): the operator picks the prefix length inside the /48, so every
    // RFC 6052 2.2 layout that fits is read (byte 8 is the reserved u octet).
    ['64:ff9b:1::/48', [6, 7, 9, 10], 0],
    ['64:ff9b:1::/48', [7, 9, 10, 11], 0],
    ['64:ff9b:1::/48', [9, 10, 11, 12], 0],
    ['64:ff9b:1::/48', LAST, 0],
    ['2002::/16', [2, 3, 4, 5], 0], // 6to4 (RFC 3056 2)
    ['2001::/32', LAST, 0xff], // Teredo client, each bit inverted (RFC 4380 4)
  ] as const
).map(([cidr, at, xor]) => ({ net: ipaddr.IPv6.parseCIDR(cidr), at: [...at], xor }));

const carried = (bytes: number[], e: Embedding) => new ipaddr.IPv4(e.at.map((i) => (bytes[i] as number) ^ e.xor));

/** The IPv4 addresses an IPv6 address carries, one per embedding it falls in; none for IPv4. */
export function embeddedIpv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4[] {
  if (address.kind() !== 'ipv6') return [];
  const bytes = address.toByteArray();
  return EMBEDDINGS.filter((e) => address.match(e.net)).map((e) => carried(bytes, e));
}

/**
 * Whether some address of the IPv6 network `net/bits` carries an address of `v4/v4Bits`. The probe
 * is the embedding's own address carrying v4, with the network's fixed bits written over it: inside
 * the network by construction, so the network holds such an address exactly when the probe is
 * still in the embedding and still carries an address of v4.
 */
export function networkCarries([net, bits]: [ipaddr.IPv6, number], [v4, v4Bits]: [ipaddr.IPv4, number]): boolean {
  return EMBEDDINGS.some((e) => {
    const carrying = e.net[0].toByteArray();
    e.at.forEach((i, k) => {
      carrying[i] = (v4.octets[k] as number) ^ e.xor;
    });
    const probe = new ipaddr.IPv6(keepBits(net.toByteArray(), bits, carrying));
    return probe.match(e.net) && carried(probe.toByteArray(), e).match(v4, v4Bits);
  });
}

/** The first `bits` bits of `high`, the rest from `low` (byte arrays of one length). */
const keepBits = (high: number[], bits: number, low: number[]) =>
  high.map((byte, i) => {
    const mask = (0xff << (8 - Math.max(0, Math.min(8, bits - i * 8)))) & 0xff;
    return (byte & mask) | ((low[i] as number) & ~mask & 0xff);
  });

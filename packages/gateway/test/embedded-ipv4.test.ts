import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import ipaddr from 'ipaddr.js';
import { embeddedIpv4, networkCarries } from '../src/embedded-ipv4.ts';

const carried = (ip: string) => embeddedIpv4(ipaddr.parse(ip)).map(String);
const carries = (cidr: string, v4: string) => networkCarries(ipaddr.IPv6.parseCIDR(cidr), ipaddr.IPv4.parseCIDR(v4));

describe('the IPv4 address an IPv6 address carries', () => {
  for (const [form, ip] of [
    ['IPv4-compatible', '::a9fe:a9fe'],
    ['IPv4-mapped', '::ffff:a9fe:a9fe'],
    ['IPv4-translated', '::ffff:0:a9fe:a9fe'],
    ['NAT64 well-known', '64:ff9b::a9fe:a9fe'],
    ['NAT64 local-use, last 32 bits', '64:ff9b:1::a9fe:a9fe'],
    ['NAT64 local-use, a /48 layout', '64:ff9b:1:a9fe:a9:fe00::'],
    ['6to4', '2002:a9fe:a9fe::1'],
    ['Teredo (inverted)', '2001:0:4136:e378:8000:63bf:5601:5601'],
  ] as const) {
    it(`reads 169.254.169.254 out of ${form} ${ip}`, () => assert.ok(carried(ip).includes('169.254.169.254')));
  }

  it('reads the Teredo client of RFC 4380’s example, and nothing out of a plain address', () => {
    assert.deepEqual(carried('2001:0:4136:e378:8000:63bf:3fff:fdd2'), ['192.0.2.45']);
    assert.deepEqual(carried('2001:4860:4860::8888'), []);
    assert.deepEqual(carried('169.254.169.254'), []);
  });
});

describe('whether an IPv6 network holds an address carrying an IPv4 one', () => {
  for (const cidr of [
    '::/96',
    '::ffff:0:0/96',
    '::ffff:0:0:0/96',
    '64:ff9b::/96',
    '64:ff9b:1::/48',
    '64:ff9b:1:7::/64',
    '2002::/16',
    '2002:a9fe:1::/48',
    '2001::/32',
    '2000::/3',
    '::/0',
    '64:ff9b::a9fe:a9fe/128',
  ]) {
    it(`${cidr} holds one carrying a link-local address`, () => assert.equal(carries(cidr, '169.254.0.0/16'), true));
  }
  for (const cidr of [
    '64:ff9b::a00:0/104',
    '2002:a00::/24',
    '2002:a9ff::/32',
    '::1/128',
    'fd00::/8',
    '2001:db8::/32',
  ]) {
    it(`${cidr} holds none`, () => assert.equal(carries(cidr, '169.254.0.0/16'), false));
  }
});

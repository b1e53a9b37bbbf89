// Red team: IPv6 forms that carry the metadata address 169.254.169.254 (NAT64, 6to4, Teredo, …)
// were accepted as callback, callback token and acquirer URLs in sandbox mode, and a staging
// allowance could cover them. The address guard reads the IPv4 address they carry
// (docs/operations.md#outbound-addresses-and-staging-rehearsals).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAddressGuard, parseStagingAllow } from '../../src/address-guard.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { spawnGateway } from '../helpers/process.ts';

/** 169.254.169.254 (a9fe:a9fe) in each IPv6 form that carries an IPv4 address. */
const METADATA_FORMS = [
  ['IPv4-compatible', '::a9fe:a9fe'],
  ['NAT64 well-known', '64:ff9b::a9fe:a9fe'],
  ['NAT64 local-use', '64:ff9b:1::a9fe:a9fe'],
  ['6to4', '2002:a9fe:a9fe::1'],
  ['IPv4-translated', '::ffff:0:a9fe:a9fe'],
  ['Teredo', '2001:0:4136:e378:8000:63bf:5601:5601'],
] as const;

const LINK_LOCAL = /must not point at a link-local or cloud metadata address/;
/** The entry as the refusal quotes it, as a pattern. */
const quoted = (entry: string) => JSON.stringify(entry).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('IPv6 forms of the metadata address, through the admin API in sandbox mode', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(async () => {
    await gw.close();
  });

  for (const [form, ip] of METADATA_FORMS) {
    it(`refuses ${form} [${ip}] as a callback URL`, async () => {
      const r = await gw.admin('POST', '/merchants', { name: 'Toko', callbackBaseUrl: `http://[${ip}]/cb` });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), new RegExp(`callbackBaseUrl: ${LINK_LOCAL.source}`));
    });

    it(`refuses ${form} [${ip}] as a callback token URL`, async () => {
      const r = await gw.admin('POST', '/merchants', {
        name: 'Toko B2B',
        callbackSignature: 'snap-b2b',
        callbackBaseUrl: 'http://127.0.0.1:9/cb',
        callbackTokenUrl: `http://[${ip}]/api/snap/v1.0/access-token/b2b`,
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), new RegExp(`callbackTokenUrl: ${LINK_LOCAL.source}`));
    });

    it(`refuses ${form} [${ip}] as an acquirer's outbound URL`, async () => {
      const r = await gw.admin('POST', '/providers', {
        kind: 'acquirer',
        name: 'Acquirer',
        bankCode: '501',
        outbound: { baseUrl: `http://[${ip}]:8443`, clientKey: 'ck', clientSecret: 's', partnerId: 'p' },
      });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(JSON.stringify(r.body), new RegExp(`outbound\\.baseUrl: ${LINK_LOCAL.source}`));
    });
  }
});

describe('IPv6 forms of the metadata address, at every connection', () => {
  it('dials none of them in sandbox mode, nor for an allowed staging host in production mode', () => {
    const sandbox = createAddressGuard(false);
    const staging = createAddressGuard(true, parseStagingAllow('receiver.staging.example'));
    for (const [form, ip] of METADATA_FORMS) {
      assert.equal(sandbox.allowsAddress('imds.example', ip), false, form);
      assert.equal(staging.allowsAddress('receiver.staging.example', ip), false, form);
    }
    assert.equal(staging.allowsAddress('receiver.staging.example', '64:ff9b::a00:1'), true, 'NAT64 of a private one');
  });
});

describe('SNAPGATE_STAGING_ALLOW at start', () => {
  /** The one problem loadConfig reports for this allowance. */
  const refusal = (allow: string) => {
    try {
      loadConfig({ SNAPGATE_STAGING_ALLOW: allow });
    } catch (e) {
      if (e instanceof ConfigError) return e.problems.join('\n');
      throw e;
    }
    return 'accepted';
  };

  for (const entry of [
    '64:ff9b::/96',
    '64:ff9b:1::/48',
    '2002::/16',
    '2001::/32',
    '::/96',
    '::ffff:0:0:0/96',
    '2000::/3',
    '2002:a9fe::/32',
    ...METADATA_FORMS.map(([, ip]) => ip),
    '[64:ff9b::a9fe:a9fe]',
  ]) {
    it(`refuses ${entry}, which covers an IPv6 form of a link-local or metadata address`, () => {
      assert.match(
        refusal(`10.20.0.0/16, ${entry}`),
        new RegExp(`^SNAPGATE_STAGING_ALLOW: ${quoted(entry)} covers link-local`),
      );
    });
  }

  for (const entry of [
    '10.0.0.0/8/8',
    '1.2.3.4/33',
    '10.0.0.0/',
    '::1/129',
    '[::1]/64/64',
    '::1%eth0',
    '10.0.0.1/8/garbage',
  ]) {
    it(`refuses the malformed ${entry}, quoting it`, () => {
      assert.match(
        refusal(`receiver.staging.example,${entry}`),
        new RegExp(`^SNAPGATE_STAGING_ALLOW: ${quoted(entry)} is (not an address or CIDR|neither)`),
      );
    });
  }

  it('still takes the IPv6 forms of private networks', () => {
    const a = parseStagingAllow('64:ff9b::a00:0/104, 2002:a00::/24, [::1], ::ffff:10.0.0.0/104');
    assert.deepEqual(
      a.networks.map(([net, bits]) => `${net}/${bits}`),
      ['64:ff9b::a00:0/104', '2002:a00::/24', '::1/128', '10.0.0.0/8'],
    );
  });

  it('stops the gateway process before it listens, naming the entry', async () => {
    const started = spawnGateway({
      SNAPGATE_MODE: 'production',
      SNAPGATE_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
      SNAPGATE_STAGING_ALLOW: '10.20.0.0/16,64:ff9b::/96,10.0.0.0/8/8',
    });
    // A gateway that starts anyway is stopped here, and the missing rejection fails the test.
    const stopped = started.then(async (g) => {
      g.child.kill('SIGKILL');
      await g.exited;
    });
    await assert.rejects(stopped, /SNAPGATE_STAGING_ALLOW: "64:ff9b::\/96" covers link-local/);
  });
});

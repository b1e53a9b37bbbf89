import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { createAddressGuard } from '../../src/address-guard.ts';
import { createSender } from '../../src/delivery/send.ts';
import {
  callbackUrlProblem,
  callbackUrlProblemResolved,
  isForbiddenAddress,
  isLinkLocalOrMetadata,
} from '../../src/merchants/callback-url.ts';

describe('forbidden callback addresses (production)', () => {
  for (const ip of [
    '127.0.0.1',
    '10.0.0.5',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::7f00:1',
    '::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '0:0:0:0:0:ffff:0a00:0001',
    // Review finding 7: each passed the hand-written checks.
    '::ffff:0:10.0.0.1',
    '::ffff:0:7f00:1',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::1',
    '2001::1',
    'fec0::1',
    '192.0.0.8',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.7',
    '2001:db8::1',
    '3fff::1',
    '240.0.0.1',
    '255.255.255.255',
    '64:ff9b::808:808',
  ]) {
    it(`refuses ${ip}`, () => assert.equal(isForbiddenAddress(ip), true));
  }
  for (const ip of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    it(`allows ${ip}`, () => assert.equal(isForbiddenAddress(ip), false));
  }
  it('refuses URLs whose host is such an address in any spelling', () => {
    for (const u of [
      'https://[::ffff:127.0.0.1]/cb',
      'https://[::ffff:7f00:1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[::7f00:1]/',
      'https://localhost/',
      'https://localhost./',
      'https://LOCALHOST./',
      'https://[2002:7f00:1::1]/',
      'https://192.0.0.8/',
    ]) {
      assert.ok(callbackUrlProblem(u, 'production'), u);
    }
    assert.equal(callbackUrlProblem('https://merchant.example/cb', 'production'), undefined);
  });
});

describe('callback URLs resolved when they are saved (production)', () => {
  it('refuses a name that resolves to a forbidden address, this machine’s own name included', async () => {
    const own = await callbackUrlProblemResolved(`https://${hostname()}/cb`, 'production');
    assert.match(own ?? '', /must not resolve to a loopback, private or reserved address/);
    const internal = await callbackUrlProblemResolved('https://billing.corp.example/cb', 'production', async () => [
      { address: '8.8.8.8' },
      { address: '10.1.2.3' },
    ]);
    assert.match(internal ?? '', /billing\.corp\.example is 10\.1\.2\.3/);
  });

  it('accepts a name that resolves to global addresses only, or not yet at all (the send-time check stays)', async () => {
    assert.equal(
      await callbackUrlProblemResolved('https://shop.example/cb', 'production', async () => [{ address: '8.8.8.8' }]),
      undefined,
    );
    assert.equal(
      await callbackUrlProblemResolved('https://not-yet.example/cb', 'production', async () => {
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      }),
      undefined,
    );
  });

  it('looks up no address literal in sandbox mode', async () => {
    let asked = false;
    const r = await callbackUrlProblemResolved('http://127.0.0.1:9000/cb', 'sandbox', async () => {
      asked = true;
      return [];
    });
    assert.equal(r, undefined);
    assert.equal(asked, false);
  });
});

describe('the sender in production mode', () => {
  it('refuses an http URL saved in sandbox mode, before any connection', async () => {
    const sender = createSender({ timeoutMs: 1_000, outbound: { guard: createAddressGuard(true) } });
    try {
      const r = await sender.post(new URL('http://8.8.8.8/webhook/payment-qr-notification'), {}, '{}');
      assert.equal(r.outcome, 'error');
      assert.match(r.error ?? '', /^EINSECURE: callbacks are sent only to https URLs in production mode/);
    } finally {
      await sender.close();
    }
  });
});

describe('link-local and cloud metadata addresses: refused in every mode', () => {
  for (const ip of [
    '169.254.169.254',
    '169.254.0.1',
    'fe80::1',
    '::ffff:169.254.169.254',
    '100.100.100.200',
    'fd00:ec2::254',
  ]) {
    it(`refuses ${ip}`, () => assert.equal(isLinkLocalOrMetadata(ip), true));
  }
  for (const ip of ['127.0.0.1', '10.0.0.1', '192.168.1.10', '::1', '100.64.0.1', 'fd00::1', '8.8.8.8']) {
    it(`leaves ${ip} to the mode`, () => assert.equal(isLinkLocalOrMetadata(ip), false));
  }

  it('refuses such a URL in sandbox mode, by address or by the metadata service’s name', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fe80::1]/cb',
      'http://[::ffff:a9fe:a9fe]/cb',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://100.100.100.200/latest/meta-data/',
    ]) {
      assert.match(callbackUrlProblem(url, 'sandbox') ?? '', /link-local or cloud metadata/, url);
    }
    assert.equal(callbackUrlProblem('http://127.0.0.1:9000/cb', 'sandbox'), undefined);
    assert.equal(callbackUrlProblem('http://10.0.0.5/cb', 'sandbox'), undefined);
  });

  it('refuses in sandbox mode a name that resolves to one', async () => {
    const r = await callbackUrlProblemResolved('http://imds.example/cb', 'sandbox', async () => [
      { address: '169.254.169.254' },
    ]);
    assert.match(r ?? '', /link-local or cloud metadata address \(imds.example is 169.254.169.254\)/);
    const ok = await callbackUrlProblemResolved('http://shop.internal/cb', 'sandbox', async () => [
      { address: '10.1.2.3' },
    ]);
    assert.equal(ok, undefined);
  });

  it('the sandbox sender dials none of them, whatever was saved', async () => {
    const sender = createSender({ timeoutMs: 1_000, outbound: { guard: createAddressGuard(false) } });
    try {
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]:8080/cb']) {
        const r = await sender.post(new URL(url), {}, '{}');
        assert.equal(r.outcome, 'error');
        assert.equal(r.status, null);
        assert.match(r.error ?? '', /^EFORBIDDENADDR/, url);
      }
    } finally {
      await sender.close();
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callbackUrlProblem, isForbiddenAddress } from '../../src/merchants/callback-url.ts';

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
  ]) {
    it(`refuses ${ip}`, () => assert.equal(isForbiddenAddress(ip), true));
  }
  for (const ip of ['8.8.8.8', '203.0.113.7', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
    it(`allows ${ip}`, () => assert.equal(isForbiddenAddress(ip), false));
  }
  it('refuses URLs whose host is such an address in any spelling', () => {
    for (const u of [
      'https://[::ffff:127.0.0.1]/cb',
      'https://[::ffff:7f00:1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[::7f00:1]/',
      'https://localhost/',
    ]) {
      assert.ok(callbackUrlProblem(u, 'production'), u);
    }
    assert.equal(callbackUrlProblem('https://merchant.example/cb', 'production'), undefined);
  });
});

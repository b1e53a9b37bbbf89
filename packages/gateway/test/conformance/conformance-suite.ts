// The SNAP server conformance run against snapgate itself: every scenario must pass, on each store.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { formatJunit, formatText, runConformance, SUITES } from '../../src/conformance/index.ts';
import type { ConformanceReport } from '../../src/conformance/report.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';
import { checkWellFormed } from './xml-check.ts';

/** The failed scenarios with their reasons, for an assertion message. */
export function failuresOf(report: ConformanceReport): string {
  return report.results
    .filter((r) => !r.passed)
    .map((r) => `${r.id}: ${r.reason}`)
    .join('\n');
}

export function conformanceSuite(under: StoreUnderTest): void {
  describe(`SNAP server conformance against snapgate (${under.name})`, () => {
    let gw: TestGateway;
    let merchant: TestMerchant;
    let cleanup: () => Promise<void>;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      merchant = await gw.createMerchant();
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('passes every scenario of every operation (token signed HMAC-SHA256)', async (t) => {
      const started = performance.now();
      const report = await runConformance({
        url: gw.url,
        clientKey: merchant.clientKey,
        clientSecret: merchant.clientSecret,
        partnerId: merchant.partnerId,
      });
      const ms = Math.round(performance.now() - started);
      assert.equal(report.failed, 0, `failed scenarios:\n${failuresOf(report)}`);
      assert.ok(report.ok);
      const expected = SUITES.reduce((n, s) => n + s.scenarios.length, 0);
      assert.equal(report.total, expected);
      // Every operation ran, each with positive and negative rows (refund: negatives only).
      for (const suite of SUITES) {
        const rows = report.results.filter((r) => r.group === suite.operation.name);
        assert.equal(rows.length, suite.scenarios.length, suite.operation.name);
        assert.ok(
          rows.some((r) => r.kind === 'negative'),
          `${suite.operation.name} has negatives`,
        );
      }
      // Every exchange is recorded, with the credentials redacted.
      for (const r of report.results) {
        assert.ok(r.request && r.response, r.id);
        assert.ok(r.response.status > 0 && r.response.status < 500, `${r.id}: ${r.response.status}`);
        const auth = r.request.headers.authorization;
        if (auth !== undefined) assert.equal(auth, '[redacted]');
        if (r.request.headers['x-signature'] !== undefined)
          assert.equal(r.request.headers['x-signature'], '[redacted]');
      }
      assert.ok(!JSON.stringify(report).includes(merchant.clientSecret), 'the secret never appears in the report');
      const text = formatText(report);
      assert.match(text, new RegExp(`${expected} of ${expected} scenarios passed, 0 failed`));
      checkWellFormed(formatJunit(report));
      t.diagnostic(`conformance (${under.name}): ${report.total} scenarios in ${ms} ms`);
    });

    it('takes its token with SHA256withRSA when given a private key', async () => {
      const rsa = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      const m = await gw.createMerchant({ publicKeyPem: rsa.publicKey, tokenSignature: 'rsa-sha256' });
      const report = await runConformance({
        url: gw.url,
        clientKey: m.clientKey,
        clientSecret: m.clientSecret,
        privateKeyPem: rsa.privateKey,
        partnerId: m.partnerId,
        channelId: '12345',
        only: ['token', 'qris-generate'],
      });
      assert.equal(report.failed, 0, `failed scenarios:\n${failuresOf(report)}`);
      assert.ok(report.results.some((r) => r.id === 'qris-generate-ok' && r.passed));
      assert.ok(report.results.every((r) => r.group === 'token' || r.request?.headers['channel-id'] === '12345'));
    });

    it('with a private key and no client secret, runs the token scenarios and fails payment calls clearly', async () => {
      const rsa = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      });
      const m = await gw.createMerchant({ publicKeyPem: rsa.publicKey, tokenSignature: 'rsa-sha256' });
      const report = await runConformance({
        url: gw.url,
        clientKey: m.clientKey,
        privateKeyPem: rsa.privateKey,
        partnerId: m.partnerId,
        only: ['token', 'qris-generate'],
      });
      for (const r of report.results.filter((x) => x.group === 'token')) assert.ok(r.passed, `${r.id}: ${r.reason}`);
      const generate = report.results.filter((x) => x.group === 'qris-generate');
      assert.ok(generate.length > 0 && generate.every((r) => !r.passed && /no client secret was given/.test(r.reason)));
    });
  });
}

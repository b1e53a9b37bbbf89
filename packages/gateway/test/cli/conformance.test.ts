import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';
import { adminApiOf, spawnGateway } from '../helpers/process.ts';

describe('snapgate conformance', () => {
  let gw: TestGateway;
  let m: TestMerchant;
  before(async () => {
    gw = await startGateway();
    m = await gw.createMerchant();
  });
  after(() => gw.close());

  it('runs every scenario against the gateway, passes, and writes a JUnit report', async () => {
    const junit = join(gw.dir, 'conformance.xml');
    const r = await runCli(
      gw,
      'conformance',
      '--client-key',
      m.clientKey,
      '--client-secret',
      m.clientSecret,
      '--partner-id',
      m.partnerId,
      '--junit',
      junit,
    );
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.match(r.out, /passed/);
    const xml = readFileSync(junit, 'utf8');
    assert.match(xml, /^<\?xml/);
    assert.match(xml, /<testsuite [^>]*name="token"/);
    assert.doesNotMatch(xml, /<failure/);
  });

  it('exits 1 with the reasons when scenarios fail, and 2 without credentials', async () => {
    const r = await runCli(
      gw,
      'conformance',
      '--client-key',
      m.clientKey,
      '--client-secret',
      'not-the-secret',
      '--partner-id',
      m.partnerId,
      '--json',
    );
    assert.equal(r.code, 1);
    const report = JSON.parse(r.out);
    assert.ok(report.failed > 0);
    assert.equal((await runCli(gw, 'conformance', '--client-key', 'k')).code, 2);
  });
});

describe('snapgate conformance against a gateway process', () => {
  it('passes against `src/main.ts` running as its own process', { timeout: 60_000 }, async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-conformance-'));
    const token = 'conformance-admin-token-000000';
    const g = await spawnGateway({ SNAPGATE_DB: join(dir, 'gw.db'), SNAPGATE_ADMIN_TOKEN: token });
    try {
      const m = (await adminApiOf(token)(g, 'POST', '/merchants', { name: 'Conformance' })).body;
      const r = await runCli(
        { url: g.url },
        'conformance',
        '--client-key',
        m.clientKey,
        '--client-secret',
        m.clientSecret,
        '--partner-id',
        m.partnerId,
      );
      assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    } finally {
      g.child.kill('SIGTERM');
      await g.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

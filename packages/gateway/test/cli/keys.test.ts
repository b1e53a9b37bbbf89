import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

describe('snapgate keys …', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('shows which master key seals how many secrets, and re-seals (nothing to do under one key)', async () => {
    const status = await runCli(gw, 'keys', 'status', '--json');
    assert.equal(status.code, 0, status.err);
    const s = JSON.parse(status.out);
    assert.match(s.currentKeyId, /^[0-9a-f]{8}$/);
    assert.deepEqual(s.configuredKeyIds, [s.currentKeyId]);
    // The sandbox merchant and providers, the JWT key and the callback key: all under the one key.
    assert.deepEqual(Object.keys(s.secretsByKeyId), [s.currentKeyId]);
    assert.ok(s.secretsByKeyId[s.currentKeyId] >= 4);
    const rotated = await runCli(gw, 'keys', 'rotate', '--json');
    assert.equal(rotated.code, 0, rotated.err);
    assert.equal(JSON.parse(rotated.out).resealed, 0);
    const text = await runCli(gw, 'keys', 'status');
    assert.match(text.out, /currentKeyId\s+[0-9a-f]{8}/);
  });
});

describe('snapgate admin-key … and audit list', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('creates a key shown once, lists, revokes, and shows the audit log', async () => {
    const created = await runCli(gw, 'admin-key', 'create', '--name', 'ops-eka', '--scope', 'operate', '--json');
    assert.equal(created.code, 0, created.err);
    const key = JSON.parse(created.out);
    assert.match(key.key, /^sgk_/);
    const list = await runCli(gw, 'admin-key', 'list');
    assert.match(list.out, /ops-eka\s+operate/);
    assert.equal(list.out.includes(key.key), false);
    const revoked = await runCli(gw, 'admin-key', 'revoke', key.id, '--json');
    assert.equal(revoked.code, 0, revoked.err);
    assert.match(JSON.parse(revoked.out).revokedAt, /Z$/);
    const audit = await runCli(gw, 'audit', 'list');
    assert.equal(audit.code, 0, audit.err);
    assert.match(audit.out, /bootstrap\s+127\.0\.0\.1\s+POST \/admin\/v1\/admin-keys\/:id\/revoke/);
    const usage = await runCli(gw, 'admin-key', 'create', '--name', 'x');
    assert.equal(usage.code, 2);
  });
});

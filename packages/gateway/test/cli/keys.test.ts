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

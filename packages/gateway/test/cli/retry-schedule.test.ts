import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

describe('snapgate merchant … --retry-schedule', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw.close());

  it('sets a merchant’s own schedule, and "default" gives it back the gateway’s', async () => {
    const created = JSON.parse(
      (await runCli(gw, 'merchant', 'create', '--name', 'Tester', '--retry-schedule', '0s,5s,30s', '--json')).out,
    );
    assert.equal(created.retrySchedule, '0s,5s,30s');
    const reset = await runCli(gw, 'merchant', 'update', created.id, '--retry-schedule', 'default', '--json');
    assert.equal(reset.code, 0, reset.err);
    assert.equal(JSON.parse(reset.out).retrySchedule, null);
    const bad = await runCli(gw, 'merchant', 'update', created.id, '--retry-schedule', 'whenever');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /retrySchedule/);
  });
});

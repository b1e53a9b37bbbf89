import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnGateway } from './helpers/process.ts';
import { postToken } from './helpers/snap.ts';

describe('npm start on the embedded default', () => {
  it('prints an admin token and a ready sandbox merchant once, serves them, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'snapgate-main-'));
    try {
      const db = join(dir, 'data', 'snapgate.db');
      const first = await spawnGateway({ SNAPGATE_DB: db });
      const out = first.stdout();
      const adminToken = /admin token \(shown once\): (\S+)/.exec(out)?.[1];
      const clientKey = /clientKey\s+(\S+)/.exec(out)?.[1];
      const clientSecret = /clientSecret\s+(\S+)/.exec(out)?.[1];
      assert.ok(adminToken && clientKey && clientSecret, out);
      assert.match(out, /sandbox gateway on http:\/\/127\.0\.0\.1:\d+ \(sqlite store\)/);

      const token = await postToken(first.url, { clientKey, clientSecret });
      assert.equal(token.status, 200);
      const merchants = await fetch(`${first.url}/admin/v1/merchants`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      assert.equal(merchants.status, 200);
      assert.equal(((await merchants.json()) as { items: unknown[] }).items.length, 1);
      assert.equal(first.stderr().includes(clientSecret), false);

      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);

      const second = await spawnGateway({ SNAPGATE_DB: db });
      assert.doesNotMatch(second.stdout(), /shown once/);
      const again = await fetch(`${second.url}/admin/v1/merchants`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      assert.equal(again.status, 200, 'the admin token printed on the first start keeps working');
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on invalid settings, listing all of them, with exit code 2', async () => {
    await assert.rejects(spawnGateway({ SNAPGATE_MODE: 'live', SNAPGATE_CLOCK_SKEW_SEC: 'x' }, 10_000), (e: Error) => {
      assert.match(e.message, /SNAPGATE_MODE/);
      assert.match(e.message, /SNAPGATE_CLOCK_SKEW_SEC/);
      return true;
    });
  });
});

// A revoked admin key is refused at once by every gateway instance on one PostgreSQL database, and
// the audit log cannot be changed, even by SQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { POSTGRES } from '../helpers/store-under-test.ts';

const ADMIN = 'instances-admin-token-0123456789';

describe('admin keys across instances (PostgreSQL)', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-keys-'));
  const running: GatewayProcess[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  after(async () => {
    for (const g of running) g.child.kill('SIGKILL');
    for (const c of cleanups) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a key revoked on one instance at once on the other; the audit log refuses UPDATE and DELETE', async () => {
    const { env, cleanup } = await POSTGRES.processEnv(dir, 'keys');
    cleanups.push(cleanup);
    const common = { ...env, SNAPGATE_ADMIN_TOKEN: ADMIN, SNAPGATE_MASTER_KEY: Buffer.alloc(32, 1).toString('base64') };
    const a = await spawnGateway(common);
    running.push(a);
    const b = await spawnGateway(common);
    running.push(b);
    const admin = adminApiOf(ADMIN);
    const created = (await admin(a, 'POST', '/admin-keys', { name: 'ops-dewi', scope: 'read' })).body;
    const withKey = async (g: GatewayProcess) =>
      (await fetch(`${g.url}/admin/v1/merchants`, { headers: { authorization: `Bearer ${created.key}` } })).status;
    assert.equal(await withKey(b), 200);
    assert.equal((await admin(a, 'POST', `/admin-keys/${created.id}/revoke`)).status, 200);
    assert.equal(await withKey(b), 401, 'the other instance refuses it on the very next request');
    assert.equal(await withKey(a), 401);

    const c = new pg.Client({ connectionString: env.SNAPGATE_DATABASE_URL });
    await c.connect();
    try {
      const n = await c.query('SELECT count(*)::int AS n FROM audit_log');
      assert.ok(n.rows[0].n >= 2);
      await assert.rejects(c.query(`UPDATE audit_log SET key_name = 'someone-else'`), /append-only/);
      await assert.rejects(c.query('DELETE FROM audit_log'), /append-only/);
      await assert.rejects(c.query('TRUNCATE audit_log'), /append-only/);
    } finally {
      await c.end();
    }
  });
});

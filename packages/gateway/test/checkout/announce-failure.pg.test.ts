// A status change whose announcement to the other instances fails (the database refuses the
// NOTIFY) still commits and answers, and the gateway says so in its log instead of dropping it
// silently. The refusal is made in the real database: a `public.pg_notify` found before
// pg_catalog's (the database's search_path) refuses the status channel and passes the others on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createTestDatabase } from '../helpers/postgres.ts';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const ADMIN = 'announce-failure-admin-token-000';
const admin = adminApiOf(ADMIN);

describe('a status change the database refuses to announce (PostgreSQL)', { timeout: 60_000 }, () => {
  let db: { url: string; drop: () => Promise<void> };
  let gw: GatewayProcess | undefined;

  before(async () => {
    db = await createTestDatabase();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(`CREATE FUNCTION public.pg_notify(channel text, payload text) RETURNS void AS $$
        BEGIN
          IF channel = 'snapgate_status' THEN RAISE EXCEPTION 'announcements refused by the test'; END IF;
          PERFORM pg_catalog.pg_notify(channel, payload);
        END $$ LANGUAGE plpgsql`);
      const name = new URL(db.url).pathname.slice(1);
      await c.query(`ALTER DATABASE ${name} SET search_path = public, pg_catalog`);
    } finally {
      await c.end();
    }
    gw = await spawnGateway({ SNAPGATE_DATABASE_URL: db.url, SNAPGATE_ADMIN_TOKEN: ADMIN });
  });
  after(async () => {
    if (gw && gw.child.exitCode === null) {
      gw.child.kill('SIGTERM');
      await gw.exited;
    }
    await db?.drop();
  });

  it('commits and answers the change, and logs that it was not announced', async () => {
    const g = gw as GatewayProcess;
    // Merchant writes announce on their own channel, which still works: the refusal is the status channel's alone.
    const m = (await admin(g, 'POST', '/merchants', { name: 'Announce' })).body;
    const caller = await authenticate(g.url, m);
    const r = await snapCall(g.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
      partnerReferenceNo: 'ANNOUNCE-1',
      amount: { value: '1000.00', currency: 'IDR' },
    });
    assert.equal(r.status, 200, r.text);
    const ref = r.body.referenceNo as string;
    assert.equal(g.stdout().includes('not announced'), false, 'nothing announced yet, nothing refused');

    const paid = await admin(g, 'POST', `/sandbox/qris/${ref}/pay`, {});
    assert.equal(paid.status, 200, JSON.stringify(paid.body));
    assert.equal((await admin(g, 'GET', `/transactions/${ref}`)).body.status, '00');

    // A line still being written (no newline yet) is read on the next look.
    const logLines = () =>
      `${g.stdout()}\n${g.stderr()}`.split('\n').flatMap((l) => {
        try {
          return [JSON.parse(l) as { level: number; msg: string; reason?: string; refused?: number }];
        } catch {
          return [];
        }
      });
    const line = await waitFor('the warning in the log', () =>
      logLines().find((l) => typeof l.msg === 'string' && l.msg.includes('not announced')),
    );
    assert.equal(line.level, 40, 'a warning');
    assert.match(line.reason ?? '', /announcements refused by the test/);
    assert.equal(line.refused, 1);
  });
});

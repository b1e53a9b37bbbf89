import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from './helpers/postgres.ts';
import { type GatewayProcess, spawnGateway } from './helpers/process.ts';
import { ACK, type Receiver, startReceiver, waitFor } from './helpers/receiver.ts';
import { authenticate, newExternalId, type SnapCaller, snapCall } from './helpers/snap.ts';

const ADMIN = 'multi-instance-admin-token-0000';

async function admin(gw: GatewayProcess, method: string, path: string, body?: unknown) {
  try {
    const res = await fetch(`${gw.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  } catch (e) {
    throw new Error(
      `${method} ${path} on ${gw.url} (exit code ${gw.child.exitCode}): ${(e as Error).cause ?? e}\n${gw.stderr().slice(-2000)}`,
    );
  }
}

describe('three gateway processes on one PostgreSQL database', { timeout: 120_000 }, () => {
  let drop: () => Promise<void>;
  let gws: GatewayProcess[] = [];
  let receiver: Receiver;
  const inFlightByTxn = new Map<string, number>();
  let maxInFlightPerTxn = 0;
  let env: Record<string, string>;

  before(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    receiver = await startReceiver((req, res) => {
      // Watch for two attempts of one transaction in flight at once, across instances.
      const ref = JSON.parse(req.body).originalReferenceNo as string;
      const n = (inFlightByTxn.get(ref) ?? 0) + 1;
      inFlightByTxn.set(ref, n);
      maxInFlightPerTxn = Math.max(maxInFlightPerTxn, n);
      setTimeout(() => {
        inFlightByTxn.set(ref, (inFlightByTxn.get(ref) ?? 1) - 1);
        res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
      }, 20);
    });
    env = {
      SNAPGATE_DATABASE_URL: db.url,
      SNAPGATE_ADMIN_TOKEN: ADMIN,
      SNAPGATE_RATE_LIMIT: 'off',
      SNAPGATE_RETRY_SCHEDULE: '0s,200ms,200ms,200ms,200ms,200ms,200ms,200ms',
      // Long enough that no attempt times out on a loaded 2-core machine: a timed-out attempt
      // is given up by the gateway but may still be processed late by the merchant, which this
      // test would (rightly) see as two in flight. The SDK's handler is the defence for that.
      SNAPGATE_CALLBACK_TIMEOUT_MS: '5000',
    };
    // The first one migrates; the others find the schema ready.
    gws.push(await spawnGateway(env));
    gws.push(...(await Promise.all([spawnGateway(env), spawnGateway(env)])));
  });
  after(async () => {
    for (const g of gws) g.child.kill('SIGKILL');
    await receiver.close();
    await drop();
  });

  let merchant: { id: string; clientKey: string; clientSecret: string; partnerId: string };
  let caller: SnapCaller;

  it('accepts on every instance a token issued by one', async () => {
    merchant = (
      await admin(gws[0] as GatewayProcess, 'POST', '/merchants', { name: 'Multi', callbackBaseUrl: receiver.baseUrl })
    ).body;
    caller = await authenticate((gws[1] as GatewayProcess).url, merchant);
    for (const g of gws) {
      const r = await snapCall(g.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `TOK-${g.url}`,
        amount: { value: '1.00', currency: 'IDR' },
      });
      assert.equal(r.status, 200, r.text);
    }
  });

  it('keeps X-EXTERNAL-ID idempotency across instances under concurrent duplicates', async () => {
    const externalId = newExternalId();
    const body = { partnerReferenceNo: 'IDEM-1', amount: { value: '5000.00', currency: 'IDR' } };
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        snapCall((gws[i % 3] as GatewayProcess).url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', body, { externalId }),
      ),
    );
    assert.deepEqual([...new Set(results.map((r) => r.status))], [200]);
    assert.equal(new Set(results.map((r) => r.text)).size, 1, 'every instance answers the same bytes');
    const list = await admin(gws[2] as GatewayProcess, 'GET', `/transactions?merchantId=${merchant.id}&limit=500`);
    assert.equal(
      list.body.items.filter((t: { partnerReferenceNo: string }) => t.partnerReferenceNo === 'IDEM-1').length,
      1,
    );
    const other = await snapCall(
      (gws[1] as GatewayProcess).url,
      caller,
      '/api/snap/v1.0/qr/qr-mpm-generate',
      { ...body, partnerReferenceNo: 'IDEM-2' },
      { externalId },
    );
    assert.equal(other.status, 409);
  });

  it('delivers every notification, never two attempts of one transaction at once, and loses nothing when one instance is killed -9', async () => {
    const N = 90;
    const refs: string[] = [];
    for (let i = 0; i < N; i++) {
      const g = gws[i % 3] as GatewayProcess;
      refs.push(
        (
          await snapCall(g.url, caller, '/api/snap/v1.0/qr/qr-mpm-generate', {
            partnerReferenceNo: `MI-${i}`,
            amount: { value: '100.00', currency: 'IDR' },
          })
        ).body.referenceNo,
      );
    }
    // Two status changes per transaction, through different instances.
    // Calls to the instance about to be killed fail: caught at once, they are made again below.
    const pays = refs.map((r, i) =>
      (async () => {
        await admin(gws[i % 3] as GatewayProcess, 'POST', `/sandbox/qris/${r}/pay`, { status: '03' });
        await admin(gws[(i + 1) % 3] as GatewayProcess, 'POST', `/sandbox/qris/${r}/pay`, { status: '00' });
      })().catch(() => undefined),
    );
    await waitFor('deliveries under way', () => receiver.received.length >= 20, 30_000);
    const victim = gws[2] as GatewayProcess;
    victim.child.kill('SIGKILL');
    await victim.exited;
    gws = gws.slice(0, 2);
    await Promise.all(pays);
    // Changes the kill interrupted are made again through a survivor; finished ones are refused.
    for (const r of refs) {
      await admin(gws[0] as GatewayProcess, 'POST', `/sandbox/qris/${r}/pay`, { status: '03' });
      await admin(gws[0] as GatewayProcess, 'POST', `/sandbox/qris/${r}/pay`, { status: '00' });
    }
    await waitFor(
      'the latest status of every transaction delivered',
      async () => {
        const report = await admin(gws[0] as GatewayProcess, 'GET', `/reports/undelivered?merchantId=${merchant.id}`);
        return report.body.items.length === 0;
      },
      60_000,
    );
    const finals = new Set(
      receiver.received
        .filter((r) => JSON.parse(r.body).latestTransactionStatus === '00')
        .map((r) => JSON.parse(r.body).originalReferenceNo),
    );
    for (const r of refs) assert.ok(finals.has(r), `${r} reached the merchant as 00`);
    assert.equal(maxInFlightPerTxn, 1, 'one attempt in flight per transaction');
    // And never an older status after a newer one, per transaction.
    const lastSeen = new Map<string, string>();
    for (const r of receiver.received) {
      const b = JSON.parse(r.body);
      assert.ok(
        !(lastSeen.get(b.originalReferenceNo) === '00' && b.latestTransactionStatus !== '00'),
        `${b.originalReferenceNo}: 03 after 00`,
      );
      lastSeen.set(b.originalReferenceNo, b.latestTransactionStatus);
    }
  });
});

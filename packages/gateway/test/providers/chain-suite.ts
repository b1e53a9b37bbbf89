import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { verifyCallback } from '@snapgate/merchant-sdk';
import { adminApiOf, type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { ACK, closedPort, type Received, startReceiver, waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const ADMIN = 'chain-test-admin-token-00000000';
export const GENERATE = '/api/snap/v1.0/qr/qr-mpm-generate';
export const idr = (value: string) => ({ value, currency: 'IDR' });

const admin = adminApiOf(ADMIN);

const notificationsOf = async (gw: GatewayProcess, referenceNo: string) =>
  (await admin(gw, 'GET', `/transactions/${referenceNo}`)).body.notifications as Array<{
    id: string;
    state: string;
    latestTransactionStatus: string;
  }>;

/**
 * Three real processes: gateway B is the acquirer, gateway A the aggregator whose merchant's
 * acquirer is B, and the merchant's receiver. A is a merchant of B; B calls A back in its own
 * callback form at /upstream/<providerId>/webhook/…; A calls the merchant back.
 */
async function startChain(under: StoreUnderTest, dir: string, merchantAnswer: (r: Received) => boolean) {
  const databases = [await under.processEnv(dir, 'a'), await under.processEnv(dir, 'b')];
  const env = (name: 'a' | 'b', port = '0') => ({
    ...(databases[name === 'a' ? 0 : 1] as { env: Record<string, string> }).env,
    SNAPGATE_ADMIN_TOKEN: ADMIN,
    SNAPGATE_PORT: port,
    SNAPGATE_RATE_LIMIT: 'off',
    // Retries for 30 s: a gateway restarted on a loaded machine can take seconds to answer (with
    // 12 tries 200 ms apart, B gave up on A while A was starting, and the kill test timed out).
    SNAPGATE_RETRY_SCHEDULE: ['0s', ...Array.from({ length: 60 }, () => '500ms')].join(','),
    SNAPGATE_CALLBACK_TIMEOUT_MS: '1000',
  });
  const verified: Array<{ status: string; externalId: string }> = [];
  let merchantSecret = '';
  let merchantPartnerId = '';
  const receiver = await startReceiver((req, res) => {
    if (!merchantAnswer(req)) return res.writeHead(503).end();
    const n = verifyCallback(
      { method: req.method, path: req.url, headers: req.headers, rawBody: Buffer.from(req.body) },
      { clientSecret: merchantSecret, partnerId: merchantPartnerId },
    );
    verified.push({ status: n.latestTransactionStatus, externalId: String(req.headers['x-external-id']) });
    res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
  });
  const b = await spawnGateway(env('b'));
  // A listens on a fixed port so that B's callback URL survives A's restarts.
  const aPort = String(await closedPort());
  const aEnv = env('a', aPort);
  const a = await spawnGateway(aEnv);

  const aAtB = (await admin(b, 'POST', '/merchants', { name: 'Aggregator A' })).body;
  const acquirer = await admin(a, 'POST', '/providers', {
    name: 'Gateway B',
    kind: 'acquirer',
    bankCode: '936',
    outbound: { baseUrl: b.url, clientKey: aAtB.clientKey, clientSecret: aAtB.clientSecret, partnerId: aAtB.partnerId },
  });
  assert.equal(acquirer.status, 201, JSON.stringify(acquirer.body));
  const patched = await admin(b, 'PATCH', `/merchants/${aAtB.id}`, {
    callbackBaseUrl: `${a.url}/upstream/${acquirer.body.id}`,
  });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  const m = (
    await admin(a, 'POST', '/merchants', {
      name: 'Toko',
      callbackBaseUrl: receiver.baseUrl,
      qrisProvider: acquirer.body.id,
    })
  ).body;
  merchantSecret = m.clientSecret;
  merchantPartnerId = m.partnerId;
  const merchant = await authenticate(a.url, m);
  const cleanup = async () => {
    for (const d of databases) await d.cleanup();
  };
  return { a, b, aEnv, receiver, verified, merchant, aAtB, cleanup };
}

export function chainSuite(under: StoreUnderTest): void {
  describe(`chain: merchant → gateway A → gateway B (acquirer), and back (${under.name})`, () => {
    it('generates at A through B, pays in B’s sandbox, and every hop is signed, verified and acknowledged', {
      timeout: 90_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'snapgate-chain-'));
      const c = await startChain(under, dir, () => true);
      try {
        const g = await snapCall(c.a.url, c.merchant, GENERATE, {
          partnerReferenceNo: 'ORDER-1',
          amount: idr('42000.00'),
        });
        assert.equal(g.status, 200, g.text);
        // B issued the QR for A's referenceNo; A returns B's qrContent unchanged.
        const atB = (await admin(c.b, 'GET', `/transactions?merchantId=${c.aAtB.id}`)).body.items;
        assert.equal(atB.length, 1);
        assert.equal(atB[0].partnerReferenceNo, g.body.referenceNo);
        assert.equal(atB[0].details.qrContent, g.body.qrContent);
        assert.equal(g.body.partnerReferenceNo, 'ORDER-1');

        assert.equal((await admin(c.b, 'POST', `/sandbox/qris/${atB[0].referenceNo}/pay`, {})).status, 200);
        await waitFor('the merchant verified the 00 callback', () => c.verified.some((v) => v.status === '00'), 30_000);
        const atA = (await admin(c.a, 'GET', `/transactions/${g.body.referenceNo}`)).body;
        assert.equal(atA.status, '00');
        assert.equal(atA.paidAmount.value, '42000.00');
        // B's callback to A was acknowledged (A answered 2002600 after its commit).
        await waitFor(
          'B’s callback delivered to A',
          async () => (await notificationsOf(c.b, atB[0].referenceNo)).every((n) => n.state === 'delivered'),
          30_000,
        );
        await waitFor(
          'A’s callback delivered to the merchant',
          async () => (await notificationsOf(c.a, g.body.referenceNo)).some((n) => n.state === 'delivered'),
          30_000,
        );
        // A's log shows B's inbound calls, each answered 2002600.
        const acquirerAtA = (await admin(c.a, 'GET', '/providers')).body.items.find(
          (p: { isSandbox: boolean }) => !p.isSandbox,
        ).id;
        // The inbound log is written after the answer, in a batch: wait for it.
        const inbound = await waitFor(
          'B’s calls in A’s inbound log',
          async () => {
            const items = (await admin(c.a, 'GET', `/providers/${acquirerAtA}/inbound`)).body.items;
            return items.length >= 1 ? items : undefined;
          },
          10_000,
        );
        assert.ok(inbound.every((i: { responseCode: string }) => i.responseCode === '2002600'));

        // Cancel and refund go to B first.
        const g2 = await snapCall(c.a.url, c.merchant, GENERATE, {
          partnerReferenceNo: 'ORDER-2',
          amount: idr('1000.00'),
        });
        const cancel = await snapCall(c.a.url, c.merchant, '/api/snap/v1.0/qr/qr-mpm-cancel', {
          originalPartnerReferenceNo: 'ORDER-2',
          reason: 'customer left',
        });
        assert.equal(cancel.status, 200, cancel.text);
        const g2AtB = (await admin(c.b, 'GET', `/transactions?merchantId=${c.aAtB.id}&limit=10`)).body.items.find(
          (t: { partnerReferenceNo: string }) => t.partnerReferenceNo === g2.body.referenceNo,
        );
        assert.equal(g2AtB.status, '05');
        const refund = await snapCall(c.a.url, c.merchant, '/api/snap/v1.0/qr/qr-mpm-refund', {
          originalPartnerReferenceNo: 'ORDER-1',
          partnerRefundNo: 'RF-1',
          refundAmount: idr('2000.00'),
          reason: 'one item returned',
        });
        assert.equal(refund.status, 200, refund.text);
        assert.equal(
          (await admin(c.b, 'GET', `/transactions/${atB[0].referenceNo}`)).body.refundedAmount.value,
          '2000.00',
        );
        // A refund B refuses (more than was paid) is not applied at A.
        const tooMuch = await snapCall(c.a.url, c.merchant, '/api/snap/v1.0/qr/qr-mpm-refund', {
          originalPartnerReferenceNo: 'ORDER-1',
          partnerRefundNo: 'RF-2',
          refundAmount: idr('40001.00'),
        });
        assert.equal(tooMuch.status, 404);
        assert.equal(
          (await admin(c.a, 'GET', `/transactions/${g.body.referenceNo}`)).body.refundedAmount.value,
          '2000.00',
        );
      } finally {
        for (const p of [c.a, c.b]) p.child.kill('SIGKILL');
        await Promise.all([c.a.exited, c.b.exited]);
        await c.cleanup();
        await c.receiver.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('loses nothing when A is killed -9 while B calls back, and again before the merchant has A’s callback', {
      timeout: 120_000,
    }, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'snapgate-chain-kill-'));
      let merchantUp = false;
      const c = await startChain(under, dir, () => merchantUp);
      let a = c.a;
      try {
        const g = await snapCall(a.url, c.merchant, GENERATE, {
          partnerReferenceNo: 'ORDER-K',
          amount: idr('5000.00'),
        });
        assert.equal(g.status, 200, g.text);
        const atB = (await admin(c.b, 'GET', `/transactions?merchantId=${c.aAtB.id}`)).body.items[0];

        // 1. A is down when B's callback goes out: B keeps retrying until A is back and acknowledges.
        a.child.kill('SIGKILL');
        await a.exited;
        assert.equal((await admin(c.b, 'POST', `/sandbox/qris/${atB.referenceNo}/pay`, {})).status, 200);
        await waitFor(
          'B’s callback to A failing',
          async () => {
            const n = await notificationsOf(c.b, atB.referenceNo);
            return n.some((x) => x.state === 'retrying');
          },
          20_000,
        );
        a = await spawnGateway(c.aEnv);
        await waitFor(
          'B’s callback acknowledged by the restarted A',
          async () => (await notificationsOf(c.b, atB.referenceNo)).every((n) => n.state === 'delivered'),
          30_000,
        );
        assert.equal((await admin(a, 'GET', `/transactions/${g.body.referenceNo}`)).body.status, '00');

        // 2. A committed and acknowledged B, but the merchant does not have A's callback yet: kill A again.
        await waitFor('A trying the merchant', () => c.receiver.received.length >= 1, 20_000);
        a.child.kill('SIGKILL');
        await a.exited;
        merchantUp = true;
        a = await spawnGateway(c.aEnv);
        await waitFor('the merchant verified the 00 callback', () => c.verified.some((v) => v.status === '00'), 30_000);
        // Exactly one notification of 00 at A, delivered; duplicates carry its X-EXTERNAL-ID.
        const notes = await notificationsOf(a, g.body.referenceNo);
        const paid = notes.filter((n) => n.latestTransactionStatus === '00');
        assert.equal(paid.length, 1);
        assert.ok(c.verified.every((v) => v.externalId === paid[0]?.id || v.status !== '00'));
      } finally {
        for (const p of [a, c.b]) p.child.kill('SIGKILL');
        await Promise.all([a.exited, c.b.exited]);
        await c.cleanup();
        await c.receiver.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

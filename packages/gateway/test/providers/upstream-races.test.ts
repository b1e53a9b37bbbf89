import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../../src/clock.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { closedPort } from '../helpers/receiver.ts';
import { authenticate, newExternalId, postToken, type SnapCaller, snapCall } from '../helpers/snap.ts';

const API = '/api/snap/v1.0/qr';
const idr = (value: string) => ({ value, currency: 'IDR' });
const json = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, any>;
};

/**
 * An acquirer that notifies snapgate of a cancel or a full refund *before* it answers the call
 * (as a fast acquirer, or another snapgate, may), and that records every call it gets.
 */
describe('snapgate → acquirer: races with the acquirer’s own notify, retries, routing', () => {
  const clock = createManualClock(Date.now());
  let gw: TestGateway;
  let acquirerServer: Server;
  let acquirer: SnapCaller & { id: string };
  let other: SnapCaller & { id: string };
  let merchant: SnapCaller;
  let merchantId: string;
  const calls: Array<{ path: string; body: Record<string, any>; requestId: string | undefined }> = [];
  const hold = new Map<string, () => void>();
  let queryAnswer: Record<string, unknown> = {};

  const notify = (referenceNo: string, status: string, by = acquirer) =>
    snapCall(
      gw.url,
      by,
      `${API}/qr-mpm-notify`,
      { originalPartnerReferenceNo: referenceNo, latestTransactionStatus: status, amount: idr('5000.00') },
      { timestamp: new Date(clock.now()).toISOString() },
    );

  before(async () => {
    gw = await startGateway({ clock });
    acquirerServer = createServer(async (req, res) => {
      const body = await json(req);
      const path = req.url ?? '';
      const requestId = req.headers['x-request-id'];
      calls.push({ path, body, requestId: typeof requestId === 'string' ? requestId : undefined });
      const answer = (o: Record<string, unknown>) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(o));
      if (path.endsWith('/access-token/b2b')) {
        return answer({
          responseCode: '2007300',
          responseMessage: 'Successful',
          accessToken: 'acq-token',
          expiresIn: 900,
        });
      }
      if (path.endsWith('/qr-mpm-generate')) {
        const release = new Promise<void>((r) => {
          if (body.partnerReferenceNo && hold.has('generate')) hold.set(body.partnerReferenceNo, r);
          else r();
        });
        await release;
        return answer({
          responseCode: '2004700',
          responseMessage: 'Successful',
          referenceNo: `ACQ-${body.partnerReferenceNo}`,
          qrContent: `QR-${body.partnerReferenceNo}`,
        });
      }
      if (path.endsWith('/qr-mpm-cancel')) {
        if (body.reason !== 'expired') await notify(body.originalPartnerReferenceNo, '05');
        return answer({ responseCode: '2007700', responseMessage: 'Successful' });
      }
      if (path.endsWith('/qr-mpm-refund')) {
        if (body.refundAmount.value === '5000.00') await notify(body.originalPartnerReferenceNo, '04');
        return answer({ responseCode: '2007800', responseMessage: 'Successful' });
      }
      if (path.endsWith('/qr-mpm-query'))
        return answer({ responseCode: '2005100', responseMessage: 'Successful', ...queryAnswer });
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => acquirerServer.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${(acquirerServer.address() as AddressInfo).port}`;
    const connect = async (name: string, outbound?: Record<string, string>) => {
      const p = await gw.admin('POST', '/providers', { name, kind: 'acquirer', bankCode: '936', outbound });
      assert.equal(p.status, 201, JSON.stringify(p.body));
      const t = await postToken(gw.url, { clientKey: p.body.clientKey, clientSecret: p.body.clientSecret });
      return {
        id: p.body.id,
        clientKey: p.body.clientKey,
        clientSecret: p.body.clientSecret,
        partnerId: p.body.clientKey,
        accessToken: t.body.accessToken,
      };
    };
    acquirer = await connect('Fast acquirer', { baseUrl, clientKey: 'k', clientSecret: 's', partnerId: 'P' });
    other = await connect('Other acquirer');
    const m = await gw.createMerchant({ qrisProvider: acquirer.id });
    merchantId = m.id;
    merchant = await authenticate(gw.url, m);
  });
  after(async () => {
    await gw.close();
    acquirerServer.closeAllConnections();
    acquirerServer.close();
  });

  const generate = async (partnerReferenceNo: string, extra: Record<string, unknown> = {}) => {
    const r = await snapCall(gw.url, merchant, `${API}/qr-mpm-generate`, {
      partnerReferenceNo,
      amount: idr('5000.00'),
      ...extra,
    });
    assert.equal(r.status, 200, r.text);
    return r.body as { referenceNo: string; qrContent: string };
  };

  it('sends the X-Request-Id of the merchant’s request with its calls to the acquirer, and with its notification', async () => {
    const traced = (requestId: string) => ({ headers: { 'x-request-id': requestId } });
    const g = await snapCall(
      gw.url,
      merchant,
      `${API}/qr-mpm-generate`,
      { partnerReferenceNo: 'TRACE-GEN', amount: idr('5000.00') },
      traced('trace-gen-7'),
    );
    assert.equal(g.status, 200, g.text);
    const sent = (suffix: string) => calls.filter((c) => c.path.endsWith(suffix)).at(-1);
    assert.equal(sent('/qr-mpm-generate')?.requestId, 'trace-gen-7');
    // 'expired': this acquirer then sends no notify of its own, so the 05 is the merchant's change.
    const r = await snapCall(
      gw.url,
      merchant,
      `${API}/qr-mpm-cancel`,
      { originalPartnerReferenceNo: 'TRACE-GEN', reason: 'expired' },
      traced('trace-cancel-8'),
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(sent('/qr-mpm-cancel')?.requestId, 'trace-cancel-8');
    const [n] = await gw.store.notificationsOf(g.body.referenceNo);
    assert.deepEqual([n?.latestStatus, n?.requestId], ['05', 'trace-cancel-8']);
  });

  it('answers a cancel the acquirer accepted as canceled, even when its notify of 05 got here first', async () => {
    const g = await generate('RACE-CANCEL');
    assert.equal(g.qrContent, `QR-${g.referenceNo}`);
    const r = await snapCall(gw.url, merchant, `${API}/qr-mpm-cancel`, { originalPartnerReferenceNo: 'RACE-CANCEL' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.responseCode, '2007700');
    assert.equal((await gw.store.findTransaction(g.referenceNo))?.status, '05');
  });

  it('records a full refund the acquirer accepted, even when its notify of 04 got here first, and never forwards a refund twice', async () => {
    const g = await generate('RACE-REFUND');
    assert.equal((await notify(g.referenceNo, '00')).status, 200);
    const refund = (partnerRefundNo: string) =>
      snapCall(gw.url, merchant, `${API}/qr-mpm-refund`, {
        originalPartnerReferenceNo: 'RACE-REFUND',
        partnerRefundNo,
        refundAmount: idr('5000.00'),
      });
    const r = await refund('PRF-1');
    assert.equal(r.status, 200, r.text);
    const txn = await gw.store.findTransaction(g.referenceNo);
    assert.deepEqual([txn?.status, txn?.refundedAmount], ['04', '5000.00']);
    assert.ok(await gw.store.findRefund(merchantId, 'PRF-1'));
    // The merchant retries with a new X-EXTERNAL-ID: refused before the acquirer hears of it.
    const forwarded = () => calls.filter((c) => c.path.endsWith('/qr-mpm-refund')).length;
    const before = forwarded();
    const again = await refund('PRF-1');
    assert.deepEqual(again.body, { responseCode: '4097800', responseMessage: 'Conflict' });
    assert.equal(forwarded(), before);
    // The acquirer saw one stable partnerRefundNo for this merchant refund, not our internal number.
    const sent = calls.filter((c) => c.path.endsWith('/qr-mpm-refund')).at(-1)?.body;
    assert.match(sent?.partnerRefundNo, /^SG[0-9a-f]{30}$/);
  });

  it('routes a QRIS to the acquirer that issued it, even after the merchant moved to another', async () => {
    const g = await generate('ROUTED');
    assert.equal((await gw.admin('PATCH', `/merchants/${merchantId}`, { qrisProvider: other.id })).status, 200);
    assert.equal((await notify(g.referenceNo, '00', other)).body.responseCode, '4045201');
    assert.equal((await notify(g.referenceNo, '00')).status, 200);
    assert.equal((await gw.admin('PATCH', `/merchants/${merchantId}`, { qrisProvider: acquirer.id })).status, 200);
  });

  it('answers a retry that comes while the acquirer is still working on its twin with 409 Conflict, then the original', async () => {
    hold.set('generate', () => undefined);
    const externalId = newExternalId();
    const body = { partnerReferenceNo: 'IN-FLIGHT', amount: idr('5000.00') };
    const first = snapCall(gw.url, merchant, `${API}/qr-mpm-generate`, body, { externalId });
    let referenceNo: string | undefined;
    while (!referenceNo) {
      await new Promise((r) => setTimeout(r, 10));
      referenceNo = [...hold.keys()].find((k) => k !== 'generate');
    }
    const twin = await snapCall(gw.url, merchant, `${API}/qr-mpm-generate`, body, { externalId });
    assert.deepEqual(twin.body, { responseCode: '4094700', responseMessage: 'Conflict' });
    hold.get(referenceNo)?.();
    hold.clear();
    const answered = await first;
    assert.equal(answered.status, 200, answered.text);
    const replay = await snapCall(gw.url, merchant, `${API}/qr-mpm-generate`, body, { externalId });
    assert.equal(replay.text, answered.text);
  });

  it('backs reconciliation off when it settles nothing, without holding up other expiries', async () => {
    const stuck = await generate('STUCK', { validityPeriod: new Date(clock.now() + 5_000).toISOString() });
    // A QRIS of another merchant, issued by snapgate itself, due at the same time.
    const plain = await authenticate(gw.url, await gw.createMerchant({ name: 'Plain' }));
    const own = await snapCall(gw.url, plain, `${API}/qr-mpm-generate`, {
      partnerReferenceNo: 'OWN',
      amount: idr('1.00'),
      validityPeriod: new Date(clock.now() + 5_000).toISOString(),
    });
    // The acquirer goes away.
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    assert.equal(
      (
        await gw.admin('PATCH', `/providers/${acquirer.id}`, {
          outbound: { baseUrl: nowhere, clientKey: 'k', clientSecret: 's', partnerId: 'P' },
        })
      ).status,
      200,
    );
    clock.advance(70_000);
    await gw.gateway.expiry.runOnce();
    assert.equal((await gw.store.findTransaction(own.body.referenceNo))?.status, '06');
    const after1 = await gw.store.findTransaction(stuck.referenceNo);
    assert.equal(after1?.status, '01');
    assert.equal(after1?.kind === 'qris' ? after1.details.upstream?.reconcileAttempts : undefined, 1);
    assert.ok((after1?.expiresAt as number) >= clock.now() + 30_000);
    // Not due again yet: nothing is asked.
    assert.equal(await gw.gateway.expiry.runOnce(), 0);
    // The acquirer is back and reports it paid: applied once due.
    const baseUrl = `http://127.0.0.1:${(acquirerServer.address() as AddressInfo).port}`;
    await gw.admin('PATCH', `/providers/${acquirer.id}`, {
      outbound: { baseUrl, clientKey: 'k', clientSecret: 's', partnerId: 'P' },
    });
    queryAnswer = {
      latestTransactionStatus: '00',
      amount: idr('5000.00'),
      additionalInfo: { payerIssuer: 'not-numeric', payerName: 'ANI' },
    };
    clock.advance(31_000);
    await gw.gateway.expiry.runOnce();
    const paid = await gw.store.findTransaction(stuck.referenceNo);
    assert.equal(paid?.status, '00');
    assert.deepEqual(paid?.details.payer, { payerIssuer: '936', payerName: 'ANI', payerRefId: '' });
  });

  it('refuses an outbound base URL with a path, and a webhook call that is not JSON', async () => {
    const r = await gw.admin('POST', '/providers', {
      name: 'Pathy',
      kind: 'acquirer',
      bankCode: '936',
      outbound: { baseUrl: 'https://acq.example/snap', clientKey: 'k', clientSecret: 's', partnerId: 'P' },
    });
    assert.equal(r.status, 400);
    assert.match(r.body.errors.join(), /outbound.baseUrl: must be an origin only/);
    const res = await fetch(`${gw.url}/upstream/${acquirer.id}/webhook/payment-qr-notification`, {
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        'x-timestamp': new Date(clock.now()).toISOString(),
        'x-signature': 'x',
        'x-external-id': '1',
      },
      body: '{}',
    });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), {
      responseCode: '4002601',
      responseMessage: 'Invalid Field Format {Content-Type}',
    });
  });
});

import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startMerchantServer } from '@snapgate/example-merchant-server';
import {
  type CertificationDeps,
  CertificationRefused,
  type CertificationReport,
  certifyMerchant,
  formatJunit,
  formatText,
} from '../../src/certification/index.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

type Merchant = Awaited<ReturnType<typeof startMerchantServer>>;

const MUST_REFUSE = [
  'wrong-signature',
  'signature-of-another-body',
  'another-merchants-secret',
  'stale-timestamp',
  'another-partner-id',
  'missing-signature',
];
const MUST_ACK = [
  'qris-pending',
  'qris-paid',
  'qris-failed',
  'va-paid',
  'duplicate',
  'unknown-fields',
  'php-escapes',
  'charset',
];

async function depsOf(gw: TestGateway, mode: 'sandbox' | 'production' = 'sandbox'): Promise<CertificationDeps> {
  const pem = await gw.store.getSetting('callback_rsa_private_pem');
  assert.ok(pem);
  return {
    mode,
    store: gw.store,
    clock: gw.clock,
    changer: gw.gateway.changer,
    callbackTimeoutMs: 5000,
    gatewayPrivateKey: createPrivateKey(pem),
    qris: gw.gateway.qris,
    va: gw.gateway.va,
  };
}

/** A receiver that answers every POST the same way, and keeps what it got. */
async function startFixedReceiver(status: number, body: unknown) {
  const received: Array<{ path: string; headers: Record<string, unknown>; body: string }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const byId = (report: CertificationReport) => new Map(report.results.map((r) => [r.id, r]));

describe('webhook certification: the example merchant server', () => {
  let gw: TestGateway;
  let merchant: Merchant;
  let merchantId: string;
  const orders: Record<string, { id: string; referenceNo?: string; virtualAccountNo?: string }> = {};

  before(async () => {
    gw = await startGateway({ dispatch: false });
    const m = await gw.createMerchant({ name: 'Toko Certified' });
    merchantId = m.id;
    merchant = await startMerchantServer({
      port: 0,
      gatewayUrl: gw.url,
      clientKey: m.clientKey,
      clientSecret: m.clientSecret,
      partnerId: m.partnerId,
      dbFile: ':memory:',
      log: () => undefined,
    });
    const patched = await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: merchant.url });
    assert.equal(patched.status, 200);
  });
  after(async () => {
    await merchant?.close();
    await gw?.close();
  });

  const order = async (method: 'qris' | 'va') => {
    const r = await fetch(`${merchant.url}/orders`, {
      method: 'POST',
      body: JSON.stringify({ amount: '15000.00', method }),
    });
    assert.equal(r.status, 201);
    return (await r.json()) as { id: string; referenceNo?: string; virtualAccountNo?: string };
  };

  it('refuses to run without unpaid transactions, naming what is missing', async () => {
    await assert.rejects(
      certifyMerchant(await depsOf(gw), { merchantId }),
      (e: unknown) =>
        e instanceof CertificationRefused &&
        e.problem === 'no-transactions' &&
        /2 unpaid QRIS and an unpaid VA/.test(e.message),
    );
  });

  it('passes every scenario, and the transactions and orders end as the gateway has them', async () => {
    orders.first = await order('qris');
    orders.second = await order('qris');
    orders.va = await order('va');

    const report = await certifyMerchant(await depsOf(gw), { merchantId });
    assert.equal(report.ok, true, formatText(report));
    assert.equal(report.suite, 'webhook-certification');
    const results = byId(report);
    for (const id of [...MUST_ACK, ...MUST_REFUSE]) assert.equal(results.get(id)?.passed, true, id);
    assert.equal(results.has('another-key'), false, 'only for rsa-sha256 merchants');
    for (const r of report.results) {
      assert.ok(r.request?.headers['x-external-id'] !== undefined || r.id === 'missing-signature');
      assert.ok(r.response);
      assert.ok(r.durationMs < 5000);
    }
    // PHP bytes: escaped slash and non-ASCII.
    const php = results.get('php-escapes')?.request?.body ?? '';
    assert.match(php, /\\\//);
    assert.match(php, /\\u00e9/);
    assert.equal(results.get('charset')?.request?.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(results.get('missing-signature')?.request?.headers['x-signature'], undefined);
    assert.equal(
      results.get('duplicate')?.request?.headers['x-external-id'],
      results.get('qris-paid')?.request?.headers['x-external-id'],
    );

    // Newest first: the second QRIS is paid, the first fails.
    const status = async (ref: string) => (await gw.store.findTransaction(ref))?.status;
    assert.equal(await status(orders.second?.referenceNo ?? ''), '00');
    assert.equal(await status(orders.first?.referenceNo ?? ''), '06');
    const va = await gw.store.findTransactionByVirtualAccountNo(orders.va?.virtualAccountNo ?? '');
    assert.equal(va?.status, '00');
    assert.deepEqual(
      report.transactions.map((t) => [t.role, t.status]),
      [
        ['qris-paid', '00'],
        ['qris-failed', '06'],
        ['va-paid', '00'],
      ],
    );
    assert.equal(merchant.orders.find(orders.second?.id ?? '')?.status, 'PAID');
    assert.equal(merchant.orders.find(orders.first?.id ?? '')?.status, 'FAILED');
    assert.equal(merchant.orders.find(orders.va?.id ?? '')?.status, 'PAID');

    // Every status the gateway has was notified for real (the outbox holds the same notifications).
    const paidNotes = await gw.store.notificationsOf(orders.second?.referenceNo ?? '');
    assert.deepEqual(
      paidNotes.map((n) => n.latestStatus),
      ['03', '00'],
    );

    // Stored, and the report formats as JUnit.
    const stored = await gw.store.findCertification(report.id);
    assert.equal(stored?.passed, true);
    assert.equal((await gw.store.listCertifications(merchantId, 'webhook-certification'))[0]?.id, report.id);
    assert.match(formatJunit(report), /<testsuites name="webhook-certification" tests="14" failures="0"/);
  });

  it('names unknown or paid transactions instead of certifying with them', async () => {
    await assert.rejects(
      certifyMerchant(await depsOf(gw), {
        merchantId,
        qris: [orders.first?.referenceNo ?? '', orders.second?.referenceNo ?? ''],
        va: orders.va?.virtualAccountNo,
      }),
      (e: unknown) =>
        e instanceof CertificationRefused && e.problem === 'bad-transaction' && /not unpaid/.test(e.message),
    );
  });

  it('creates its own transactions with create: true', async () => {
    const report = await certifyMerchant(await depsOf(gw), { merchantId, create: true });
    // The example merchant refuses notifications of orders it does not know: true ones fail.
    const results = byId(report);
    assert.equal(results.get('qris-paid')?.passed, false);
    assert.match(results.get('qris-paid')?.reason ?? '', /refused a true, correctly signed notification/);
    for (const id of MUST_REFUSE) assert.equal(results.get(id)?.passed, true, id);
    assert.deepEqual(
      report.transactions.map((t) => t.status),
      ['00', '06', '00'],
    );
  });

  it('is refused in production mode', async () => {
    await assert.rejects(
      certifyMerchant(await depsOf(gw, 'production'), { merchantId, create: true }),
      (e: unknown) => e instanceof CertificationRefused && e.problem === 'production',
    );
  });
});

describe('webhook certification: receivers that fail it', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ dispatch: false });
  });
  after(async () => {
    await gw?.close();
  });

  it('a naive receiver that acknowledges everything fails every must-refuse scenario, in plain words', async () => {
    const naive = await startFixedReceiver(200, { responseCode: '2002600', responseMessage: 'Successful' });
    try {
      const m = await gw.createMerchant({ name: 'Naive', callbackBaseUrl: naive.url, callbackSignature: 'rsa-sha256' });
      const report = await certifyMerchant(await depsOf(gw), { merchantId: m.id, create: true });
      assert.equal(report.ok, false);
      const results = byId(report);
      for (const id of MUST_ACK) assert.equal(results.get(id)?.passed, true, id);
      for (const id of [...MUST_REFUSE, 'another-key']) {
        const r = results.get(id);
        assert.equal(r?.passed, false, id);
        assert.equal(r?.kind, 'negative');
        assert.match(r?.reason ?? '', /^your endpoint accepted /);
      }
      assert.equal(
        results.get('wrong-signature')?.reason,
        'your endpoint accepted a callback with a forged signature: anyone can mark your orders paid',
      );
      assert.match(formatText(report), /FAIL {2}security {2}wrong-signature/);
      // The forged ones claim the failed QRIS was paid; the gateway still has it failed.
      const failed = report.transactions.find((t) => t.role === 'qris-failed');
      assert.equal((await gw.store.findTransaction(failed?.referenceNo ?? ''))?.status, '06');
      assert.equal(report.failed, 7);
      assert.ok(naive.received.length >= 15);
    } finally {
      await naive.close();
    }
  });

  it('counts acknowledgements by the merchant’s callbackAck: a naive any-200 receiver answering 2002700 still fails every must-refuse scenario', async () => {
    const naive = await startFixedReceiver(200, { responseCode: 2002700, responseMessage: 'success' });
    try {
      const m = await gw.createMerchant({
        name: 'Naive DOKU-style',
        callbackBaseUrl: naive.url,
        callbackSignature: 'rsa-sha256',
        callbackAck: 'any-200',
      });
      const report = await certifyMerchant(await depsOf(gw), { merchantId: m.id, create: true });
      const results = byId(report);
      for (const id of MUST_ACK) assert.equal(results.get(id)?.passed, true, id);
      for (const id of MUST_REFUSE) assert.equal(results.get(id)?.passed, false, id);
      assert.equal(report.ok, false);
    } finally {
      await naive.close();
    }
  });

  it('a strict receiver that refuses a repeated X-EXTERNAL-ID fails exactly the duplicate scenario', async () => {
    const { verifyCallback, ACKNOWLEDGEMENT } = await import('@snapgate/merchant-sdk');
    let secret = '';
    let partnerId = '';
    const seen = new Set<string>();
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = (status: number, body: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        try {
          verifyCallback(
            { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks) },
            { clientSecret: secret, partnerId },
          );
        } catch (e) {
          return answer(401, (e as { toBody(): unknown }).toBody());
        }
        const id = String(req.headers['x-external-id']);
        // Too strict: a repeat is the network's doing and must be acknowledged, not refused.
        if (seen.has(id)) return answer(409, { responseCode: '4092600', responseMessage: 'Conflict' });
        seen.add(id);
        return answer(200, ACKNOWLEDGEMENT);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const m = await gw.createMerchant({ name: 'Strict', callbackBaseUrl: url });
      secret = m.clientSecret;
      partnerId = m.partnerId;
      const report = await certifyMerchant(await depsOf(gw), { merchantId: m.id, create: true });
      const failed = report.results.filter((r) => !r.passed).map((r) => r.id);
      assert.deepEqual(failed, ['duplicate']);
      assert.match(byId(report).get('duplicate')?.reason ?? '', /HTTP 409/);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('a receiver that refuses everything fails every must-acknowledge scenario', async () => {
    const refusing = await startFixedReceiver(401, { responseCode: '4012600', responseMessage: 'Unauthorized' });
    try {
      const m = await gw.createMerchant({ name: 'Refusing', callbackBaseUrl: refusing.url });
      const report = await certifyMerchant(await depsOf(gw), { merchantId: m.id, create: true });
      const results = byId(report);
      for (const id of MUST_ACK) {
        const r = results.get(id);
        assert.equal(r?.passed, false, id);
        assert.match(r?.reason ?? '', /HTTP 401, responseCode 4012600/);
      }
      for (const id of MUST_REFUSE) assert.equal(results.get(id)?.passed, true, id);
      assert.equal(report.failed, MUST_ACK.length);
    } finally {
      await refusing.close();
    }
  });
});

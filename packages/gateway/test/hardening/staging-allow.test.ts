// docs/operations.md#staging-rehearsals: in production mode one address guard holds every outbound
// URL (callbacks, their token URLs, acquirers); SNAPGATE_STAGING_ALLOW lets a staging host through,
// SNAPGATE_CA_FILE makes its private certificate trusted. A real https receiver on 127.0.0.1.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAddressGuard, parseStagingAllow } from '../../src/address-guard.ts';
import { loadConfig } from '../../src/config.ts';
import { runCliWithEnv } from '../helpers/cli.ts';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/receiver.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';
import { makeSelfSignedCert } from '../helpers/tls.ts';

/** A certificate for 127.0.0.1 signed by itself: the staging receiver's private CA. */
function makeCert(dir: string): { cert: string; key: string; certFile: string } {
  makeSelfSignedCert(dir, 'staging.receiver', 'IP:127.0.0.1,DNS:localhost');
  return {
    cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    key: readFileSync(join(dir, 'key.pem'), 'utf8'),
    certFile: join(dir, 'cert.pem'),
  };
}

describe('SNAPGATE_STAGING_ALLOW and SNAPGATE_CA_FILE: a staging rehearsal in production mode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-staging-'));
  let tls: ReturnType<typeof makeCert>;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];
  before(async () => {
    tls = makeCert(dir);
    receiver = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        received.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"responseCode":"2002600"}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(async () => {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('without an allowance, refuses a private callback URL and a private acquirer URL alike', async () => {
    const gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    try {
      const m = await gw.admin('POST', '/merchants', { name: 'Staging', callbackBaseUrl: receiverUrl });
      assert.equal(m.status, 400);
      assert.match(JSON.stringify(m.body), /callbackBaseUrl: must not point at a loopback, private/);
      const p = await gw.admin('POST', '/providers', {
        kind: 'acquirer',
        name: 'Staging acquirer',
        bankCode: '501',
        outbound: { baseUrl: 'https://127.0.0.1:9443', clientKey: 'ck', clientSecret: 's', partnerId: 'p' },
      });
      assert.equal(p.status, 400, JSON.stringify(p.body));
      assert.match(JSON.stringify(p.body), /outbound\.baseUrl: must not point at a loopback, private/);
      const ready = await (await fetch(`${gw.url}/readyz`)).json();
      assert.equal('stagingAllow' in (ready as object), false);
    } finally {
      await gw.close();
    }
  });

  it('with 127.0.0.1 allowed and its CA trusted, delivers a callback to the https receiver and says so', async () => {
    const gw = await startGateway({
      env: { SNAPGATE_MODE: 'production', SNAPGATE_STAGING_ALLOW: '127.0.0.1', SNAPGATE_CA_FILE: tls.certFile },
      dispatch: true,
    });
    try {
      const created = await gw.admin('POST', '/merchants', { name: 'Staging', callbackBaseUrl: receiverUrl });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const acquirer = await gw.admin('POST', '/providers', {
        kind: 'acquirer',
        name: 'Staging acquirer',
        bankCode: '501',
        outbound: { baseUrl: 'https://127.0.0.1:9443', clientKey: 'ck', clientSecret: 's', partnerId: 'p' },
      });
      assert.equal(acquirer.status, 201, JSON.stringify(acquirer.body));
      const ready = (await (await fetch(`${gw.url}/readyz`)).json()) as { stagingAllow?: string[] };
      assert.deepEqual(ready.stagingAllow, ['127.0.0.1']);
      // A real payment flow: a VA paid by a real bank client, the callback over TLS to the receiver.
      const m = created.body as { id: string; clientKey: string; clientSecret: string; partnerId: string };
      const caller = await authenticate(gw.url, m);
      const bank = await gw.admin('POST', '/providers', { kind: 'bank', name: 'Staging bank', bankCode: '014' });
      assert.equal(bank.status, 201, JSON.stringify(bank.body));
      const va = await snapCall(gw.url, caller, '/api/snap/v1.0/transfer-va/create-va', {
        virtualAccountName: 'Budi',
        trxId: 'STAGING-1',
        totalAmount: { value: '10000.00', currency: 'IDR' },
        additionalInfo: { bankCode: '014' },
      });
      assert.equal(va.status, 200, va.text);
      const vaNo = va.body.virtualAccountData.virtualAccountNo as string;
      const numbers = va.body.virtualAccountData as Record<string, string>;
      const b = bank.body as { clientKey: string; clientSecret: string };
      // A provider's X-PARTNER-ID is its client key.
      const bankCaller = await authenticate(gw.url, { ...b, partnerId: b.clientKey });
      const paid = await snapCall(gw.url, bankCaller, '/api/snap/v1.0/transfer-va/payment', {
        partnerServiceId: numbers.partnerServiceId,
        customerNo: numbers.customerNo,
        virtualAccountNo: vaNo,
        paymentRequestId: 'STAGING-PAY-1',
        paidAmount: { value: '10000.00', currency: 'IDR' },
      });
      assert.equal(paid.status, 200, paid.text);
      const txn = await gw.store.findTransactionByVirtualAccountNo(vaNo);
      await waitFor('the callback delivered over TLS', async () => {
        const list = await gw.admin('GET', `/notifications?referenceNo=${txn?.referenceNo}&state=delivered`);
        return list.body.items.length === 1;
      });
      assert.ok(received.some((b) => b.includes(txn?.referenceNo as string)));
      // Link-local and metadata addresses stay refused, allowance or not.
      const meta = await gw.admin('PATCH', `/merchants/${m.id}`, { callbackBaseUrl: 'https://169.254.169.254/x' });
      assert.equal(meta.status, 400);
    } finally {
      await gw.close();
    }
  });

  it('the CLI trusts a gateway’s private certificate with --ca-file (or SNAPGATE_CA_FILE), and only then', async () => {
    const gw = await startGateway({
      env: { SNAPGATE_TLS_CERT_FILE: tls.certFile, SNAPGATE_TLS_KEY_FILE: join(dir, 'key.pem') },
    });
    try {
      assert.match(gw.url, /^https:/);
      const env = { SNAPGATE_URL: gw.url, SNAPGATE_ADMIN_TOKEN: ADMIN_TOKEN };
      const refused = await runCliWithEnv(env, 'merchant', 'list');
      assert.equal(refused.code, 1);
      assert.match(refused.err, /cannot reach the gateway/);
      const trusted = await runCliWithEnv(env, '--ca-file', tls.certFile, 'merchant', 'list');
      assert.equal(trusted.code, 0, trusted.err);
      const byEnv = await runCliWithEnv({ ...env, SNAPGATE_CA_FILE: tls.certFile }, 'merchant', 'list');
      assert.equal(byEnv.code, 0, byEnv.err);
      const missing = await runCliWithEnv(env, '--ca-file', join(dir, 'missing.pem'), 'merchant', 'list');
      assert.equal(missing.code, 2);
      assert.match(missing.err, /cannot read the CA file/);
    } finally {
      await gw.close();
    }
  });

  it('parses the allowance, and refuses what it cannot be (naming the variable)', () => {
    const a = parseStagingAllow(' receiver.staging.example, 10.20.0.0/16 ,127.0.0.1, [::1] ');
    assert.deepEqual(a.hosts, ['receiver.staging.example']);
    assert.deepEqual(a.text, ['receiver.staging.example', '10.20.0.0/16', '127.0.0.1', '[::1]']);
    const guard = createAddressGuard(true, a);
    assert.equal(guard.hostProblem('10.20.3.4'), undefined);
    assert.match(guard.hostProblem('10.21.3.4') ?? '', /loopback, private/);
    assert.equal(
      guard.allowsAddress('receiver.staging.example', '192.168.1.9'),
      true,
      'an allowed name, any private address',
    );
    assert.equal(guard.allowsAddress('other.example', '192.168.1.9'), false);
    assert.equal(guard.allowsAddress('receiver.staging.example', '169.254.169.254'), false, 'never metadata');
    for (const bad of [
      '169.254.0.0/16',
      '0.0.0.0/0',
      '10.0.0.0/33',
      'not a host!',
      'metadata.google.internal',
      'fe80::/10',
    ]) {
      assert.throws(() => loadConfig({ SNAPGATE_STAGING_ALLOW: bad }), /SNAPGATE_STAGING_ALLOW: /, bad);
    }
  });

  it('refuses a CA file it cannot read or that holds no certificate, at start', async () => {
    writeFileSync(join(dir, 'not-a-ca.pem'), 'hello');
    await assert.rejects(
      startGateway({ env: { SNAPGATE_CA_FILE: join(dir, 'missing.pem') } }),
      /cannot read SNAPGATE_CA_FILE/,
    );
    await assert.rejects(
      startGateway({ env: { SNAPGATE_CA_FILE: join(dir, 'not-a-ca.pem') } }),
      /holds no PEM certificate/,
    );
  });
});

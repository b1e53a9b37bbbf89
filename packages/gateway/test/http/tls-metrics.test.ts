// TLS served directly (1.2 minimum, 1.3 offered, the certificate reloaded on SIGHUP), /metrics kept
// off the public port or behind a key, and whose X-Forwarded-For is believed.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';
import { type GatewayProcess, spawnGateway } from '../helpers/process.ts';
import { closedPort } from '../helpers/receiver.ts';
import { makeSelfSignedCert } from '../helpers/tls.ts';

const MASTER = Buffer.alloc(32, 3).toString('base64');

const makeCert = (dir: string, name: string) => makeSelfSignedCert(dir, name);

/** A TLS handshake with the gateway: the protocol and the certificate's subject, or the error. */
function handshake(port: number, o: { minVersion?: 'TLSv1.1'; maxVersion?: 'TLSv1.1' | 'TLSv1.2' } = {}) {
  return new Promise<{ protocol: string | null; cn: string } | { error: string }>((resolve) => {
    const s = connect(
      { port, host: '127.0.0.1', rejectUnauthorized: false, ciphers: 'DEFAULT@SECLEVEL=0', ...o },
      () => {
        const cn = String(s.getPeerCertificate().subject?.CN ?? '');
        resolve({ protocol: s.getProtocol(), cn });
        s.end();
      },
    );
    s.on('error', (e) => resolve({ error: e.message }));
  });
}

describe('HTTPS, metrics and proxies', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-tls-'));
  const running: GatewayProcess[] = [];
  after(() => {
    for (const g of running) g.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves TLS 1.3, refuses TLS 1.1, and takes a renewed certificate on SIGHUP', async () => {
    makeCert(dir, 'first.example');
    const g = await spawnGateway({
      SNAPGATE_DB: join(dir, 'gw.db'),
      SNAPGATE_MASTER_KEY: MASTER,
      SNAPGATE_TLS_CERT_FILE: join(dir, 'cert.pem'),
      SNAPGATE_TLS_KEY_FILE: join(dir, 'key.pem'),
    });
    running.push(g);
    assert.match(g.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(g.url).port);
    assert.deepEqual(await handshake(port), { protocol: 'TLSv1.3', cn: 'first.example' });
    assert.deepEqual(await handshake(port, { maxVersion: 'TLSv1.2' }), { protocol: 'TLSv1.2', cn: 'first.example' });
    const old = await handshake(port, { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1' });
    assert.ok('error' in old, 'TLS 1.1 is refused');
    const health = await new Promise<number>((resolve, reject) => {
      httpsRequest(`${g.url}/healthz`, { rejectUnauthorized: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(health, 200);

    makeCert(dir, 'renewed.example');
    g.child.kill('SIGHUP');
    const deadline = Date.now() + 5_000;
    let seen = '';
    while (Date.now() < deadline) {
      const r = await handshake(port);
      seen = 'cn' in r ? r.cn : r.error;
      if (seen === 'renewed.example') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(seen, 'renewed.example');
    assert.equal(g.child.exitCode, null, 'still running');
  });

  it('refuses half a TLS configuration', async () => {
    await assert.rejects(
      spawnGateway({ SNAPGATE_DB: join(dir, 'half.db'), SNAPGATE_TLS_CERT_FILE: join(dir, 'cert.pem') }),
      /set both to serve HTTPS, or neither/,
    );
  });

  it('serves /metrics on its own port when SNAPGATE_METRICS_PORT is set, and not on the public one', async () => {
    const metricsPort = await closedPort();
    const g = await spawnGateway({
      SNAPGATE_DB: join(dir, 'metrics.db'),
      SNAPGATE_MASTER_KEY: MASTER,
      SNAPGATE_METRICS_PORT: String(metricsPort),
    });
    running.push(g);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(own.status, 200);
    assert.match(await own.text(), /# TYPE /);
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/healthz`)).status, 404);
    assert.equal((await fetch(`${g.url}/metrics`)).status, 404);
  });

  it('wants an admin key for /metrics on the public port in production mode', async () => {
    const gw = await startGateway({ env: { SNAPGATE_MODE: 'production' } });
    try {
      assert.equal((await fetch(`${gw.url}/metrics`)).status, 401);
      const reader = await gw.admin('POST', '/admin-keys', { name: 'prometheus', scope: 'read' });
      const r = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${reader.body.key}` } });
      assert.equal(r.status, 200);
    } finally {
      await gw.close();
    }
    const sandbox = await startGateway();
    try {
      assert.equal((await fetch(`${sandbox.url}/metrics`)).status, 200, 'open in sandbox mode');
    } finally {
      await sandbox.close();
    }
  });

  it('believes X-Forwarded-For only from the proxies SNAPGATE_TRUST_PROXY names', async () => {
    for (const [trust, expected] of [
      [undefined, '127.0.0.1'],
      ['127.0.0.1', '203.0.113.9'],
      ['1', '203.0.113.9'],
    ] as const) {
      const gw = await startGateway({ env: trust ? { SNAPGATE_TRUST_PROXY: trust } : {} });
      try {
        const r = await fetch(`${gw.url}/admin/v1/merchants`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'content-type': 'application/json',
            'x-forwarded-for': '203.0.113.9',
          },
          body: JSON.stringify({ name: 'Proxied' }),
        });
        assert.equal(r.status, 201);
        const log = await gw.admin('GET', '/audit?limit=1');
        assert.equal(log.body.items[0].address, expected, `SNAPGATE_TRUST_PROXY=${trust}`);
      } finally {
        await gw.close();
      }
    }
  });
});

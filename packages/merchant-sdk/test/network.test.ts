import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { SnapNetworkError } from '../src/errors.ts';
import { createSnapClient } from '../src/snap-client.ts';
import { createTokenClient } from '../src/token-client.ts';

/** A port that refuses connections: bound, then closed. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('no answer from the gateway: the SDK throws SnapNetworkError, never a bare fetch error', () => {
  const servers: Server[] = [];
  after(() => {
    for (const s of servers) s.closeAllConnections();
    for (const s of servers) s.close();
  });

  it('a refused connection, for a token and for a payment call (after its retries)', async () => {
    const baseUrl = `http://127.0.0.1:${await closedPort()}`;
    const tokens = createTokenClient({ baseUrl, clientKey: 'k', clientSecret: 's' });
    await assert.rejects(tokens.getToken(), (e: unknown) => {
      assert.ok(e instanceof SnapNetworkError, String(e));
      assert.equal(e.code, 'ECONNREFUSED');
      assert.equal(e.timedOut, false);
      assert.equal(e.method, 'POST');
      assert.equal(e.url, `${baseUrl}/api/snap/v1.0/access-token/b2b`);
      assert.equal(e.name, 'SnapNetworkError');
      return true;
    });
    const snap = createSnapClient({
      baseUrl,
      partnerId: 'p',
      clientSecret: 's',
      tokenClient: { getToken: async () => 'tok', invalidate: () => undefined },
      retries: 1,
      retryDelayMs: 1,
    });
    await assert.rejects(snap.queryQris({ originalReferenceNo: 'R' }), {
      name: 'SnapNetworkError',
      code: 'ECONNREFUSED',
    });
  });

  it('an answer that does not arrive within timeoutMs', async () => {
    const hung = createServer(() => undefined);
    servers.push(hung);
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    const tokens = createTokenClient({ baseUrl, clientKey: 'k', clientSecret: 's', timeoutMs: 200 });
    await assert.rejects(tokens.getToken(), (e: unknown) => {
      assert.ok(e instanceof SnapNetworkError, String(e));
      assert.equal(e.timedOut, true);
      assert.equal(e.code, undefined);
      assert.match(e.message, /no answer in time$/);
      return true;
    });
  });

  it('a connection reset in the middle of the answer', async () => {
    const cut = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"responseCode":"20071');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    servers.push(cut);
    await new Promise<void>((resolve) => cut.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(cut.address() as AddressInfo).port}`;
    const tokens = createTokenClient({ baseUrl, clientKey: 'k', clientSecret: 's' });
    await assert.rejects(tokens.getToken(), { name: 'SnapNetworkError', timedOut: false });
  });
});

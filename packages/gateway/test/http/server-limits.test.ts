// Review finding: 1,100 idle sockets from one unauthenticated client exhausted file descriptors,
// and idle or half-sent requests were held about 60 s. Deadlines must bite, connections are capped.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';

const LIMITS = {
  SNAPGATE_HEADERS_TIMEOUT_MS: '600',
  SNAPGATE_REQUEST_TIMEOUT_MS: '1200',
  SNAPGATE_KEEP_ALIVE_TIMEOUT_MS: '500',
  SNAPGATE_MAX_CONNECTIONS: '12',
  SNAPGATE_MAX_CONNECTIONS_PER_ADDRESS: '6',
};

/** A raw TCP connection to the gateway, from `localAddress` (any 127.x address is loopback). */
function open(url: string, localAddress = '127.0.0.1'): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect({ port: Number(port), host: hostname, localAddress }, () => resolve(s));
    s.on('error', reject);
  });
}

/** Milliseconds until the server closes the socket (or `undefined` past `withinMs`). */
function closedWithin(socket: Socket, withinMs: number): Promise<number | undefined> {
  const started = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), withinMs);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
    socket.resume();
  });
}

describe('HTTP server limits', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: LIMITS });
  });
  after(() => gw.close());

  it('closes a connection that sends nothing once the headers deadline passes', async () => {
    const s = await open(gw.url);
    assert.notEqual(await closedWithin(s, 5_000), undefined, 'closed, not held for a minute');
  });

  it('closes a slowloris that drips its headers', async () => {
    const s = await open(gw.url);
    s.write('POST /api/snap/v1.0/qr/qr-mpm-query HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => s.writable && s.write('X-A: b\r\n'), 100);
    const closed = await closedWithin(s, 5_000);
    clearInterval(drip);
    assert.notEqual(closed, undefined);
  });

  it('closes a request whose body never completes', async () => {
    const s = await open(gw.url);
    s.write(
      'POST /api/snap/v1.0/access-token/b2b HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"gr',
    );
    assert.notEqual(await closedWithin(s, 5_000), undefined);
  });

  it('closes an idle keep-alive connection after its timeout', async () => {
    const s = await open(gw.url);
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    let answered = '';
    s.on('data', (c) => {
      answered += c;
    });
    assert.notEqual(await closedWithin(s, 5_000), undefined);
    assert.match(answered, /^HTTP\/1\.1 200/);
  });

  it('caps connections per client address and in all, and serves again once they close', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 6; i++) held.push(await open(gw.url));
    const seventh = await closedWithin(await open(gw.url), 2_000);
    assert.ok(seventh !== undefined && seventh < 2_000, 'the 7th from one address is closed at once');
    for (let i = 0; i < 6; i++) held.push(await open(gw.url, '127.0.0.2'));
    const thirteenth = await closedWithin(await open(gw.url, '127.0.0.3'), 2_000);
    assert.ok(thirteenth !== undefined && thirteenth < 2_000, 'the 13th in all is closed at once');
    for (const s of held) s.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const r = await fetch(`${gw.url}/healthz`);
    assert.equal(r.status, 200);
  });
});

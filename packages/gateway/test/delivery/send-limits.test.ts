// A merchant's answer is read up to 64 KiB, never to the end: past it the gateway stops reading and
// closes the connection (review finding: one hostile merchant made the gateway read 12.6 GiB).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Pool } from 'undici';
import { createAddressGuard } from '../../src/address-guard.ts';
import { createSender, exchange } from '../../src/delivery/send.ts';
import { waitFor } from '../helpers/receiver.ts';
import { watchTimers } from '../helpers/timers.ts';

async function listen(server: Server): Promise<URL> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/payment-qr-notification`);
}

describe('reading a merchant’s answer', () => {
  const sender = createSender({ timeoutMs: 10_000, outbound: { guard: createAddressGuard(false) } });
  const servers: Server[] = [];
  after(async () => {
    await sender.close();
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('stops at 64 KiB of an endless answer and closes the connection, long before the timeout', async () => {
    let written = 0;
    let closed = false;
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const pump = () => {
        while (!closed && res.write(chunk)) written += chunk.length;
        if (!closed) res.once('drain', pump);
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    servers.push(endless);
    const url = await listen(endless);
    const started = Date.now();
    const r = await sender.post(url, { 'content-type': 'application/json' }, '{}');
    assert.equal(r.outcome, 'rejected');
    assert.equal(r.status, 200);
    assert.match(r.error ?? '', /answer over 65536 bytes \(not read further\)/);
    assert.ok(Date.now() - started < 5_000, 'judged without waiting for the timeout');
    const deadline = Date.now() + 5_000;
    while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(closed, 'the connection was closed');
    const at = written;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(written, at, 'nothing more is read');
    assert.ok(written < 16 * 1024 * 1024, `the merchant could push only socket buffers' worth (${written} bytes)`);
  });

  it('does not read an answer that declares more than 64 KiB', async () => {
    let bodyRequested = false;
    const big = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{"responseCode":"2002600"', () => {
        bodyRequested = true;
      });
    });
    servers.push(big);
    const r = await sender.post(await listen(big), { 'content-type': 'application/json' }, '{}');
    assert.equal(r.outcome, 'rejected');
    assert.match(r.error ?? '', /answer over 65536 bytes/);
    assert.ok(bodyRequested);
  });

  it('still acknowledges a normal answer', async () => {
    const ok = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"responseCode":"2002600","responseMessage":"Success"}');
    });
    servers.push(ok);
    const url = await listen(ok);
    for (let i = 0; i < 3; i++) {
      const r = await sender.post(url, { 'content-type': 'application/json' }, '{}');
      assert.equal(r.outcome, 'acknowledged');
    }
  });

  it('leaves no timeout timer running once the answer is read', async () => {
    const timeoutMs = 37_123;
    const timers = watchTimers(timeoutMs);
    const own = createSender({ timeoutMs, outbound: { guard: createAddressGuard(false) } });
    try {
      const ok = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"responseCode":"2002600","responseMessage":"Success"}');
      });
      servers.push(ok);
      const url = await listen(ok);
      for (let i = 0; i < 3; i++) {
        assert.equal((await own.post(url, { 'content-type': 'application/json' }, '{}')).outcome, 'acknowledged');
      }
      await waitFor('every timeout timer cleared', () => timers.live() === 0, 2_000);
    } finally {
      timers.stop();
      await own.close();
    }
  });
});

describe('one bound on the whole exchange', () => {
  const timeoutMs = 300;
  const servers: Server[] = [];
  const senders: Array<ReturnType<typeof createSender>> = [];
  const senderOf = (connections?: number, ms = timeoutMs) => {
    const s = createSender({ timeoutMs: ms, outbound: { guard: createAddressGuard(false) }, connections });
    senders.push(s);
    return s;
  };
  after(async () => {
    for (const s of senders) await s.close();
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });
  const serve = (handler: Parameters<typeof createServer>[1]) => {
    const server = createServer(handler);
    servers.push(server);
    return listen(server);
  };

  it('gives up on a merchant that never answers: an error, retryable', async () => {
    const url = await serve(() => undefined);
    const r = await senderOf().post(url, { 'content-type': 'application/json' }, '{}');
    assert.equal(r.outcome, 'error');
    assert.equal(r.status, null);
    assert.equal(r.error, `timeout after ${timeoutMs} ms`);
  });

  it('gives up on an answer whose body never ends', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"responseCode":"2002600"');
    });
    const r = await senderOf().post(url, { 'content-type': 'application/json' }, '{}');
    assert.equal(r.outcome, 'error');
    assert.equal(r.error, `timeout after ${timeoutMs} ms`);
  });

  it('never sends a callback whose time ran out while it waited for a connection', async () => {
    // One connection, held by a first exchange with a long bound until the second's short one has
    // run out; then the first is answered and the connection is free for the second.
    const seen: string[] = [];
    let answerFirst: (() => void) | undefined;
    const url = await serve((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push(body);
        const answer = () => res.end('{"responseCode":"2002600"}');
        if (body === '{"n":1}') answerFirst = answer;
        else answer();
      });
    });
    const pool = new Pool(url.origin, { connections: 1 });
    try {
      const headers = { 'content-type': 'application/json' };
      const first = exchange(pool, url.pathname, headers, '{"n":1}', 10_000);
      await waitFor('the first callback holds the connection', () => answerFirst !== undefined, 5_000);
      const second = await exchange(pool, url.pathname, headers, '{"n":2}', timeoutMs);
      assert.deepEqual(second, { error: `timeout after ${timeoutMs} ms` });
      answerFirst?.();
      const r = await first;
      assert.ok('status' in r && r.status === 200);
    } finally {
      // Closing waits for what the pool still has queued: a second callback wrongly sent is seen.
      await pool.close();
    }
    assert.deepEqual(seen, ['{"n":1}']);
  });

  it('names a refused connection', async () => {
    // Port 1 (tcpmux) has no listener here; a port just closed could be taken by another test.
    const url = new URL('http://127.0.0.1:1/webhook/payment-qr-notification');
    const r = await senderOf(undefined, 10_000).post(url, { 'content-type': 'application/json' }, '{}');
    assert.equal(r.outcome, 'error');
    assert.match(r.error ?? '', /ECONNREFUSED/);
  });

  it('reads Retry-After and the answer of a refusal', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '120' });
      res.end('{"responseCode":"5032600","responseMessage":"Busy"}');
    });
    const r = await senderOf(undefined, 10_000).post(url, { 'content-type': 'application/json' }, '{}');
    assert.equal(r.outcome, 'rejected');
    assert.equal(r.status, 503);
    assert.equal(r.retryAfter, '120');
    assert.equal(r.responseBody, '{"responseCode":"5032600","responseMessage":"Busy"}');
    assert.equal(r.error, 'not acknowledged: HTTP 503');
  });
});

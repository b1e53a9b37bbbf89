import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Behaviour = (req: Received, res: ServerResponse, n: number) => unknown;

export const ACK = '{"responseCode":"2002600","responseMessage":"Success"}';
export const ack: Behaviour = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(ACK);
};

/** A real merchant server on 127.0.0.1 that records every callback and answers as told. */
export async function startReceiver(behaviour: Behaviour = ack) {
  const received: Received[] = [];
  let current = behaviour;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      void Promise.resolve(current(r, res, received.length)).catch(() => res.destroy());
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    received,
    set(b: Behaviour) {
      current = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A port nothing listens on: connections to it are refused. */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Polls until `check` holds, or fails after `timeoutMs` (no fixed sleeps in tests). */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// The callback sender's transport (docs/benchmarks.md#delivery-against-bullmq): one exchange as
// src/delivery/send.ts makes it (undici's dispatch handlers, `exchange`) against undici's
// `request()` as the sender used it until 2026-11-30 (an AbortSignal deadline, the answer read
// from its stream), alternating in one run: the same signed-callback-sized request to the same
// merchant receiver through a Pool of the same options.
//
//   npm run bench:sender                      # 3 rounds of 20,000 callbacks each, 16 in flight
//   npm run bench:sender -- --rounds 5 --requests 50000 --in-flight 64
//
// The receiver (node:http, answering 2002600) runs in a child process, so this process's CPU is the
// sender's alone. Not a test: nothing asserts timings.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { exchange } from '../src/delivery/send.ts';
import {
  ACK_BODY,
  cpuNowUs,
  fmt,
  forkServer,
  HOST,
  listenOnLoopback,
  serveChild,
  servedKind,
  table,
} from './bench-kit.ts';

if (servedKind() === 'receiver') {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(ACK_BODY);
    });
  });
  const port = await listenOnLoopback(server);
  serveChild({ port }, () => new Promise<void>((resolve) => server.close(() => resolve())));
} else {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '3' },
      requests: { type: 'string', default: '20000' },
      'in-flight': { type: 'string', default: '16' },
    },
  });
  const rounds = Number(values.rounds);
  const requests = Number(values.requests);
  const inFlight = Number(values['in-flight']);
  const receiver = await forkServer<{ port: number }>(import.meta.url, 'receiver');
  const url = new URL(`http://${HOST}:${receiver.ready.port}/v1.0/qr/qr-mpm-notify`);
  // A callback's size: the signed headers and a QRIS notification's body.
  const headers = {
    'content-type': 'application/json',
    'x-timestamp': '2026-11-30T12:00:00+07:00',
    'x-signature': 'A'.repeat(88),
    'x-partner-id': 'MERCHANT-01',
    'x-external-id': '17960152767895940837',
    'channel-id': '95221',
  };
  const body = JSON.stringify({ originalReferenceNo: '261130000000001578', padding: 'x'.repeat(340) });
  const timeoutMs = 10_000;

  const poolOptions = { connections: 64, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs };
  // The baseline: undici's request() as send.ts used it until 2026-11-30.
  const pool = new Pool(url.origin, poolOptions);
  const viaRequest = async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    timer.unref();
    try {
      const res = await pool.request({ method: 'POST', path: url.pathname, headers, body, signal: controller.signal });
      const chunks: Buffer[] = [];
      for await (const chunk of res.body) chunks.push(chunk as Buffer);
      return res.statusCode === 200 && Buffer.concat(chunks).toString('utf8') === ACK_BODY;
    } finally {
      clearTimeout(timer);
    }
  };
  const senderPool = new Pool(url.origin, poolOptions);
  const viaSender = async () => {
    const r = await exchange(senderPool, url.pathname, headers, body, timeoutMs);
    return 'status' in r && r.status === 200 && r.text === ACK_BODY;
  };

  const run = async (send: () => Promise<boolean>) => {
    const cpu0 = cpuNowUs();
    const t0 = performance.now();
    let acknowledged = 0;
    for (let sent = 0; sent < requests; sent += inFlight) {
      const batch = await Promise.all(Array.from({ length: Math.min(inFlight, requests - sent) }, send));
      acknowledged += batch.filter(Boolean).length;
    }
    const seconds = (performance.now() - t0) / 1000;
    return { perSec: acknowledged / seconds, cpuUs: (cpuNowUs() - cpu0) / requests, acknowledged };
  };

  // One warm-up of each, then the rounds, alternating which goes first.
  await run(viaRequest);
  await run(viaSender);
  const rows: string[][] = [];
  for (let round = 1; round <= rounds; round++) {
    const first = round % 2 === 1;
    const a = first ? await run(viaRequest) : undefined;
    const s = await run(viaSender);
    const r = a ?? (await run(viaRequest));
    rows.push([
      String(round),
      fmt(r.perSec),
      fmt(r.cpuUs, 1),
      fmt(s.perSec),
      fmt(s.cpuUs, 1),
      fmt(s.cpuUs / r.cpuUs, 2),
      `${fmt(s.acknowledged + r.acknowledged)} of ${fmt(2 * requests)}`,
    ]);
  }
  process.stdout.write(
    `Callback transport: ${fmt(requests)} callbacks per run, ${inFlight} in flight, one receiver on ${HOST}\n\n${table(
      [
        'round',
        'request() /s',
        'request() µs CPU',
        'exchange /s',
        'exchange µs CPU',
        'exchange ÷ request() CPU',
        'acknowledged',
      ],
      rows,
    )}\n\nµs CPU: this process's user + system time per callback (the receiver runs in its own process).\n`,
  );
  await senderPool.close();
  await pool.close();
  await receiver.stop();
}

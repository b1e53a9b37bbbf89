import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  formatJakartaTimestamp,
  serviceStringToSign,
  tokenStringToSign,
  verifyHmacSha256,
  verifyHmacSha512,
  verifyRsaSha256,
} from '@snapgate/snap';
import { createManualClock, systemClock } from '../../src/clock.ts';
import {
  createSnapClient,
  SnapCallFailed,
  SnapCallTimeout,
  type SnapClient,
  type SnapTarget,
} from '../../src/providers/snap-client.ts';
import { closedPort, waitFor } from '../helpers/receiver.ts';
import { watchTimers } from '../helpers/timers.ts';

const TOKEN_PATH = '/api/snap/v1.0/access-token/b2b';
const GENERATE_PATH = '/api/snap/v1.0/qr/qr-mpm-generate';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: string;
}

type Answer = (req: Seen, res: ServerResponse) => void;
type TokenAnswer = (req: Seen, res: ServerResponse, accessToken: string) => void;

interface Credentials {
  secret: string;
  publicKey?: KeyObject;
}

/** A small SNAP server that checks every signature the way a real acquirer would. */
interface SnapServer {
  baseUrl: string;
  credentials: Map<string, Credentials>;
  tokenRequests: Seen[];
  calls: Seen[];
  /** Sockets of requests this server left hanging, and whether each was closed. */
  hung: Array<{ closed: boolean }>;
  answerToken: TokenAnswer;
  answerCall: Answer;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const header = (h: IncomingMessage['headers'], name: string) => {
  const v = h[name];
  return typeof v === 'string' ? v : '';
};

const unauthorized = (res: ServerResponse, responseMessage: string) =>
  json(res, 401, { responseCode: '4017300', responseMessage });

async function startSnapServer(): Promise<SnapServer> {
  let issued = 0;
  const validTokens = new Map<string, string>();
  const state: Omit<SnapServer, 'baseUrl' | 'close'> = {
    credentials: new Map(),
    tokenRequests: [],
    calls: [],
    hung: [],
    answerToken: (_req, res, accessToken) =>
      json(res, 200, { responseCode: '2007300', responseMessage: 'Successful', accessToken, expiresIn: '900' }),
    answerCall: (_req, res) => json(res, 200, { responseCode: '2004700', responseMessage: 'Successful' }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        raw: Buffer.concat(chunks).toString('utf8'),
      };
      const h = req.headers;
      if (seen.url === TOKEN_PATH) {
        state.tokenRequests.push(seen);
        const clientKey = header(h, 'x-client-key');
        const creds = state.credentials.get(clientKey);
        const data = tokenStringToSign(clientKey, header(h, 'x-timestamp'));
        const signature = header(h, 'x-signature');
        const isValid = creds?.publicKey
          ? verifyRsaSha256(creds.publicKey, data, signature)
          : creds !== undefined && verifyHmacSha256(creds.secret, data, signature);
        if (!isValid) return unauthorized(res, 'Unauthorized. Signature');
        // Remember whose token it is, to check the service signature with that client's secret.
        const accessToken = `tok-${++issued}`;
        validTokens.set(accessToken, clientKey);
        return state.answerToken(seen, res, accessToken);
      }
      const accessToken = header(h, 'authorization').replace(/^Bearer /, '');
      const clientKey = validTokens.get(accessToken);
      const creds = clientKey === undefined ? undefined : state.credentials.get(clientKey);
      if (!creds) return unauthorized(res, 'Invalid Token (B2B)');
      const data = serviceStringToSign({
        method: seen.method,
        path: seen.url,
        accessToken,
        rawBody: seen.raw,
        timestamp: header(h, 'x-timestamp'),
      });
      if (!verifyHmacSha512(creds.secret, data, header(h, 'x-signature'))) {
        return unauthorized(res, 'Unauthorized. Signature');
      }
      state.calls.push(seen);
      state.answerCall(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** Never answers; records whether the client closed the connection. */
function hang(server: SnapServer): Answer {
  return (_req, res) => {
    const socket = { closed: false };
    server.hung.push(socket);
    res.on('close', () => {
      socket.closed = true;
    });
  };
}

let targets = 0;
function newTarget(server: SnapServer, overrides: Partial<SnapTarget> = {}): SnapTarget {
  const n = ++targets;
  const target: SnapTarget = {
    id: `upstream-${n}`,
    baseUrl: server.baseUrl,
    clientKey: `ck-${n}`,
    clientSecret: `secret-${n}-do-not-leak`,
    privateKeyPem: null,
    partnerId: `PARTNER-${n}`,
    channelId: '95221',
    ...overrides,
  };
  server.credentials.set(target.clientKey, { secret: target.clientSecret });
  return target;
}

let externalIds = 0;
const externalId = () => `${1_000_000 + ++externalIds}`;

const generate = (client: SnapClient, target: SnapTarget, body: unknown = { partnerReferenceNo: 'R-1' }) =>
  client.call(target, { path: 'qr/qr-mpm-generate', body, externalId: externalId() });

describe('SNAP client to an upstream SNAP server', () => {
  let server: SnapServer;
  let client: SnapClient;
  before(async () => {
    server = await startSnapServer();
  });
  beforeEach(async () => {
    await client?.close();
    client = createSnapClient({ clock: systemClock, timeoutMs: 5_000 });
    server.tokenRequests.length = 0;
    server.calls.length = 0;
    server.answerCall = (_req, res) => json(res, 200, { responseCode: '2004700', responseMessage: 'Successful' });
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it('sends a signed call with the exact body bytes and the SNAP headers, and returns the answer', async () => {
    const clock = createManualClock(Date.parse('2024-03-01T03:00:00Z'));
    await client.close();
    client = createSnapClient({ clock, timeoutMs: 5_000 });
    const target = newTarget(server);
    server.answerCall = (_req, res) =>
      json(res, 200, { responseCode: '2004700', responseMessage: 'Successful', referenceNo: 'A1' });
    const body = '{ "partnerReferenceNo" : "R-1",\n  "amount": {"value":"10000.00","currency":"IDR"} }';

    const answer = await client.call(target, { path: 'qr/qr-mpm-generate', body, externalId: '123456' });

    assert.deepEqual(answer.body, { responseCode: '2004700', responseMessage: 'Successful', referenceNo: 'A1' });
    assert.equal(answer.httpStatus, 200);
    assert.equal(answer.raw, '{"responseCode":"2004700","responseMessage":"Successful","referenceNo":"A1"}');
    const [seen] = server.calls;
    assert.ok(seen);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, GENERATE_PATH);
    assert.equal(seen.raw, body);
    assert.equal(seen.headers['content-type'], 'application/json');
    assert.equal(seen.headers.authorization, `Bearer ${await client.token(target)}`);
    assert.equal(seen.headers['x-timestamp'], '2024-03-01T10:00:00+07:00');
    assert.equal(seen.headers['x-timestamp'], formatJakartaTimestamp(clock.now()));
    assert.equal(seen.headers['x-partner-id'], target.partnerId);
    assert.equal(seen.headers['x-external-id'], '123456');
    assert.equal(seen.headers['channel-id'], '95221');
    const [tokenRequest] = server.tokenRequests;
    assert.ok(tokenRequest);
    assert.equal(tokenRequest.raw, '{"grantType":"client_credentials"}');
    assert.equal(tokenRequest.headers['content-type'], 'application/json');
    assert.equal(tokenRequest.headers['x-client-key'], target.clientKey);
    assert.equal(tokenRequest.headers['x-timestamp'], '2024-03-01T10:00:00+07:00');
  });

  it('sends an object body as its JSON text, signed over those bytes, with the chosen method', async () => {
    const target = newTarget(server);
    const body = { virtualAccountNo: '  1234', trxId: 'T-1' };

    await client.call(target, { method: 'DELETE', path: '/transfer-va/delete-va', body, externalId: externalId() });

    assert.equal(server.calls[0]?.method, 'DELETE');
    assert.equal(server.calls[0]?.url, '/api/snap/v1.0/transfer-va/delete-va');
    assert.equal(server.calls[0]?.raw, JSON.stringify(body));
  });

  it('signs the token request with SHA256withRSA when the target has a private key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const target = newTarget(server, {
      privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    });
    server.credentials.set(target.clientKey, { secret: target.clientSecret, publicKey });

    const answer = await generate(client, target);

    assert.equal(answer.httpStatus, 200);
    assert.equal(server.tokenRequests.length, 1);
  });

  it('tolerates a trailing slash on the base URL and a custom path prefix', async () => {
    const target = newTarget(server, { baseUrl: `${server.baseUrl}/`, pathPrefix: '/api/snap/v1.0/' });

    await generate(client, target);

    assert.equal(server.calls[0]?.url, GENERATE_PATH);
  });

  it('reuses one token for three calls', async () => {
    const target = newTarget(server);

    for (let i = 0; i < 3; i++) await generate(client, target);

    assert.equal(server.tokenRequests.length, 1);
    assert.equal(server.calls.length, 3);
  });

  it('lets concurrent first calls share one token request', async () => {
    const target = newTarget(server);

    const answers = await Promise.all(Array.from({ length: 5 }, () => generate(client, target)));

    assert.deepEqual(
      answers.map((a) => a.httpStatus),
      [200, 200, 200, 200, 200],
    );
    assert.equal(server.tokenRequests.length, 1);
  });

  it('reuses a token whose expiresIn is a string until 30 s before it expires', async () => {
    const clock = createManualClock(Date.parse('2024-03-01T03:00:00Z'));
    await client.close();
    client = createSnapClient({ clock, timeoutMs: 5_000 });
    const target = newTarget(server);

    const first = await client.token(target);
    clock.advance(869_000);
    assert.equal(await client.token(target), first);
    clock.advance(2_000);
    const second = await client.token(target);

    assert.notEqual(second, first);
    assert.equal(server.tokenRequests.length, 2);
  });

  it('takes a new token when the target credentials change', async () => {
    const target = newTarget(server);
    await generate(client, target);
    const rotated = { ...target, clientSecret: `${target.clientSecret}-rotated` };
    server.credentials.set(target.clientKey, { secret: rotated.clientSecret });

    const answer = await generate(client, rotated);

    assert.equal(answer.httpStatus, 200);
    assert.equal(server.tokenRequests.length, 2);
  });

  it('takes a new token after a 401 answer, and returns that answer', async () => {
    const target = newTarget(server);
    await generate(client, target);
    server.answerCall = (_req, res) => unauthorized(res, 'Invalid Token (B2B)');

    const refused = await generate(client, target);
    server.answerCall = (_req, res) => json(res, 200, { responseCode: '2004700', responseMessage: 'Successful' });
    const next = await generate(client, target);

    assert.equal(refused.httpStatus, 401);
    assert.deepEqual(refused.body, { responseCode: '4017300', responseMessage: 'Invalid Token (B2B)' });
    assert.equal(next.httpStatus, 200);
    assert.equal(server.tokenRequests.length, 2);
  });

  it('takes a new token after forget', async () => {
    const target = newTarget(server);
    await generate(client, target);

    client.forget(target.id);
    await generate(client, target);

    assert.equal(server.tokenRequests.length, 2);
  });

  it('returns a SNAP 404 answer instead of throwing', async () => {
    const target = newTarget(server);
    server.answerCall = (_req, res) =>
      json(res, 404, { responseCode: '4045101', responseMessage: 'Transaction Not Found' });

    const answer = await generate(client, target);

    assert.equal(answer.httpStatus, 404);
    assert.deepEqual(answer.body, { responseCode: '4045101', responseMessage: 'Transaction Not Found' });
  });

  it('rejects a refused token with SnapCallFailed that names no secret, and does not cache the failure', async () => {
    const target = newTarget(server);
    server.credentials.set(target.clientKey, { secret: 'another-secret' });

    await assert.rejects(generate(client, target), (e: unknown) => {
      assert.ok(e instanceof SnapCallFailed);
      assert.equal(e.httpStatus, 401);
      assert.match(e.detail, /4017300/);
      assert.doesNotMatch(`${e.message} ${e.detail} ${e.stack}`, /do-not-leak|another-secret/);
      return true;
    });
    server.credentials.set(target.clientKey, { secret: target.clientSecret });
    const answer = await generate(client, target);

    assert.equal(answer.httpStatus, 200);
    assert.equal(server.tokenRequests.length, 2);
  });

  it('rejects a non-JSON 502 with SnapCallFailed', async () => {
    const target = newTarget(server);
    server.answerCall = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    };

    await assert.rejects(generate(client, target), { name: 'SnapCallFailed', httpStatus: 502 });
  });

  it('rejects JSON without a responseCode with SnapCallFailed', async () => {
    const target = newTarget(server);
    server.answerCall = (_req, res) => json(res, 200, { ok: true });

    await assert.rejects(generate(client, target), SnapCallFailed);
  });

  it('rejects an answer larger than 64 KiB with SnapCallFailed', async () => {
    const target = newTarget(server);
    server.answerCall = (_req, res) =>
      json(res, 200, { responseCode: '2004700', responseMessage: 'Successful', padding: 'x'.repeat(200_000) });

    await assert.rejects(generate(client, target), SnapCallFailed);
  });

  it('rejects with SnapCallFailed when the connection is refused', async () => {
    const target = newTarget(server, { baseUrl: `http://127.0.0.1:${await closedPort()}` });

    await assert.rejects(generate(client, target), SnapCallFailed);
  });

  it('rejects a call the server never answers with SnapCallTimeout and closes its connection', async () => {
    const target = newTarget(server);
    await generate(client, target);
    const hungBefore = server.hung.length;
    server.answerCall = hang(server);

    await assert.rejects(
      client.call(target, { path: 'qr/qr-mpm-generate', body: {}, externalId: externalId() }, { timeoutMs: 300 }),
      SnapCallTimeout,
    );
    await waitFor('the hung connection to close', () => server.hung[hungBefore]?.closed);
  });

  it('rejects with SnapCallTimeout when the token request is never answered', async () => {
    const target = newTarget(server);
    const answerToken = server.answerToken;
    server.answerToken = hang(server);
    const hungBefore = server.hung.length;
    try {
      await assert.rejects(
        client.call(target, { path: 'qr/qr-mpm-generate', body: {}, externalId: externalId() }, { timeoutMs: 300 }),
        SnapCallTimeout,
      );
      await waitFor('the hung token connection to close', () => server.hung[hungBefore]?.closed);
    } finally {
      server.answerToken = answerToken;
    }
  });

  it('keeps a shared token request alive for a waiting caller after an impatient one gave up', async () => {
    const target = newTarget(server);
    const answerToken = server.answerToken;
    const held: Array<() => void> = [];
    server.answerToken = (req, res, accessToken) => held.push(() => answerToken(req, res, accessToken));
    try {
      const impatient = client.call(
        target,
        { path: 'qr/qr-mpm-generate', body: {}, externalId: externalId() },
        { timeoutMs: 200 },
      );
      const patient = generate(client, target);
      await assert.rejects(impatient, SnapCallTimeout);
      held.shift()?.();

      assert.equal((await patient).httpStatus, 200);
      assert.equal(server.tokenRequests.length, 1);
    } finally {
      server.answerToken = answerToken;
    }
  });

  it('leaves no timeout timer running once a token or a call is answered', async () => {
    const timeoutMs = 37_123;
    const timers = watchTimers(timeoutMs);
    try {
      const target = newTarget(server);
      await client.token(target, { timeoutMs });
      const answer = await client.call(
        target,
        { path: 'qr/qr-mpm-generate', body: {}, externalId: externalId() },
        { timeoutMs },
      );
      assert.equal(answer.httpStatus, 200);
      await waitFor('every timeout timer cleared', () => timers.live() === 0, 2_000);
    } finally {
      timers.stop();
    }
  });

  it('rejects an externalId that is not numeric before sending anything', async () => {
    const target = newTarget(server);

    await assert.rejects(client.call(target, { path: 'qr/qr-mpm-generate', body: {}, externalId: 'abc' }), TypeError);
    assert.equal(server.tokenRequests.length, 0);
  });
});

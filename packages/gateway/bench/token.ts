// Token endpoint benchmark: bare Fastify, snapgate (HMAC and RSA), and oidc-provider's
// client_credentials endpoint as the peer, measured side by side in one run (repeat
// runs differ by 20–30 %, so only figures from the same run compare).
//
//   npm run bench:token                   # 50 connections, 10 s per server
//   npm run bench:token -- --duration 2   # quick check
//   npm run bench:token -- --json         # also print the raw figures as JSON
//   npm run bench:token -- --only hmac    # bare Fastify and the servers whose name has "hmac"
//   BENCH_CPU_PROF=/tmp/prof npm run bench:token -- --only hmac   # CPU profiles of the children
//
// Each server runs in a child process (this file with `--serve <kind>`), listening on
// 127.0.0.1 port 0; autocannon runs in this process. Not a test: nothing asserts timings.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import {
  B2B_TOKEN_PATH,
  formatJakartaTimestamp,
  hmacSha256Base64,
  rsaSha256SignBase64,
  SERVICE,
  successCode,
  tokenStringToSign,
} from '@snapgate/snap';
import { createTestDatabase } from '../test/helpers/postgres.ts';
import {
  type BareFastifyInput,
  createWithAdmin,
  type ForkedServer,
  fmt,
  forkServer,
  HOST,
  listenOnLoopback,
  serveBareFastify,
  serveBenchGateway,
  serveChild,
  servedKind,
  table,
} from './bench-kit.ts';

const CONNECTIONS = 50;
const PIPELINING = 1;
const DEFAULT_DURATION_SEC = 10;
const WARMUP_SEC = 1;
const TOKEN_BODY = '{"grantType":"client_credentials"}';
const TOKEN_SUCCESS = successCode(SERVICE.token);
const PEER_RESOURCE = 'urn:snapgate:bench';
const PEER_SCOPE = 'bench:read';
const PEER_TOKEN_TTL_SEC = 900;

// ---------------------------------------------------------------------------------------
// Untyped packages. autocannon and oidc-provider publish no types and the bench may not add
// @types packages, so each is imported through a string specifier and given the few
// members used here.

interface AutocannonOptions {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  connections: number;
  pipelining: number;
  duration: number;
}

interface AutocannonHistogram {
  average: number;
  p50: number;
  p99: number;
  /** Completed requests (on `requests` only). */
  total: number;
}

interface AutocannonResult {
  requests: AutocannonHistogram;
  latency: AutocannonHistogram;
  non2xx: number;
  errors: number;
  timeouts: number;
}

type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

interface OidcProvider {
  callback(): (req: unknown, res: unknown) => void;
  on(event: 'server_error', listener: (ctx: unknown, error: Error) => void): void;
}

type OidcProviderClass = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

interface OidcProviderModule {
  default: OidcProviderClass;
  errors: { InvalidTarget: new (description?: string) => Error };
}

async function importUntyped<T>(specifier: string): Promise<T> {
  return (await import(specifier)) as T;
}

// ---------------------------------------------------------------------------------------
// Children: one server each. The parent talks to them over the fork IPC channel and stops
// them by disconnecting it.

type ServerKind = 'fastify' | 'gateway' | 'peer';

interface ReadyMessage {
  port: number;
  /** gateway: the admin token of this throw-away instance. */
  adminToken?: string;
  /** peer: the client's credentials. */
  clientId?: string;
  clientSecret?: string;
  /** peer: the access-token format it was configured with. */
  accessTokenFormat?: 'jwt' | 'opaque';
}

async function servePeer(format: 'jwt' | 'opaque'): Promise<{ ready: ReadyMessage; close: () => Promise<void> }> {
  const { default: Provider, errors } = await importUntyped<OidcProviderModule>('oidc-provider');
  // The issuer names the port, so the socket is bound before the provider exists.
  let handler: ((req: unknown, res: unknown) => void) | undefined;
  const server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end();
  });
  const port = await listenOnLoopback(server);
  const clientId = 'bench';
  const clientSecret = randomBytes(32).toString('base64url');
  // A key of our own: RS256, the provider's default JWT access-token algorithm.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench-rs256', alg: 'RS256', use: 'sig' };
  const provider = new Provider(`http://${HOST}:${port}`, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: PEER_SCOPE,
      },
    ],
    jwks: { keys: [signingJwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: [PEER_SCOPE],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PEER_RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== PEER_RESOURCE) throw new errors.InvalidTarget();
          return {
            scope: PEER_SCOPE,
            audience: PEER_RESOURCE,
            accessTokenFormat: format,
            accessTokenTTL: PEER_TOKEN_TTL_SEC,
          };
        },
      },
    },
  });
  let hasReportedError = false;
  provider.on('server_error', (_ctx, error) => {
    if (hasReportedError) return;
    hasReportedError = true;
    process.stderr.write(`oidc-provider server_error: ${error.stack ?? error.message}\n`);
  });
  handler = provider.callback();
  return {
    ready: { port, clientId, clientSecret, accessTokenFormat: format },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function runChild(kind: ServerKind): Promise<void> {
  const started =
    kind === 'gateway'
      ? // --store postgres: the parent made a fresh database and passed its URL down.
        await serveBenchGateway(process.env.SNAPGATE_DATABASE_URL)
      : kind === 'peer'
        ? await servePeer(process.env.BENCH_PEER_FORMAT === 'opaque' ? 'opaque' : 'jwt')
        : await serveBareFastify(JSON.parse(process.env.BENCH_FASTIFY_INPUT ?? '{}') as BareFastifyInput);
  // The parent reads the CPU time around each run from serveChild's answers.
  serveChild(started.ready, started.close);
}

// ---------------------------------------------------------------------------------------
// Parent.

type ChildServer = ForkedServer<ReadyMessage, object>;

function startChild(kind: ServerKind, env: Record<string, string> = {}): Promise<ChildServer> {
  return forkServer<ReadyMessage>(import.meta.url, kind, { env, isQuiet: true, label: `${kind} server` });
}

interface Target {
  name: string;
  server: ChildServer;
  url: string;
  /** Fresh headers: SNAP timestamps must be within the skew window when sent. */
  headers(): Record<string, string>;
  body: string;
  /** Whether one response is the success the run expects. */
  isSuccess(status: number, body: string): boolean;
}

interface Figures {
  name: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  completedRequests: number;
  /** Server process CPU time per completed request (user + system). */
  serverCpuUsPerRequest: number;
}

async function post(url: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url, { method: 'POST', headers, body });
  return { status: res.status, body: await res.text() };
}

async function checkOnce(target: Target, headers: Record<string, string>): Promise<string> {
  const res = await post(target.url, headers, target.body);
  if (!target.isSuccess(res.status, res.body)) {
    throw new Error(`${target.name}: check request failed: HTTP ${res.status} ${res.body.slice(0, 300)}`);
  }
  return res.body;
}

async function measure(autocannon: Autocannon, target: Target, durationSec: number): Promise<Figures> {
  const run = (headers: Record<string, string>, duration: number) =>
    autocannon({
      url: target.url,
      method: 'POST',
      headers,
      body: target.body,
      connections: CONNECTIONS,
      pipelining: PIPELINING,
      duration,
    });
  await run(await freshChecked(target), WARMUP_SEC);
  // Signed once, shortly before the run; the gateway accepts a replay inside the window.
  const headers = await freshChecked(target);
  const cpuBefore = await target.server.stats();
  const r = await run(headers, durationSec);
  const cpuUs = (await target.server.stats()).cpuUs - cpuBefore.cpuUs;
  return {
    name: target.name,
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    completedRequests: r.requests.total,
    serverCpuUsPerRequest: cpuUs / Math.max(1, r.requests.total),
  };
}

async function freshChecked(target: Target): Promise<Record<string, string>> {
  const headers = target.headers();
  await checkOnce(target, headers);
  return headers;
}

function snapSuccess(status: number, body: string): boolean {
  if (status !== 200) return false;
  try {
    const parsed = JSON.parse(body) as { responseCode?: unknown; accessToken?: unknown };
    return parsed.responseCode === TOKEN_SUCCESS && typeof parsed.accessToken === 'string';
  } catch {
    return false;
  }
}

function snapTarget(gateway: ChildServer, name: string, clientKey: string, sign: (data: string) => string): Target {
  return {
    name,
    server: gateway,
    url: `${gateway.baseUrl}${B2B_TOKEN_PATH}`,
    body: TOKEN_BODY,
    isSuccess: snapSuccess,
    headers() {
      const timestamp = formatJakartaTimestamp(Date.now());
      return {
        'Content-Type': 'application/json',
        'X-CLIENT-KEY': clientKey,
        'X-TIMESTAMP': timestamp,
        'X-SIGNATURE': sign(tokenStringToSign(clientKey, timestamp)),
      };
    },
  };
}

async function createMerchant(gateway: ChildServer, input: Record<string, string>) {
  const body = await createWithAdmin(gateway.baseUrl, gateway.ready.adminToken ?? '', '/merchants', input);
  if (typeof body.clientKey !== 'string' || typeof body.clientSecret !== 'string') {
    throw new Error(`creating a merchant answered no credentials: ${JSON.stringify(body)}`);
  }
  return { clientKey: body.clientKey, clientSecret: body.clientSecret };
}

const isJwt = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);

function peerTarget(peer: ChildServer): Target {
  const basic = Buffer.from(`${peer.ready.clientId}:${peer.ready.clientSecret}`).toString('base64');
  const wantJwt = peer.ready.accessTokenFormat === 'jwt';
  return {
    name: `oidc-provider 9 client_credentials (${wantJwt ? 'JWT RS256' : 'opaque'})`,
    server: peer,
    url: `${peer.baseUrl}/token`,
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: PEER_SCOPE,
      resource: PEER_RESOURCE,
    }).toString(),
    headers: () => ({ 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` }),
    isSuccess(status, body) {
      if (status !== 200) return false;
      try {
        const token = (JSON.parse(body) as { access_token?: unknown }).access_token;
        return typeof token === 'string' && (!wantJwt || isJwt(token));
      } catch {
        return false;
      }
    },
  };
}

interface Options {
  durationSec: number;
  isJson: boolean;
  store: 'sqlite' | 'postgres';
  /** Only the servers whose name contains this (case-insensitive); bare Fastify always runs. */
  only: string | undefined;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { durationSec: DEFAULT_DURATION_SEC, isJson: false, store: 'sqlite', only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.isJson = true;
    else if (arg === '--duration') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 1) throw new TypeError('--duration takes a whole number of seconds ≥ 1');
      options.durationSec = n;
    } else if (arg === '--store') {
      const v = argv[++i];
      if (v !== 'sqlite' && v !== 'postgres') throw new TypeError('--store takes sqlite or postgres');
      options.store = v;
    } else if (arg === '--only') {
      const v = argv[++i];
      if (!v) throw new TypeError('--only takes a part of a server name, e.g. hmac');
      options.only = v.toLowerCase();
    } else
      throw new TypeError(`unknown option ${arg}; use --duration N, --store sqlite|postgres, --only NAME and --json`);
  }
  return options;
}

function formatTable(rows: Figures[]): string {
  const header = ['Server', 'req/s (avg)', 'p50 ms', 'p99 ms', 'non-2xx', 'server CPU µs/req'];
  const body = rows.map((r) => [
    r.name,
    fmt(r.requestsPerSec),
    fmt(r.p50Ms),
    fmt(r.p99Ms),
    fmt(r.non2xx + r.errors + r.timeouts),
    fmt(r.serverCpuUsPerRequest),
  ]);
  return table(header, body);
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const autocannon = await importUntyped<{ default: Autocannon }>('autocannon').then((m) => m.default);
  const children: ChildServer[] = [];
  const start = async (kind: ServerKind, env?: Record<string, string>) => {
    const c = await startChild(kind, env);
    children.push(c);
    return c;
  };
  const pg = options.store === 'postgres' ? await createTestDatabase() : undefined;
  if (pg) process.env.SNAPGATE_DATABASE_URL = pg.url;
  try {
    const gateway = await start('gateway');
    const hmacMerchant = await createMerchant(gateway, { name: 'bench' });
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsaMerchant = await createMerchant(gateway, {
      name: 'bench',
      publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const hmac = snapTarget(gateway, `snapgate token, HMAC-SHA256 (${options.store})`, hmacMerchant.clientKey, (data) =>
      hmacSha256Base64(hmacMerchant.clientSecret, data),
    );
    const rsa = snapTarget(gateway, `snapgate token, SHA256withRSA (${options.store})`, rsaMerchant.clientKey, (data) =>
      rsaSha256SignBase64(privateKey, data),
    );

    // The baseline answers with the very bytes snapgate answers with (body and SNAP headers).
    const sample = await post(hmac.url, hmac.headers(), TOKEN_BODY);
    if (!snapSuccess(sample.status, sample.body))
      throw new Error(`snapgate check failed: HTTP ${sample.status} ${sample.body}`);
    const fastifyInput: BareFastifyInput = {
      path: B2B_TOKEN_PATH,
      body: sample.body,
      headers: { 'X-TIMESTAMP': formatJakartaTimestamp(Date.now()), 'X-CLIENT-KEY': hmacMerchant.clientKey },
    };
    const bare = await start('fastify', { BENCH_FASTIFY_INPUT: JSON.stringify(fastifyInput) });
    const bareTarget: Target = {
      name: 'bare Fastify 5, same-sized JSON',
      server: bare,
      url: `${bare.baseUrl}${B2B_TOKEN_PATH}`,
      body: TOKEN_BODY,
      headers: () => ({ 'Content-Type': 'application/json' }),
      isSuccess: (status, body) => status === 200 && body.length === sample.body.length,
    };

    // Before any load: prove the peer issues JWTs, or fall back to opaque tokens and say so.
    let peerTokenTarget = peerTarget(await start('peer', { BENCH_PEER_FORMAT: 'jwt' }));
    let peerNote = 'the peer issues JWT access tokens (RS256, RSA-2048 key, resource indicator).';
    try {
      await checkOnce(peerTokenTarget, peerTokenTarget.headers());
    } catch (e) {
      await children.pop()?.stop();
      peerTokenTarget = peerTarget(await start('peer', { BENCH_PEER_FORMAT: 'opaque' }));
      await checkOnce(peerTokenTarget, peerTokenTarget.headers());
      peerNote = `the peer FELL BACK to opaque tokens (JWT check failed: ${(e as Error).message}).`;
    }

    const rows: Figures[] = [];
    const chosen = (t: Target) => t === bareTarget || !options.only || t.name.toLowerCase().includes(options.only);
    for (const target of [bareTarget, hmac, rsa, peerTokenTarget].filter(chosen)) {
      process.stderr.write(`measuring ${target.name} (${options.durationSec} s)…\n`);
      rows.push(await measure(autocannon, target, options.durationSec));
    }
    const rowOf = (t: Target) => rows.find((r) => r.name === t.name);
    const [bareRow, hmacRow, rsaRow, peerRow] = [rowOf(bareTarget), rowOf(hmac), rowOf(rsa), rowOf(peerTokenTarget)];
    // Goals: HMAC ≥ 0.6× bare Fastify, ≤ 35 µs server CPU and p99 < 5 ms at 50 connections;
    // RSA ≥ 8,000/s; HMAC ≥ 5× the OAuth peer.
    const goals: Array<{ goal: string; value: number; target: string; isMet: boolean }> = [];
    if (hmacRow && bareRow) {
      const vsBare = hmacRow.requestsPerSec / bareRow.requestsPerSec;
      goals.push(
        { goal: 'HMAC / bare Fastify req/s', value: vsBare, target: '≥ 0.6', isMet: vsBare >= 0.6 },
        {
          goal: 'HMAC server CPU µs/req',
          value: hmacRow.serverCpuUsPerRequest,
          target: '≤ 35',
          isMet: hmacRow.serverCpuUsPerRequest <= 35,
        },
        { goal: 'HMAC p99 ms', value: hmacRow.p99Ms, target: '< 5', isMet: hmacRow.p99Ms < 5 },
      );
    }
    if (rsaRow) {
      goals.push({
        goal: 'RSA req/s',
        value: rsaRow.requestsPerSec,
        target: '≥ 8000',
        isMet: rsaRow.requestsPerSec >= 8000,
      });
    }
    if (hmacRow && peerRow) {
      const vsPeer = hmacRow.requestsPerSec / peerRow.requestsPerSec;
      goals.push({ goal: 'HMAC / peer req/s', value: vsPeer, target: '≥ 5', isMet: vsPeer >= 5 });
    }
    const environment = {
      node: process.version,
      cpus: availableParallelism(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      durationSec: options.durationSec,
      connections: CONNECTIONS,
      pipelining: PIPELINING,
      warmupSec: WARMUP_SEC,
    };

    const out = [
      `Token endpoint benchmark — autocannon ${CONNECTIONS} connections, ${options.durationSec} s each, pipelining ${PIPELINING} (after a ${WARMUP_SEC} s warm-up)`,
      `Node ${environment.node}, ${environment.cpus} CPUs (${environment.cpuModel})`,
      'Load generator (this process) and each server (a child process) share the machine; 127.0.0.1 only.',
      `Response body ${sample.body.length} bytes; ${peerNote}`,
      '',
      formatTable(rows),
      '',
      'non-2xx counts non-2xx responses plus socket errors and timeouts. Latency is in whole ms,',
      'truncated by autocannon (0 = under 1 ms). Server CPU is the server process user + system time',
      'over the run divided by completed requests.',
      '',
      ...goals.map(
        (g) =>
          `${g.goal.padEnd(26)}${fmt(g.value, 2).padStart(7)}   goal ${g.target.padEnd(6)} ${g.isMet ? 'met' : 'NOT MET'}`,
      ),
    ];
    process.stdout.write(`${out.join('\n')}\n`);
    const failures = rows.filter((r) => r.non2xx + r.errors + r.timeouts > 0);
    if (failures.length > 0) {
      process.stdout.write(`\nFAILED requests in: ${failures.map((r) => r.name).join(', ')}\n`);
      process.exitCode = 1;
    }
    if (options.isJson) {
      process.stdout.write(
        `${JSON.stringify({ environment, peerNote, responseBytes: sample.body.length, rows, goals }, null, 2)}\n`,
      );
    }
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await pg?.drop();
  }
}

const kind = servedKind();
if (kind !== undefined) {
  await runChild(kind as ServerKind);
} else {
  await main();
}

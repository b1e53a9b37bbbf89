import { resolve } from 'node:path';
import { isMoneyValue, toMinorUnits } from '@snapgate/snap';
import { z } from 'zod';
import { parseStagingAllow, type StagingAllow } from './address-guard.ts';
import {
  DEFAULT_SETTLEMENT_SCHEDULE,
  parseSettlementSchedule,
  type SettlementSchedule,
} from './settlement-schedule.ts';
import {
  DEFAULT_SNAP_PREFIXES,
  DEFAULT_SNAP_PROFILES,
  parseSnapPrefixes,
  parseSnapProfiles,
  type SnapMounts,
} from './snap-mounts.ts';

// The only reader of process.env. Every problem is reported at once.
export type Mode = 'sandbox' | 'production';

export interface Config {
  port: number;
  host: string;
  mode: Mode;
  publicUrl: string;
  /** True when SNAPGATE_PUBLIC_URL was set; otherwise publicUrl follows the address bound. */
  publicUrlSet: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Requests per client key per minute; `undefined` = off. */
  rateLimitPerMin: number | undefined;
  /** QR image requests per client address per minute; undefined: off. */
  qrRateLimitPerMin: number | undefined;
  sqlitePath: string;
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  clockSkewSec: number;
  tokenTtlSec: number;
  callbackTimeoutMs: number;
  /** Bounds one outbound exchange with an upstream provider (token and call). */
  upstreamTimeoutMs: number;
  /** Delay before each attempt, in milliseconds. */
  retryScheduleMs: number[];
  /** SNAPGATE_TRANSFER_STATUS_SCHEDULE: delay before each status query (36) of a transfer not yet known paid or failed. */
  transferStatusScheduleMs: number[];
  /** SNAPGATE_PAYOUT_APPROVAL_ABOVE, in sen: a settlement payout above it waits for a second key (0: every one). */
  payoutApprovalAboveSen: bigint;
  /** Limits of the HTTP server: see src/http/server-limits.ts. */
  server: ServerLimits;
  /** SNAPGATE_MASTER_KEY: seals the secrets at rest (src/secrets). Required in production mode. */
  masterKey: Buffer | undefined;
  /** SNAPGATE_MASTER_KEY_PREVIOUS: keys that still open records not yet re-sealed. */
  previousMasterKeys: Buffer[];
  /** HTTPS served directly (TLS 1.2 or newer); re-read on SIGHUP. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** Whose X-Forwarded-For / -Proto is believed: Fastify's trustProxy (false, true, hops or addresses). */
  trustProxy: boolean | number | string;
  /** A port of its own for /metrics (plain HTTP, no key); undefined: /metrics on the main port. */
  metricsPort: number | undefined;
  /** How long start-up keeps trying to reach PostgreSQL before it gives up. */
  dbConnectTimeoutSec: number;
  /** SNAPGATE_AUTH_FAILURE_LIMIT: failed admin-key authentications per address (and key prefix) per minute. */
  authFailureLimit: number;
  /** SNAPGATE_DB_STATEMENT_TIMEOUT_MS: PostgreSQL's statement and lock timeout (0: none). */
  dbStatementTimeoutMs: number;
  /** SNAPGATE_SQLITE_WRITER: where the embedded store commits its hot writes (a writer thread, or the main thread). */
  sqliteWriter: 'thread' | 'inline';
  /** Delivered attempts' bodies and idempotency keys older than this are pruned; undefined: never. */
  retentionDays: number | undefined;
  /** SNAPGATE_MERCHANT_2FA: `required` makes every merchant user turn on two-factor sign-in. */
  merchantTwoFactor: 'optional' | 'required';
  /** SNAPGATE_SETTLEMENT_SCHEDULE: when settlements are made (Jakarta time). */
  settlementSchedule: SettlementSchedule;
  /** SNAPGATE_SNAP_PREFIXES and SNAPGATE_SNAP_PROFILES: where the SNAP API is served besides /api/snap/v1.0. */
  snapMounts: SnapMounts;
  /** SNAPGATE_STAGING_ALLOW: private hosts and networks production mode may dial (a staging rehearsal). */
  stagingAllow: StagingAllow;
  /** SNAPGATE_CA_FILE: extra trusted CAs (PEM) for every outbound call. */
  caFile: string | undefined;
  /** SNAPGATE_METRICS_HOST: where the metrics port listens (default SNAPGATE_HOST). */
  metricsHost: string;
}

export interface ServerLimits {
  /** Open connections at once; more are closed as they arrive. */
  maxConnections: number;
  /** Open connections from one client address at once. */
  maxConnectionsPerAddress: number;
  /** A request's headers must arrive within this, from the connection's start or the last answer. */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `0s,10s,1m` into milliseconds; `undefined` when any part is malformed. */
export function parseRetrySchedule(value: string): number[] | undefined {
  const parts = value.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const p of parts) {
    const m = DURATION.exec(p);
    if (!m) return undefined;
    out.push(Number(m[1]) * (UNIT_MS[m[2] as string] as number));
  }
  return out.length > 0 ? out : undefined;
}

/** docs/payouts.md#when-the-bank-is-down: soon at first, then hourly for 2 days. */
const DEFAULT_TRANSFER_STATUS_SCHEDULE = ['10s,30s,1m,5m,10m,30m,1h', ...Array(48).fill('1h')].join(',');

function scheduleOf(v: string, ctx: z.RefinementCtx): number[] {
  const s = parseRetrySchedule(v);
  if (!s) {
    ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of durations like 0s,10s,1m,2h' });
    return z.NEVER;
  }
  return s;
}

const int = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(min).max(max));

/** A transform by a parser that throws its reason (reported as the variable's problem). */
const parsedBy =
  <T>(parse: (text: string) => T) =>
  (v: string, ctx: z.RefinementCtx): T => {
    try {
      return parse(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  };

const MASTER_KEY_HINT = 'base64 of 32 random bytes (openssl rand -base64 32)';

function masterKeyOf(v: string, ctx: z.RefinementCtx): Buffer {
  const key = /^[A-Za-z0-9+/]{43}=$/.test(v.trim()) ? Buffer.from(v.trim(), 'base64') : undefined;
  if (key?.length !== 32) {
    ctx.addIssue({ code: 'custom', message: `must be ${MASTER_KEY_HINT}` });
    return Buffer.alloc(0);
  }
  return key;
}

const schema = z.object({
  SNAPGATE_PORT: int(0, 65535).default(8080),
  SNAPGATE_HOST: z.string().min(1).default('127.0.0.1'),
  SNAPGATE_MODE: z.enum(['sandbox', 'production']).default('sandbox'),
  SNAPGATE_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  SNAPGATE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SNAPGATE_RATE_LIMIT: z
    .union([z.literal('off'), int(1, 10_000_000)])
    .default(600)
    .transform((v) => (v === 'off' ? undefined : v)),
  SNAPGATE_QR_RATE_LIMIT: z
    .union([z.literal('off'), int(1, 10_000_000)])
    .default(120)
    .transform((v) => (v === 'off' ? undefined : v)),
  SNAPGATE_MAX_CONNECTIONS: int(1, 1_000_000).default(1024),
  SNAPGATE_MAX_CONNECTIONS_PER_ADDRESS: int(1, 1_000_000).default(256),
  SNAPGATE_HEADERS_TIMEOUT_MS: int(100, 600_000).default(10_000),
  SNAPGATE_REQUEST_TIMEOUT_MS: int(100, 600_000).default(15_000),
  SNAPGATE_KEEP_ALIVE_TIMEOUT_MS: int(100, 600_000).default(10_000),
  SNAPGATE_DB: z
    .string()
    .min(1)
    .default('./data/snapgate.db')
    .refine(
      // Node's recursive mkdir spins forever under /proc (seen: start-up at 100 % CPU, deaf to SIGTERM).
      (v) => v === ':memory:' || !/^\/(proc|sys)(\/|$)|^\/dev\/(?!shm(\/|$))/.test(resolve(v)),
      'must be a file on a disk (or /dev/shm), not under /proc, /sys or /dev',
    ),
  SNAPGATE_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  SNAPGATE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SNAPGATE_CLOCK_SKEW_SEC: int(1, 86_400).default(300),
  SNAPGATE_TOKEN_TTL_SEC: int(60, 86_400).default(900),
  SNAPGATE_CALLBACK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  SNAPGATE_UPSTREAM_TIMEOUT_MS: int(100, 120_000).default(10_000),
  SNAPGATE_MASTER_KEY: z
    .string()
    .transform((v, ctx) => masterKeyOf(v, ctx))
    .optional(),
  SNAPGATE_MASTER_KEY_PREVIOUS: z
    .string()
    .transform((v, ctx) =>
      v
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '')
        .map((k) => masterKeyOf(k, ctx)),
    )
    .optional(),
  SNAPGATE_TLS_CERT_FILE: z.string().min(1).optional(),
  SNAPGATE_TLS_KEY_FILE: z.string().min(1).optional(),
  SNAPGATE_TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v, ctx): boolean | number | string => {
      const t = v.trim();
      if (t === 'false') return false;
      if (t === 'true') return true;
      if (/^\d{1,2}$/.test(t)) return Number(t);
      if (/^[0-9A-Fa-f.:/]+(\s*,\s*[0-9A-Fa-f.:/]+)*$/.test(t)) return t;
      ctx.addIssue({
        code: 'custom',
        message: 'must be false, true, a number of proxy hops, or a comma-separated list of proxy addresses or CIDRs',
      });
      return z.NEVER;
    }),
  SNAPGATE_METRICS_PORT: int(1, 65535).optional(),
  SNAPGATE_DB_CONNECT_TIMEOUT_SEC: int(0, 3600).default(30),
  SNAPGATE_DB_STATEMENT_TIMEOUT_MS: int(0, 600_000).default(5_000),
  SNAPGATE_SQLITE_WRITER: z.enum(['thread', 'inline']).default('thread'),
  SNAPGATE_AUTH_FAILURE_LIMIT: int(1, 10_000).default(20),
  SNAPGATE_MERCHANT_2FA: z.enum(['optional', 'required']).default('optional'),
  SNAPGATE_RETENTION_DAYS: z
    .union([z.literal('off'), int(1, 36_500)])
    .default(90)
    .transform((v) => (v === 'off' ? undefined : v)),
  SNAPGATE_SETTLEMENT_SCHEDULE: z
    .string()
    .default(DEFAULT_SETTLEMENT_SCHEDULE)
    .transform(parsedBy(parseSettlementSchedule)),
  SNAPGATE_STAGING_ALLOW: z.string().default('').transform(parsedBy(parseStagingAllow)),
  SNAPGATE_CA_FILE: z.string().min(1).optional(),
  SNAPGATE_METRICS_HOST: z.string().min(1).optional(),
  SNAPGATE_SNAP_PREFIXES: z.string().default(DEFAULT_SNAP_PREFIXES).transform(parsedBy(parseSnapPrefixes)),
  SNAPGATE_SNAP_PROFILES: z.string().default(DEFAULT_SNAP_PROFILES).transform(parsedBy(parseSnapProfiles)),
  SNAPGATE_RETRY_SCHEDULE: z.string().default('0s,10s,1m,5m,15m,30m,1h,2h,6h,12h,24h').transform(scheduleOf),
  SNAPGATE_TRANSFER_STATUS_SCHEDULE: z.string().default(DEFAULT_TRANSFER_STATUS_SCHEDULE).transform(scheduleOf),
  SNAPGATE_PAYOUT_APPROVAL_ABOVE: z
    .string()
    .default('100000000.00')
    .transform((v, ctx) => {
      const value = v === '0' ? '0.00' : v;
      if (!isMoneyValue(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be an amount like 100000000.00, or 0 (every payout)' });
        return z.NEVER;
      }
      return toMinorUnits(value);
    }),
});

/** Reads the configuration from an environment; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith('SNAPGATE_') && v !== undefined && v !== '') relevant[k] = v;
  }
  const r = schema.safeParse(relevant);
  if (!r.success) {
    throw new ConfigError(r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const c = r.data;
  if (c.SNAPGATE_MODE === 'production' && !c.SNAPGATE_MASTER_KEY) {
    throw new ConfigError([
      `SNAPGATE_MASTER_KEY: required in production mode, to seal secrets at rest: ${MASTER_KEY_HINT}`,
    ]);
  }
  if ((c.SNAPGATE_TLS_CERT_FILE === undefined) !== (c.SNAPGATE_TLS_KEY_FILE === undefined)) {
    throw new ConfigError(['SNAPGATE_TLS_CERT_FILE and SNAPGATE_TLS_KEY_FILE: set both to serve HTTPS, or neither']);
  }
  const hostForUrl = c.SNAPGATE_HOST.includes(':') ? `[${c.SNAPGATE_HOST}]` : c.SNAPGATE_HOST;
  return {
    port: c.SNAPGATE_PORT,
    host: c.SNAPGATE_HOST,
    mode: c.SNAPGATE_MODE,
    publicUrl: (
      c.SNAPGATE_PUBLIC_URL ?? `${c.SNAPGATE_TLS_CERT_FILE ? 'https' : 'http'}://${hostForUrl}:${c.SNAPGATE_PORT}`
    ).replace(/\/+$/, ''),
    publicUrlSet: c.SNAPGATE_PUBLIC_URL !== undefined,
    logLevel: c.SNAPGATE_LOG_LEVEL,
    rateLimitPerMin: c.SNAPGATE_RATE_LIMIT,
    qrRateLimitPerMin: c.SNAPGATE_QR_RATE_LIMIT,
    sqlitePath: c.SNAPGATE_DB,
    databaseUrl: c.SNAPGATE_DATABASE_URL,
    adminToken: c.SNAPGATE_ADMIN_TOKEN,
    clockSkewSec: c.SNAPGATE_CLOCK_SKEW_SEC,
    tokenTtlSec: c.SNAPGATE_TOKEN_TTL_SEC,
    callbackTimeoutMs: c.SNAPGATE_CALLBACK_TIMEOUT_MS,
    upstreamTimeoutMs: c.SNAPGATE_UPSTREAM_TIMEOUT_MS,
    server: {
      maxConnections: c.SNAPGATE_MAX_CONNECTIONS,
      maxConnectionsPerAddress: c.SNAPGATE_MAX_CONNECTIONS_PER_ADDRESS,
      headersTimeoutMs: c.SNAPGATE_HEADERS_TIMEOUT_MS,
      // Headers are part of the request: its deadline can never come first.
      requestTimeoutMs: Math.max(c.SNAPGATE_REQUEST_TIMEOUT_MS, c.SNAPGATE_HEADERS_TIMEOUT_MS),
      keepAliveTimeoutMs: c.SNAPGATE_KEEP_ALIVE_TIMEOUT_MS,
    },
    retryScheduleMs: c.SNAPGATE_RETRY_SCHEDULE,
    transferStatusScheduleMs: c.SNAPGATE_TRANSFER_STATUS_SCHEDULE,
    payoutApprovalAboveSen: c.SNAPGATE_PAYOUT_APPROVAL_ABOVE,
    masterKey: c.SNAPGATE_MASTER_KEY,
    previousMasterKeys: c.SNAPGATE_MASTER_KEY_PREVIOUS ?? [],
    tls:
      c.SNAPGATE_TLS_CERT_FILE && c.SNAPGATE_TLS_KEY_FILE
        ? { certFile: c.SNAPGATE_TLS_CERT_FILE, keyFile: c.SNAPGATE_TLS_KEY_FILE }
        : undefined,
    trustProxy: c.SNAPGATE_TRUST_PROXY,
    metricsPort: c.SNAPGATE_METRICS_PORT,
    dbConnectTimeoutSec: c.SNAPGATE_DB_CONNECT_TIMEOUT_SEC,
    dbStatementTimeoutMs: c.SNAPGATE_DB_STATEMENT_TIMEOUT_MS,
    sqliteWriter: c.SNAPGATE_SQLITE_WRITER,
    authFailureLimit: c.SNAPGATE_AUTH_FAILURE_LIMIT,
    retentionDays: c.SNAPGATE_RETENTION_DAYS,
    merchantTwoFactor: c.SNAPGATE_MERCHANT_2FA,
    settlementSchedule: c.SNAPGATE_SETTLEMENT_SCHEDULE,
    snapMounts: { prefixes: c.SNAPGATE_SNAP_PREFIXES, profiles: c.SNAPGATE_SNAP_PROFILES },
    stagingAllow: c.SNAPGATE_STAGING_ALLOW,
    caFile: c.SNAPGATE_CA_FILE ? resolve(c.SNAPGATE_CA_FILE) : undefined,
    metricsHost: c.SNAPGATE_METRICS_HOST ?? c.SNAPGATE_HOST,
  };
}

export interface CliConfig {
  url: string;
  adminToken: string | undefined;
}

/** What the CLI needs to reach a running gateway's admin API. */
export function loadCliConfig(env: Record<string, string | undefined> = process.env): CliConfig {
  return {
    url: (env.SNAPGATE_URL || `http://127.0.0.1:${env.SNAPGATE_PORT || '8080'}`).replace(/\/+$/, ''),
    adminToken: env.SNAPGATE_ADMIN_TOKEN || undefined,
  };
}

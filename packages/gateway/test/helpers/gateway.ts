import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { assembleGateway, type Gateway, listenOn } from '../../src/app.ts';
import { type Clock, systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** The master key of in-process test gateways (base64 of 32 bytes). */
export const TEST_MASTER_KEY = Buffer.alloc(32, 0x5a).toString('base64');

export interface TestGateway {
  url: string;
  gateway: Gateway;
  store: Store;
  clock: Clock;
  dir: string;
  /** Every log line written so far. */
  logs: string[];
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }>;
  createMerchant(input?: Record<string, unknown>): Promise<TestMerchant>;
  close(): Promise<void>;
}

export interface TestMerchant {
  id: string;
  clientKey: string;
  clientSecret: string;
  partnerId: string;
  [k: string]: unknown;
}

export interface StartOptions {
  clock?: Clock;
  env?: Record<string, string>;
  store?: Store;
  /** Start the callback dispatcher (off by default: most tests only look at the outbox). */
  dispatch?: boolean;
  /** The dispatcher's poll for due work nobody woke it for (default 250 ms). */
  deliveryPollMs?: number;
}

/** A real gateway on 127.0.0.1 with a real SQLite file in a fresh temp folder. */
export async function startGateway(options: StartOptions = {}): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-test-'));
  const made: Made = {};
  try {
    return await startIn(dir, options, made);
  } catch (e) {
    // A gateway that refuses to start (a test of a bad setting) leaves no open store or folder.
    await made.gateway?.app.close().catch(() => undefined);
    await made.store?.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/** What startGateway opened itself, to close when the start fails. */
interface Made {
  store?: Store;
  gateway?: Gateway;
}

async function startIn(dir: string, options: StartOptions, made: Made): Promise<TestGateway> {
  const config = loadConfig({
    SNAPGATE_DB: join(dir, 'snapgate.db'),
    SNAPGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    // One master key for every in-process gateway, so a test may reopen a database in another.
    SNAPGATE_MASTER_KEY: TEST_MASTER_KEY,
    SNAPGATE_PORT: '0',
    SNAPGATE_LOG_LEVEL: 'debug',
    ...options.env,
  });
  const clock = options.clock ?? systemClock;
  const store = options.store ?? new SqliteStore({ file: config.sqlitePath });
  if (store !== options.store) made.store = store;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const { gateway } = await assembleGateway({ config, store, clock, logger, deliveryPollMs: options.deliveryPollMs });
  made.gateway = gateway;
  if (options.dispatch) gateway.dispatcher.start();
  const url = await listenOn(gateway, '127.0.0.1', 0);

  const admin: TestGateway['admin'] = async (method, path, body) => {
    const res = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };

  return {
    url,
    gateway,
    // The sealed view, as the gateway sees it (close() and the raw handle pass through).
    store: gateway.store,
    clock,
    dir,
    logs,
    admin,
    async createMerchant(input = {}) {
      const r = await admin('POST', '/merchants', { name: 'Test Merchant', ...input });
      if (r.status !== 201) throw new Error(`merchant create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as TestMerchant;
    },
    async close() {
      await gateway.app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

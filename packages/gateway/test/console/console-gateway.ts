import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { assembleGateway, listenOn } from '../../src/app.ts';
import { systemClock } from '../../src/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { ADMIN_TOKEN, TEST_MASTER_KEY, type TestGateway, type TestMerchant } from '../helpers/gateway.ts';

/**
 * A test gateway for the browser tests: like startGateway (test/helpers/gateway.ts), with a short
 * retry schedule, and the public URL set to where it listens (the console's links use it).
 */
export async function startConsoleGateway(options: { dispatch?: boolean; env?: Record<string, string> } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-console-'));
  const config = loadConfig({
    SNAPGATE_DB: join(dir, 'snapgate.db'),
    SNAPGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    SNAPGATE_MASTER_KEY: TEST_MASTER_KEY,
    SNAPGATE_PORT: '0',
    SNAPGATE_LOG_LEVEL: 'warn',
    SNAPGATE_RETRY_SCHEDULE: '0s,1s',
    ...options.env,
  });
  const clock = systemClock;
  const raw = new SqliteStore({ file: config.sqlitePath });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  const { gateway } = await assembleGateway({ config, store: raw, clock, logger: createLogger(config.logLevel, sink) });
  const store = gateway.store;
  if (options.dispatch) gateway.dispatcher.start();
  const url = await listenOn(gateway, '127.0.0.1', 0);
  // Links the console makes point at the public URL; here that is where the test gateway listens.
  (config as { publicUrl: string }).publicUrl = url;

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
    store,
    dir,
    logs,
    admin,
    async createMerchant(input: Record<string, unknown> = {}) {
      const r = await admin('POST', '/merchants', { name: 'Test Merchant', ...input });
      if (r.status !== 201) throw new Error(`merchant create failed: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body as TestMerchant;
    },
    async close() {
      await gateway.app.close();
      await raw.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type ConsoleGateway = Awaited<ReturnType<typeof startConsoleGateway>>;

export const CHROMIUM = '/usr/bin/chromium';
export const CI = Boolean(process.env.CI) && !/^(false|0)$/i.test(process.env.CI ?? '');
export const SCREENSHOTS = new URL('../../../../docs/console/', import.meta.url);

export function screenshotPath(name: string): string {
  const dir = SCREENSHOTS.pathname;
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/** Debian's Chromium through playwright-core, headless, with a fresh profile. */
export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'snapgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../helpers/gateway.ts';

/** A test gateway for the browser tests: startGateway with a short retry schedule. */
export function startConsoleGateway(options: { dispatch?: boolean; env?: Record<string, string> } = {}) {
  return startGateway({ dispatch: options.dispatch, env: { SNAPGATE_RETRY_SCHEDULE: '0s,1s', ...options.env } });
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

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';

/** A test gateway for the browser tests: startGateway with a short retry schedule. */
export function startConsoleGateway(options: { dispatch?: boolean; env?: Record<string, string> } = {}) {
  return startGateway({ dispatch: options.dispatch, env: { SNAPGATE_RETRY_SCHEDULE: '0s,1s', ...options.env } });
}

export type ConsoleGateway = Awaited<ReturnType<typeof startConsoleGateway>>;

export const CHROMIUM = '/usr/bin/chromium';
export const CI = Boolean(process.env.CI) && !/^(false|0)$/i.test(process.env.CI ?? '');

/**
 * Where a browser test keeps a screenshot for the docs: `<DOCS_SCREENSHOTS_DIR>/<folder>/<name>.png`
 * when `npm run docs:screenshots` sets that folder, nowhere otherwise (the screenshot is still taken,
 * into memory): a test run never writes into the repository.
 */
export function docsScreenshotPath(folder: 'console' | 'checkout', name: string): string | undefined {
  const root = process.env.DOCS_SCREENSHOTS_DIR;
  if (!root) return undefined;
  const dir = join(root, folder);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.png`);
}

/** A console screenshot for docs/console.md (see docsScreenshotPath). */
export const screenshotPath = (name: string) => docsScreenshotPath('console', name);

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
    viewport: { width: 1366, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The console's session cookie (`name=value`), by a browser's log-in done by hand: the pre-login cookie and token, then the key. */
export async function signInByHand(url: string, key = ADMIN_TOKEN): Promise<string> {
  const form = await fetch(`${url}/console/login`);
  const pre = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const csrf = csrfIn(await form.text());
  const res = await fetch(`${url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: url },
    body: new URLSearchParams({ _csrf: csrf, key }).toString(),
  });
  assert.equal(res.status, 303);
  const session = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('snapgate_console='))
    ?.split(';')[0];
  assert.ok(session, 'the log-in sets the session cookie');
  return session;
}

/** The CSRF token of a console page's forms. */
export const csrfIn = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** A console page, as the signed-in browser gets it. */
export async function getPage(url: string, session: string, path: string) {
  const res = await fetch(`${url}${path}`, { headers: { cookie: session }, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/**
 * A console form, posted as a browser on the console posts it: the session cookie, the session's
 * CSRF token (taken from a page), an Origin of this host. The redirect is not followed.
 */
export async function postForm(url: string, session: string, action: string, fields: Record<string, string>) {
  const csrf = csrfIn((await getPage(url, session, '/console/overview')).text);
  return fetch(`${url}${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session, origin: url },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
}

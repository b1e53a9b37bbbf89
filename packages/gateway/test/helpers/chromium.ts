// Debian's Chromium through playwright-core, for every browser test: one way to launch it, and one
// rule for a machine without it (the suite is skipped, naming the command that installs it; under
// CI, where `.ci/run` installs it, it fails instead: CI never skips a browser test).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CI = Boolean(process.env.CI) && !/^(false|0)$/i.test(process.env.CI ?? '');

const MISSING = `Chromium is missing (${CHROMIUM}): apt-get install -y chromium`;

/** A browser suite's describe() options: skipped without Chromium, except under CI (launchChromium fails there). */
export const browserSuite = { skip: !existsSync(CHROMIUM) && !CI ? MISSING : false };

/** The console's desktop window. */
export const DESKTOP = { width: 1366, height: 900 };

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Headless Chromium with one context open (`context`, with `defaults`: a desktop window unless
 * told); `newContext` opens another, with cookies of its own. `close` closes them all.
 */
export async function launchChromium(defaults: BrowserContextOptions = { viewport: DESKTOP }) {
  if (!existsSync(CHROMIUM)) assert.fail(`${MISSING}; CI must run the browser tests, never skip them`);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const contexts: BrowserContext[] = [];
  const newContext = async (options: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ ...defaults, ...options });
    contexts.push(context);
    return context;
  };
  // A first context that fails must not leave the browser (and so this test process) running.
  const context = await newContext().catch(async (e: unknown) => {
    await browser.close();
    throw e;
  });
  return {
    browser,
    context,
    newContext,
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}

export type TestChromium = Awaited<ReturnType<typeof launchChromium>>;

/** What overflows sideways on the page: the page itself, or any element that scrolls sideways. */
export async function sidewaysScroll(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth) {
      // Name the widest culprits: the innermost elements whose right edge is past the viewport.
      const past = Array.from(document.querySelectorAll<HTMLElement>('body *')).filter(
        (el) => el.getBoundingClientRect().right > root.clientWidth + 1,
      );
      const innermost = past.filter((el) => !past.some((other) => other !== el && el.contains(other)));
      const names = innermost
        .slice(0, 3)
        .map(
          (el) =>
            `${el.tagName.toLowerCase()}${el.className ? `.${el.className}` : ''} "${(el.textContent ?? '').slice(0, 30)}"`,
        );
      found.push(`the page (${root.scrollWidth} > ${root.clientWidth} px: ${names.join(', ')})`);
    }
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('main *'))) {
      const x = getComputedStyle(el).overflowX;
      if ((x === 'auto' || x === 'scroll') && el.scrollWidth > el.clientWidth + 1) {
        found.push(`${el.tagName.toLowerCase()}.${el.className} (${el.scrollWidth} > ${el.clientWidth} px)`);
      }
    }
    return found;
  });
}

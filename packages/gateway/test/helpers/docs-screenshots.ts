// Screenshots for the docs, taken by the browser tests only when `npm run docs:screenshots` asks.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
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

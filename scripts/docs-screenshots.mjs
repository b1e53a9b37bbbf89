#!/usr/bin/env node
// Rewrites the screenshots of docs/console.md and docs/checkout.md. They are taken by the browser
// tests, each of a state the test has just checked, but a test run writes them nowhere: this script
// runs those tests (every gateway test file that calls screenshotPath) with DOCS_SCREENSHOTS_DIR set.
// usage: npm run docs:screenshots [-- --out <dir>]   (default: docs/; needs Debian's Chromium)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const gatewayRoot = join(root, 'packages', 'gateway');
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const out = outAt === -1 ? join(root, 'docs') : resolve(args[outAt + 1] ?? '');
if (outAt !== -1 && !args[outAt + 1]) {
  console.error('usage: npm run docs:screenshots [-- --out <dir>]');
  process.exit(2);
}

function testFiles(d) {
  return readdirSync(d)
    .sort()
    .flatMap((name) => {
      const p = join(d, name);
      if (statSync(p).isDirectory()) return testFiles(p);
      return p.endsWith('.test.ts') && readFileSync(p, 'utf8').includes('screenshotPath(') ? [p] : [];
    });
}

const files = testFiles(join(gatewayRoot, 'test')).map((f) => relative(gatewayRoot, f));
if (!existsSync('/usr/bin/chromium')) {
  console.error('docs:screenshots needs Chromium at /usr/bin/chromium (Debian: apt-get install chromium)');
  process.exit(1);
}
console.log(`screenshots into ${out}/{console,checkout}/ from ${files.length} test files`);
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...files], {
  cwd: gatewayRoot,
  stdio: 'inherit',
  // CI: a browser test fails instead of skipping when it cannot start Chromium, so no screenshot is left stale unnoticed.
  env: { ...process.env, CI: 'true', DOCS_SCREENSHOTS_DIR: out },
});
process.exit(r.status ?? 1);

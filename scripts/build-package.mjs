#!/usr/bin/env node
// Builds a publishable workspace package into dist/: ESM with types (dist/esm) and CommonJS with
// types (dist/cjs, marked by its own package.json). Sources import each other with `.ts`
// specifiers; tsc rewrites them to `.js` in JavaScript, and this script does the same in the
// declaration files so that any TypeScript configuration of a user's project reads them.
// A build newer than every source is kept (`--force` rebuilds), so tests and start-up can ask
// for one at no cost.
// usage (from a package directory): node ../../scripts/build-package.mjs [--force]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const STAMP = join('dist', '.built');
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
// A workspace package this one depends on is an input too: its types are part of this build.
const siblings = Object.keys(manifest.dependencies ?? {})
  .filter((name) => name.startsWith('@snapgate/'))
  .map((name) => join('..', name.slice('@snapgate/'.length), 'src'));
const INPUTS = [
  'src',
  'package.json',
  'tsconfig.build.json',
  'tsconfig.cjs.json',
  '../../tsconfig.base.json',
  ...siblings,
];

function newestMtime(p) {
  if (!existsSync(p)) return 0;
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(p).map((name) => newestMtime(join(p, name))));
}

if (!process.argv.includes('--force') && existsSync(STAMP)) {
  const built = statSync(STAMP).mtimeMs;
  if (Math.max(...INPUTS.map(newestMtime)) < built) process.exit(0);
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
for (const project of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  const r = spawnSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
writeFileSync(join('dist', 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);

const RELATIVE_TS = /(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\.ts\2/g;
function rewrite(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) rewrite(p);
    else if (p.endsWith('.d.ts')) {
      const text = readFileSync(p, 'utf8');
      const out = text.replace(RELATIVE_TS, (_m, lead, q, spec) => `${lead}${q}${spec}.js${q}`);
      if (out !== text) writeFileSync(p, out);
    }
  }
}
rewrite('dist');
writeFileSync(STAMP, `${new Date().toISOString()}\n`);

#!/usr/bin/env node
// Node 20's test runner takes no globs: find the test files ourselves.
// usage: node scripts/test.mjs <dir> [--suffix .test.ts] [--exclude .pg.test.ts] [node --test flags…]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const dir = args.shift() ?? 'test';
let suffix = '.test.ts';
let exclude;
let allowEmpty = false;
const passThrough = [];
while (args.length > 0) {
  const a = args.shift();
  if (a === '--suffix') suffix = args.shift();
  else if (a === '--exclude') exclude = args.shift();
  else if (a === '--allow-empty') allowEmpty = true;
  else passThrough.push(a);
}

function walk(d) {
  const out = [];
  if (!existsSync(d)) return out;
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (p.endsWith(suffix) && !(exclude && p.endsWith(exclude))) out.push(p);
  }
  return out;
}

const files = walk(dir);
if (files.length === 0) {
  console.error(`no ${suffix} files under ${dir}`);
  process.exit(allowEmpty ? 0 : 1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...passThrough, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);

#!/usr/bin/env node
// Node 20's test runner takes no globs: find the test files ourselves.
// usage: node scripts/test.mjs <dir> [--suffix .test.ts] [--exclude .pg.test.ts] [--allow-empty]
//        [--unit [--leave-out <module>]…] [--list] [node --test flags…]
//   --unit       only the unit tests: the files that need nothing but this Node process (whyNotUnit)
//   --leave-out  with --unit, also leave out the files that load this module (a path from the package)
//   --list       print the files chosen (with --unit, also each one left out, and why) instead of running them
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const args = process.argv.slice(2);
const dir = args.shift() ?? 'test';
let suffix = '.test.ts';
let exclude;
let allowEmpty = false;
let isUnit = false;
let isList = false;
const leaveOut = [];
const passThrough = [];
while (args.length > 0) {
  const a = args.shift();
  if (a === '--suffix') suffix = args.shift();
  else if (a === '--exclude') exclude = args.shift();
  else if (a === '--allow-empty') allowEmpty = true;
  else if (a === '--unit') isUnit = true;
  else if (a === '--list') isList = true;
  else if (a === '--leave-out') leaveOut.push(args.shift());
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

// What keeps a test out of the unit set, found in its own imports or in those of the modules it
// loads from this package (helpers, suites, fixtures, sources): a browser, a child process (a
// gateway or CLI process, openssl, or a recipe's PHP, Python, Java or Go), or a module named with
// --leave-out (one measured too slow to load and start for a loop of under a minute).
const OUTSIDE_NODE = new Map([
  ['playwright-core', 'a browser (playwright-core)'],
  ['node:child_process', 'a child process'],
  ['child_process', 'a child process'],
]);
const leftOut = new Map(leaveOut.map((m) => [resolve(m), `${m} (--leave-out)`]));
// Type-only imports and exports load nothing at run time: they are not followed.
const IMPORT = /\b(?:import|export)\s*(type\s)?(?:[^'"();]*?\bfrom\s*|\(\s*)?['"]([^'"]+)['"]/g;

const packageRoot = resolve('.');
const specifiersByFile = new Map();

function specifiersOf(file) {
  if (!specifiersByFile.has(file)) {
    const matches = [...readFileSync(file, 'utf8').matchAll(IMPORT)];
    specifiersByFile.set(
      file,
      matches.filter((m) => m[1] === undefined).map((m) => m[2]),
    );
  }
  return specifiersByFile.get(file);
}

const isFile = (p) => existsSync(p) && statSync(p).isFile();

/** Why `file` is not a unit test (each reason once, where first found), or '' when it is one. */
function whyNotUnit(file) {
  const reasons = new Map();
  const modules = [file];
  for (const module of modules) {
    for (const specifier of specifiersOf(module)) {
      const imported = specifier.startsWith('.') ? resolve(dirname(module), specifier) : specifier;
      const reason = OUTSIDE_NODE.get(specifier) ?? leftOut.get(imported);
      if (reason !== undefined) {
        if (!reasons.has(reason)) reasons.set(reason, relative(packageRoot, module));
      } else if (imported.startsWith(packageRoot) && isFile(imported) && !modules.includes(imported)) {
        modules.push(imported);
      }
    }
  }
  return [...reasons].map(([reason, where]) => `${reason}, in ${where}`).join('; ');
}

let files = walk(dir);
if (isUnit) {
  const kept = [];
  for (const f of files) {
    const reason = whyNotUnit(resolve(f));
    if (reason === '') kept.push(f);
    else if (isList) console.log(`- ${f}  (${reason})`);
  }
  files = kept;
}
if (isList) {
  for (const f of files) console.log(`+ ${f}`);
  process.exit(0);
}
if (files.length === 0) {
  console.error(`no ${suffix} files under ${dir}`);
  process.exit(allowEmpty ? 0 : 1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...passThrough, ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);

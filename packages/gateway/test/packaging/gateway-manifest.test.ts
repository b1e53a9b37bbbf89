// The gateway's package.json names only files it has: its CLI (bin), and any entry point it
// declares. (It once exported ./src/index.ts, which did not exist.)
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));

/** Every file path in a manifest field (a string, or nested conditions and subpaths). */
const pathsIn = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : value !== null && typeof value === 'object'
      ? Object.values(value).flatMap(pathsIn)
      : [];

describe('the gateway package manifest', () => {
  it('names only files that exist in bin, main, types and exports', () => {
    const named = ['bin', 'main', 'types', 'exports'].flatMap((field) => pathsIn(manifest[field]));
    assert.ok(named.includes('./bin/snapgate.js'));
    assert.deepEqual(
      named.filter((p) => !existsSync(join(packageDir, p))),
      [],
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNestedDeeper, MAX_JSON_DEPTH, parseJsonBody } from '../src/index.ts';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('JSON bodies and their depth', () => {
  it('parses a body exactly MAX_JSON_DEPTH deep and refuses one level more as not JSON', () => {
    assert.deepEqual(parseJsonBody(bytes(nested(MAX_JSON_DEPTH)))?.constructor, Array);
    assert.equal(parseJsonBody(bytes(nested(MAX_JSON_DEPTH + 1))), undefined);
    assert.equal(parseJsonBody(bytes(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)), undefined);
  });

  it('counts objects and arrays alike, and nothing inside strings', () => {
    assert.equal(isNestedDeeper(bytes('{"a":[{"b":[1]}]}'), 4), false);
    assert.equal(isNestedDeeper(bytes('{"a":[{"b":[1]}]}'), 3), true);
    assert.equal(isNestedDeeper(bytes(JSON.stringify({ s: '[[[[{{{{' })), 1), false);
    // An escaped quote does not end the string; an escaped backslash does not escape the quote.
    assert.equal(isNestedDeeper(bytes(JSON.stringify({ s: 'a"[[[[' })), 1), false);
    assert.equal(isNestedDeeper(bytes('{"s":"a\\\\"}'), 1), false);
    assert.equal(isNestedDeeper(bytes('{"s":"a\\\\","t":[[1]]}'), 2), true);
    // Multi-byte UTF-8 text never hides a bracket.
    assert.equal(isNestedDeeper(bytes(JSON.stringify({ s: 'Rp 1.000 ✓ 日本' })), 1), false);
  });

  it('still parses ordinary bodies and refuses what is not JSON', () => {
    assert.deepEqual(parseJsonBody(bytes('{"a":1}')), { a: 1 });
    assert.equal(parseJsonBody(bytes('')), undefined);
    assert.equal(parseJsonBody(bytes('{')), undefined);
  });
});

// The SNAP guard looks for bad text (control characters, lone surrogates) in a body's strings only
// when its JSON bytes could hold one: the answer must be the same as walking every string.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstBadTextField, firstBadTextFieldOfJson } from '../../src/text.ts';

const check = (json: string) => {
  const raw = Buffer.from(json, 'utf8');
  return firstBadTextFieldOfJson(raw, JSON.parse(raw.toString('utf8')));
};

describe('bad text, judged from the JSON bytes first', () => {
  it('finds what arrives as an escape or a raw DEL, in values and keys, and passes clean bodies', () => {
    assert.equal(check('{"a":"x\\by"}'), 'a', 'backspace, escaped');
    assert.equal(check('{"a":{"b":["ok","\\u0000"]}}'), 'a.b[1]', 'NUL, escaped');
    assert.equal(check('{"a":"\\ud800"}'), 'a', 'a lone surrogate, escaped');
    assert.equal(check('{"a":"x\u007f"}'), 'a', 'a raw DEL byte');
    assert.equal(check('{"\\u0001":1}'), 'body', 'in a key');
    assert.equal(check('{"a":"line\\nbreak\\ttab","u":"a\\/b","e":"\\ud83d\\ude00"}'), undefined);
    assert.equal(check('{"a":"Budi Santoso","n":"Rp 10.000,00 — ünïcode 😀"}'), undefined);
    // Bytes that are not UTF-8 decode to U+FFFD, never to a lone surrogate.
    const raw = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    assert.equal(firstBadTextFieldOfJson(raw, JSON.parse(raw.toString('utf8'))), undefined);
  });

  it('agrees with walking every string, for bodies of random code units sent raw and escaped', () => {
    // Code units from every class the rule tells apart: controls, tab/LF/CR, DEL, surrogates, others.
    const units = [
      0x00, 0x08, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x41, 0x7f, 0x80, 0xe9, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd,
    ];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 3000; round++) {
      let text = '';
      for (let i = random(4); i > 0; i--) text += String.fromCharCode(units[random(units.length)] as number);
      const body = { a: 'x', [random(2) === 0 ? 'k' : text]: [text, { n: 1 }] };
      const json = JSON.stringify(body); // escapes what JSON must; DEL and non-ASCII stay raw
      assert.equal(check(json), firstBadTextField(JSON.parse(json)), json);
    }
  });
});

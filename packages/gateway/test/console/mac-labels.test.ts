// The console's one-time cookie is sealed under mac(ONCE_KEY_LABEL): the same mac() under the
// sessions' key whose results pages show (CSRF tokens) and cookies carry (notices). That key stays
// secret only while no request can make the gateway compute, and show, mac() of that label. Every
// other mac() input is a prefix written in the code (a lower-case word and a dot) followed by what a
// request chooses; the label starts with a NUL, which no such prefix does. This holds every mac(),
// checkMac() and CSRF text of the gateway's source to that shape, and the label to its own.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ONCE_KEY_LABEL } from '../../src/console/session.ts';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (entry.name.endsWith('.ts')) out.push({ file: path.slice(SRC.length), text: readFileSync(path, 'utf8') });
  }
  return out;
}

/** A literal argument (template or string) or an identifier. */
const ARG = String.raw`(\`(?:[^\`\\]|\\.)*\`|'[^']*'|[A-Za-z_$][\w$]*)`;
/** What is MACed: `x.mac(ARG`, `x.checkMac(ARG`, and the CSRF text of `checkCsrf(_, _, ARG` and `acceptForm(_, _, ARG`. */
const CALLS = [
  new RegExp(String.raw`\.(?:mac|checkMac)\(\s*${ARG}`, 'g'),
  new RegExp(String.raw`(?<!function )\b(?:checkCsrf|acceptForm)\(\s*[^,()]+,\s*[^,()]+,\s*${ARG}`, 'g'),
];
/** Arguments that only pass a text on, each where it does. */
const PASSED_ON = new Set([
  'operators/sessions.ts text', // the session service's mac() and checkMac(), to its signer's
  'console/kit.ts csrfText', // checkCsrf() of acceptForm(), whose callers are checked here
  'console/session.ts ONCE_KEY_LABEL', // the sealing key itself
]);
/** Every prefix a MACed text starts with: each followed by what a request may choose. */
const PREFIXES = ['csrf', 'key', 'next', 'notice', 'pre'];

describe('mac() inputs: the one-time cookie’s sealing label is apart from every other', () => {
  const found: Array<{ file: string; arg: string }> = [];
  for (const { file, text } of sources(SRC)) {
    for (const re of CALLS) for (const m of text.matchAll(re)) found.push({ file, arg: m[1] as string });
  }

  it('every mac(), checkMac() and CSRF text is a literal that starts with a lower-case word and a dot, or a known pass-through', () => {
    assert.ok(found.length >= 10, `the calls are found: ${JSON.stringify(found)}`);
    const prefixes = new Set<string>();
    for (const { file, arg } of found) {
      if (/^[A-Za-z_$]/.test(arg)) {
        assert.ok(PASSED_ON.has(`${file} ${arg}`), `${file}: mac() of ${arg}, a text that is not a literal`);
        continue;
      }
      const prefix = /^[`'"]([a-z]+)\./.exec(arg)?.[1];
      assert.ok(prefix, `${file}: mac() of ${arg}, which does not start with a word and a dot`);
      prefixes.add(prefix);
    }
    // A new prefix is fine, as long as it is a word: this list makes it a decision.
    assert.deepEqual([...prefixes].sort(), PREFIXES);
  });

  it('the signer itself MACs `mac.` + text and `session.` + a token body, nothing else', () => {
    const sessions = readFileSync(join(SRC, 'operators/sessions.ts'), 'utf8');
    const inner = [...sessions.matchAll(/macOf\(\s*(`[^`]*`)/g)].map((m) => /^`([a-z]+)\./.exec(m[1] as string)?.[1]);
    assert.deepEqual([...new Set(inner)].sort(), ['mac', 'session']);
  });

  it('the sealing label starts with a NUL, which no prefix does, so no request reaches it', () => {
    assert.equal(ONCE_KEY_LABEL.charCodeAt(0), 0);
    for (const p of PREFIXES) assert.ok(!ONCE_KEY_LABEL.startsWith(p));
    // Once under the signer: `mac.` + the label, never `mac.<word>.` + anything.
    assert.doesNotMatch(`mac.${ONCE_KEY_LABEL}`, /^mac\.[a-z]+\./);
  });
});

// Text no field may carry: C0 controls but tab, line feed and carriage return, DEL, and a UTF-16
// surrogate without its pair (JSON's \ud800 escape). PostgreSQL cannot store NUL or a lone
// surrogate, and no SNAP field means either: both stores refuse them alike, at the edge.
/**
 * How many UTF-16 units at `i` make one allowed character: 1, or 2 for a surrogate pair; 0 when
 * the unit there is not allowed (the one rule isBadText and storableText both follow).
 */
function allowedAt(s: string, i: number): 0 | 1 | 2 {
  const c = s.charCodeAt(i);
  if (c < 0x20) return c === 0x09 || c === 0x0a || c === 0x0d ? 1 : 0;
  if (c === 0x7f || (c >= 0xdc00 && c <= 0xdfff)) return 0;
  if (c >= 0xd800 && c <= 0xdbff) return (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 0;
  return 1;
}

/** True when a string holds a control character or a lone surrogate. */
export function isBadText(s: string): boolean {
  return badTextIndex(s) !== -1;
}

/** Where the first control character or lone surrogate of a string is; -1 when there is none. */
export function badTextIndex(s: string): number {
  for (let i = 0; i < s.length; ) {
    const n = allowedAt(s, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

/**
 * The path of the first string (a value or a key, at any depth) of a parsed JSON body that holds
 * bad text, e.g. `additionalInfo.note`; `undefined` when all of it is clean. Iterative: a body
 * nested thousands deep is walked without growing the call stack.
 */
export function firstBadTextField(value: unknown): string | undefined {
  const pending: Array<[unknown, string]> = [[value, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, path] = next;
    if (typeof v === 'string') {
      if (isBadText(v)) return path;
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    const children: Array<[unknown, string]> = [];
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        children.push([item, `${path}[${i}]`]);
      });
    } else {
      for (const [key, item] of Object.entries(v)) {
        if (isBadText(key)) return path || 'body';
        children.push([item, path ? `${path}.${key}` : key]);
      }
    }
    // Depth first, in document order.
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i] as [unknown, string]);
  }
  return undefined;
}

const BACKSLASH = 0x5c;
const DEL = 0x7f;

/**
 * firstBadTextField of a body parsed from the JSON bytes `raw`, skipping the walk when the bytes
 * alone show every string is clean. JSON carries a control character (but as a raw DEL) or a lone
 * surrogate only as an escape: a raw control character is not JSON, and decoding UTF-8 never
 * yields a lone surrogate (an invalid sequence becomes U+FFFD). Without a backslash or a DEL byte
 * there is nothing to find (measured: the walk was about 1 % of a payment call).
 */
export function firstBadTextFieldOfJson(raw: Uint8Array, body: unknown): string | undefined {
  if (raw.indexOf(BACKSLASH) === -1 && raw.indexOf(DEL) === -1) return undefined;
  return firstBadTextField(body);
}

/**
 * Text from outside (a merchant's answer, a provider's request body) made storable as a log
 * record: control characters but tab and line breaks, and unpaired surrogates, become U+FFFD. A
 * NUL byte in one merchant's answer must not refuse the batch of attempts it is recorded with.
 */
export function storableText(s: string): string {
  if (!isBadText(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; ) {
    const n = allowedAt(s, i);
    out += n === 0 ? '\ufffd' : s.slice(i, i + n);
    i += n || 1;
  }
  return out;
}

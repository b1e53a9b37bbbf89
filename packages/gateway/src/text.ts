// Text no field may carry: C0 controls but tab, line feed and carriage return, DEL, and a UTF-16
// surrogate without its pair (JSON's \ud800 escape). PostgreSQL cannot store NUL or a lone
// surrogate, and no SNAP field means either: both stores refuse them alike, at the edge.
/** True when a string holds a control character or a lone surrogate. */
export function isBadText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      if (c !== 0x09 && c !== 0x0a && c !== 0x0d) return true;
    } else if (c === 0x7f || (c >= 0xdc00 && c <= 0xdfff)) {
      return true;
    } else if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return true;
      i++;
    }
  }
  return false;
}

/**
 * The path of the first string (a value or a key, at any depth) of a parsed JSON body that holds
 * bad text, e.g. `additionalInfo.note`; `undefined` when all of it is clean.
 */
export function firstBadTextField(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return isBadText(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = firstBadTextField(value[i], `${path}[${i}]`);
      if (bad !== undefined) return bad;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (isBadText(key)) return path || 'body';
    const bad = firstBadTextField(v, at);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

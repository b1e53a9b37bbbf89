/**
 * The deepest nesting of arrays and objects a body may have. Every SNAP and admin body is a few
 * levels deep; a body nested thousands deep (still under the size limit) would only make code that
 * walks it, such as a redaction or a validator, run out of stack.
 */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether raw JSON bytes nest arrays and objects deeper than `maxDepth`, judged from the bytes
 * alone, before anything is parsed. Brackets inside strings do not count; UTF-8 never puts these
 * ASCII bytes inside a multi-byte character.
 *
 * @example
 * isNestedDeeper(Buffer.from('[[1]]'), 1); // true
 */
export function isNestedDeeper(raw: Uint8Array, maxDepth: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i];
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) inString = true;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth--;
  }
  return false;
}

/**
 * Parses a raw request body as JSON; `undefined` when it is not JSON at all, or nests deeper than
 * {@link MAX_JSON_DEPTH}. The bytes stay the caller's: signatures are always checked over them,
 * never over a re-serialisation.
 *
 * @example
 * parseJsonBody(Buffer.from('{"a":1}')); // { a: 1 }
 */
export function parseJsonBody(raw: Uint8Array): unknown {
  if (raw.length === 0 || isNestedDeeper(raw)) return undefined;
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Whether a parsed JSON value is an object (not an array, not null). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Media type without parameters, lower case.
 *
 * @example
 * mediaType('Application/JSON; charset=utf-8'); // 'application/json'
 */
export function mediaType(contentType: string): string {
  const i = contentType.indexOf(';');
  return (i === -1 ? contentType : contentType.slice(0, i)).trim().toLowerCase();
}

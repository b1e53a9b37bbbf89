/**
 * Parses a raw request body as JSON; `undefined` when it is not JSON at all. The bytes stay the
 * caller's: signatures are always checked over them, never over a re-serialisation.
 *
 * @example
 * parseJsonBody(Buffer.from('{"a":1}')); // { a: 1 }
 */
export function parseJsonBody(raw: Uint8Array): unknown {
  if (raw.length === 0) return undefined;
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

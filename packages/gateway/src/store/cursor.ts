import { invalid } from '../domain-error.ts';
import { isBadText } from '../text.ts';

// Opaque list cursors: base64url of the sort key of the last item shown.
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * The sort key inside a cursor. A cursor this gateway did not issue (not the exact spelling
 * `encodeCursor` writes, a key out of range, text no column may hold) is refused, never read as
 * "from the start": the operator asked for a page that does not exist.
 */
export function decodeCursor(cursor: string): [number, string] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  if (
    Array.isArray(v) &&
    v.length === 2 &&
    Number.isSafeInteger(v[0]) &&
    (v[0] as number) >= 0 &&
    typeof v[1] === 'string' &&
    v[1].length <= 200 &&
    !isBadText(v[1]) &&
    encodeCursor(v) === cursor
  ) {
    return [v[0] as number, v[1]];
  }
  throw invalid('cursor: not a cursor this gateway issued', [
    'cursor: not a cursor this gateway issued (take nextCursor from a list answer, or leave it out)',
  ]);
}

/** Cuts one extra fetched row into the next cursor. */
export function toPage<T>(
  rows: T[],
  limit: number,
  keyOf: (row: T) => [number, string],
): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(keyOf(items[items.length - 1] as T)) };
}

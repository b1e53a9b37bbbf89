// Opaque list cursors: base64url of the sort key of the last item shown.
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key inside a cursor, or `undefined` when the cursor is not one of ours. */
export function decodeCursor(cursor: string): [number, string] | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'number' && typeof v[1] === 'string') {
      return [v[0], v[1]];
    }
  } catch {
    // fall through: not a cursor of ours
  }
  return undefined;
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

import type { Row } from './rows.ts';

export type Dialect = 'sqlite' | 'postgres';

/**
 * How the parts of the store (store/parts/) run a statement written once for both engines: `?`
 * placeholders in order, values as the engines both take them (text, numbers, null; a boolean
 * through `bool`). Each store supplies one; a unique violation comes back as UniqueViolation.
 */
export interface Sql {
  readonly dialect: Dialect;
  /** The rows of a query, or of a statement with RETURNING. */
  all(text: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a statement; how many rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<number>;
  /** A boolean as this engine stores it (SQLite has none: 0 or 1). */
  bool(value: boolean): unknown;
}

const numbered = new Map<string, string>();

/**
 * `?` → `$1 … $n` for PostgreSQL, once per statement text. Placeholders are never written inside
 * quoted text or identifiers here, and no statement uses PostgreSQL's `?` JSON operators.
 */
export function numberedPlaceholders(text: string): string {
  let out = numbered.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    numbered.set(text, out);
  }
  return out;
}

/** The first row of a statement's answer, if any. */
export const firstRow = async (rows: Promise<Row[]>): Promise<Row | undefined> => (await rows)[0];

import type Database from 'better-sqlite3';
import { UniqueViolation } from '../../records/records.ts';

// What both of the embedded store's connections use: SQLite's constraint errors as the store reports
// them, and statements prepared once per text.

export function isUniqueError(e: unknown): e is Error & { code: string; message: string } {
  return (
    e instanceof Error &&
    ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' ||
      (e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}

/** Turns `UNIQUE constraint failed: merchants.partner_id` into `merchants.partner_id`. */
export function uniqueViolation(e: Error): UniqueViolation {
  const m = /constraint failed: (.+)$/.exec(e.message);
  return new UniqueViolation(m?.[1] ?? 'unknown', e);
}

/** Statements built from a patch's columns or a part's text: prepared once per distinct SQL text. */
export function preparedOnce(db: Database.Database): (sql: string) => Database.Statement {
  const statements = new Map<string, Database.Statement>();
  return (sql) => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      statements.set(sql, st);
    }
    return st;
  };
}

import { UniqueViolation } from '../store.ts';

// SQLite's constraint errors as the store reports them.

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

import { OUTBOUND_SECRET_FIELDS, SECRET_COLUMNS, SECRET_TABLES } from '../client-rows.ts';
import type { Sql } from '../sql.ts';

// Secrets at rest, as the master-key status reads them: counted, never locked or written (the
// engines' resealSecrets rewrites them).

/** A field of a JSON text column, as each engine reads it. */
const jsonField = (sql: Sql, column: string, field: string) =>
  sql.dialect === 'sqlite' ? `json_extract(${column}, '$.${field}')` : `(${column}::json ->> '${field}')`;

/**
 * How many stored secrets (the values resealSecrets passes: the secret columns, the secret fields
 * of providers' outbound JSON, the settings named) begin with each `headChars` characters.
 */
export async function countSecretsByHead(
  sql: Sql,
  headChars: number,
  settings: ReadonlySet<string>,
): Promise<Record<string, number>> {
  if (!Number.isInteger(headChars) || headChars < 1) throw new TypeError('headChars: a positive integer');
  const values: string[] = [];
  for (const table of SECRET_TABLES) {
    for (const column of SECRET_COLUMNS[table]) {
      if (column === 'outbound') {
        for (const field of OUTBOUND_SECRET_FIELDS)
          values.push(`SELECT ${jsonField(sql, column, field)} AS v FROM ${table}`);
      } else {
        values.push(`SELECT ${column} AS v FROM ${table}`);
      }
    }
  }
  const keys = [...settings];
  if (keys.length > 0) values.push(`SELECT value AS v FROM settings WHERE key IN (${keys.map(() => '?').join(', ')})`);
  const head = `substr(v, 1, ${headChars})`;
  const rows = await sql.all(
    `SELECT ${head} AS head, count(*) AS n FROM (${values.join(' UNION ALL ')}) AS secrets
     WHERE v IS NOT NULL GROUP BY ${head}`,
    keys,
  );
  return Object.fromEntries(rows.map((r) => [String(r.head), Number(r.n)]));
}

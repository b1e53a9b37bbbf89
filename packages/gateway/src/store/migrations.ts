import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads `NNN_name.sql` files from a folder, in order. */
export function readMigrations(folder: URL): Migration[] {
  const dir = fileURLToPath(folder);
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(`${dir}/${f}`, 'utf8') }));
}

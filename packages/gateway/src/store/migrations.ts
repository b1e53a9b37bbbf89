import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import type { Dialect } from './sql.ts';

export interface Migration {
  version: number;
  /** `NNN_name.sql`, as schema_migrations records it, whichever dialect's file it came from. */
  name: string;
  sql: string;
}

/** One row of schema_migrations. */
export interface AppliedMigration {
  version: number;
  name: string;
  appliedAt: number;
}

const FOLDER = new URL('./migrations/', import.meta.url);
const FILE = /^(\d{3})_([a-z0-9_]+?)(?:\.(sqlite|postgres))?\.sql$/;

/**
 * The one numbered migration sequence both stores follow (store/migrations/). A step is either
 * `NNN_name.sql`, the same for both, or a pair `NNN_name.sqlite.sql` + `NNN_name.postgres.sql`
 * where the engines differ (types, STRICT tables, triggers). Every version exists for both
 * dialects: a step one engine does not need is a file that says why and does nothing.
 */
export function readMigrations(dialect: Dialect, folder: URL = FOLDER): Migration[] {
  const dir = fileURLToPath(folder);
  const steps = new Map<number, { stem: string; shared?: string; sqlite?: string; postgres?: string }>();
  for (const file of readdirSync(dir).sort()) {
    const m = FILE.exec(file);
    if (!m) continue;
    const [, digits, stem, only] = m as unknown as [string, string, string, Dialect | undefined];
    const version = Number(digits);
    const step = steps.get(version) ?? { stem };
    if (step.stem !== stem) throw new TypeError(`migration ${digits} has two names: ${step.stem} and ${stem}`);
    step[only ?? 'shared'] = file;
    steps.set(version, step);
  }
  const versions = [...steps.keys()].sort((a, b) => a - b);
  return versions.map((version, i) => {
    const step = steps.get(version) as { stem: string; shared?: string; sqlite?: string; postgres?: string };
    if (version !== i + 1) throw new TypeError(`migration ${version} follows ${i}: the sequence has a gap`);
    const isShared = step.shared !== undefined && step.sqlite === undefined && step.postgres === undefined;
    const isPaired = step.shared === undefined && step.sqlite !== undefined && step.postgres !== undefined;
    if (!isShared && !isPaired) {
      throw new TypeError(`migration ${version}_${step.stem}: one shared file, or one file for each dialect`);
    }
    const file = (step.shared ?? step[dialect]) as string;
    return {
      version,
      name: `${String(version).padStart(3, '0')}_${step.stem}.sql`,
      sql: readFileSync(`${dir}/${file}`, 'utf8'),
    };
  });
}

const stemOf = (name: string) => name.replace(/^\d{3}_/, '').replace(/(\.(sqlite|postgres))?\.sql$/, '');

/**
 * The history of a database migrated under an older numbering, renumbered to the one sequence
 * (matched by name: SQLite's files were once numbered apart from PostgreSQL's, without
 * `004_merchant_notify`); undefined when it needs no change. A row no migration names (written by
 * a newer snapgate) keeps its number.
 */
export function renumberedHistory(
  applied: readonly AppliedMigration[],
  migrations: readonly Migration[],
): AppliedMigration[] | undefined {
  const byStem = new Map(migrations.map((m) => [stemOf(m.name), m]));
  let isChanged = false;
  const rows = applied.map((row) => {
    const m = byStem.get(stemOf(row.name));
    if (!m || (m.version === row.version && m.name === row.name)) return row;
    isChanged = true;
    return { version: m.version, name: m.name, appliedAt: row.appliedAt };
  });
  return isChanged ? rows : undefined;
}

import { firstRow, type Sql } from '../sql.ts';

// Settings: the gateway's own keys and first-run state, one value per name.

export async function getSetting(sql: Sql, key: string): Promise<string | undefined> {
  const r = await firstRow(sql.all('SELECT value FROM settings WHERE key = ?', [key]));
  return r ? String(r.value) : undefined;
}

/** The setting, created with `create()` when absent; a concurrent creator's value wins alike. */
export async function getOrCreateSetting(sql: Sql, key: string, create: () => string): Promise<string> {
  const existing = await getSetting(sql, key);
  if (existing !== undefined) return existing;
  await sql.run('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, create()]);
  return (await getSetting(sql, key)) as string;
}

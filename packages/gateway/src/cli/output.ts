// Text for people, --json for scripts.
export interface Output {
  json: boolean;
  out: (s: string) => void;
  err: (s: string) => void;
}

export function printRecord(o: Output, value: unknown): void {
  if (o.json) {
    o.out(JSON.stringify(value, null, 2));
    return;
  }
  o.out(formatRecord(value as Record<string, unknown>));
}

export function formatRecord(record: Record<string, unknown>, indent = ''): string {
  const width = Math.max(0, ...Object.keys(record).map((k) => k.length));
  const lines: string[] = [];
  for (const [k, v] of Object.entries(record)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      lines.push(`${indent}${k}:`, formatRecord(v as Record<string, unknown>, `${indent}  `));
    } else if (Array.isArray(v)) {
      lines.push(`${indent}${k.padEnd(width)}  [${v.length}]`);
      for (const item of v) {
        lines.push(
          typeof item === 'object' && item !== null
            ? formatRecord(item as Record<string, unknown>, `${indent}  - `)
            : `${indent}  - ${String(item)}`,
        );
      }
    } else {
      const text = typeof v === 'string' && v.includes('\n') ? `${v.split('\n')[0]}…` : String(v ?? '-');
      lines.push(`${indent}${k.padEnd(width)}  ${text}`);
    }
  }
  return lines.join('\n');
}

export function printTable(
  o: Output,
  value: { items: Record<string, unknown>[]; nextCursor?: string | null },
  columns: string[],
): void {
  if (o.json) {
    o.out(JSON.stringify(value, null, 2));
    return;
  }
  const rows = value.items.map((it) => columns.map((c) => String(it[c] ?? '-')));
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  o.out(line(columns));
  for (const r of rows) o.out(line(r));
  if (value.nextCursor) o.out(`(more: --cursor ${value.nextCursor})`);
}

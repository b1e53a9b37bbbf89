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

/** `{ value: '10000.00', currency: 'IDR' }` reads as `10000.00 IDR`. */
function isMoney(v: unknown): v is { value: unknown; currency: unknown } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 2 && keys.includes('value') && keys.includes('currency');
}

function scalar(v: unknown): string {
  if (isMoney(v)) return `${String(v.value)} ${String(v.currency)}`;
  if (typeof v === 'string' && v.includes('\n')) return `${v.split('\n')[0]}…`;
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v ?? '-');
}

/**
 * One `key  value` line per field; a nested object indented under its key; a list of objects as
 * one block per item, blocks separated by a blank line.
 */
export function formatRecord(record: Record<string, unknown>, indent = ''): string {
  const entries = Object.entries(record);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  const lines: string[] = [];
  entries.forEach(([k, v], index) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !isMoney(v)) {
      lines.push(`${indent}${k}:`);
      const inner = formatRecord(v as Record<string, unknown>, `${indent}  `);
      if (inner) lines.push(inner);
    } else if (Array.isArray(v)) {
      lines.push(`${indent}${k.padEnd(width)}  [${v.length}]`);
      const blocks = v.some((item) => item !== null && typeof item === 'object' && !isMoney(item));
      for (const item of v) {
        if (!blocks) {
          lines.push(`${indent}  - ${scalar(item)}`);
          continue;
        }
        lines.push('');
        lines.push(
          item !== null && typeof item === 'object' && !isMoney(item)
            ? formatRecord(item as Record<string, unknown>, `${indent}  `)
            : `${indent}  ${scalar(item)}`,
        );
      }
      // The blocks end with a blank line when more fields follow.
      if (blocks && v.length > 0 && index < entries.length - 1) lines.push('');
    } else {
      lines.push(`${indent}${k.padEnd(width)}  ${scalar(v)}`);
    }
  });
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
  const rows = value.items.map((it) => columns.map((c) => scalar(it[c])));
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

// Times and durations as people type them on a command line.

/** Jakarta has no daylight saving time: always UTC+07:00. */
const JAKARTA_OFFSET = '+07:00';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds → milliseconds; undefined if it is none of these. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d|w)?$/.exec(text.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * (UNIT_MS[m[2] ?? 's'] as number);
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/**
 * A point in time as an ISO string (UTC), from:
 * - a date alone, `2026-11-22`: midnight in Asia/Jakarta;
 * - an ISO date-time, `2026-11-22T10:00:00+07:00` (without an offset: Asia/Jakarta time);
 * - a time before now, `2h`, `30m`, `7d` (units ms, s, m, h, d, w).
 * Undefined if the text is none of these.
 */
export function parseSince(text: string, now: number = Date.now()): string | undefined {
  const t = text.trim();
  if (/^\d+(?:\.\d+)?(ms|s|m|h|d|w)$/.test(t)) {
    const ms = parseDuration(t);
    return ms === undefined ? undefined : new Date(now - ms).toISOString();
  }
  let iso: string;
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) iso = `${t}T00:00:00${JAKARTA_OFFSET}`;
  else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t))
    iso = `${t.replace(' ', 'T')}${JAKARTA_OFFSET}`;
  else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(t))
    iso = t.replace(' ', 'T');
  else return undefined;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls 2026-02-31 over to March: refuse a calendar date that does not exist.
  const [y, mo, d] = t.slice(0, 10).split('-').map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return undefined;
  return new Date(ms).toISOString();
}

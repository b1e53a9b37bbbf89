// docs/protocol.md#conventions: we accept any ISO 8601 date-time with seconds and a zone (Z, +07:00, +0700),
// fractional seconds allowed; we emit Asia/Jakarta time with a numeric offset.
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))$/;

const JAKARTA_OFFSET_MS = 7 * 3600 * 1000;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses a SNAP X-TIMESTAMP into epoch milliseconds, or `undefined` when it is not an
 * ISO 8601 date-time with seconds and a zone.
 *
 * @example
 * parseSnapTimestamp('2024-01-01T10:00:00+07:00'); // 1704078000000
 * parseSnapTimestamp('2024-01-01T03:00:00.123Z');  // 1704078000123
 */
export function parseSnapTimestamp(value: string): number | undefined {
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return undefined;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  // Every month has at least 28 days: the calendar is asked only about the 29th to the 31st.
  if (month < 1 || month > 12 || day < 1 || (day > 28 && day > daysInMonth(year, month))) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  let offsetMs = 0;
  if (m[8] !== 'Z') {
    const offH = Number(m[10]);
    const offM = Number(m[11]);
    if (offH > 14 || offM > 59) return undefined;
    offsetMs = (offH * 60 + offM) * 60_000 * (m[9] === '-' ? -1 : 1);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMs;
}

/** The last second formatted (Jakarta local) and its text. */
const formatted = { second: Number.NaN, text: '' };

/**
 * Formats epoch milliseconds as a SNAP timestamp in Asia/Jakarta time.
 *
 * @example
 * formatJakartaTimestamp(1704078000000); // '2024-01-01T10:00:00+07:00'
 */
export function formatJakartaTimestamp(epochMs: number): string {
  // Every answer and every signed call carries one, many in the same second: the last is kept.
  // A Date holds whole milliseconds (truncated), its text whole seconds (floored).
  const second = Math.floor(Math.trunc(epochMs + JAKARTA_OFFSET_MS) / 1000);
  if (second !== formatted.second) {
    formatted.text = `${new Date(second * 1000).toISOString().slice(0, 19)}+07:00`;
    formatted.second = second;
  }
  return formatted.text;
}

/**
 * The Asia/Jakarta calendar day of an instant, `YYYY-MM-DD` (the scope of X-EXTERNAL-ID).
 *
 * @example
 * jakartaDay(Date.parse('2024-01-01T18:00:00Z')); // '2024-01-02'
 */
export function jakartaDay(epochMs: number): string {
  // Every payment call asks, nearly always for the same day: the last day is kept. A Date holds
  // whole milliseconds (truncated), so the day is that of the truncated local instant.
  const local = Math.trunc(epochMs + JAKARTA_OFFSET_MS);
  if (local >= lastDay.start && local < lastDay.start + DAY_MS) return lastDay.text;
  const text = new Date(local).toISOString().slice(0, 10);
  const start = Math.floor(local / DAY_MS) * DAY_MS;
  // The last day a Date can hold has one instant only: never kept, so the next instant still throws.
  lastDay.start = start + DAY_MS <= MAX_DATE_MS ? start : Number.NaN;
  lastDay.text = text;
  return text;
}

const DAY_MS = 86_400_000;
const MAX_DATE_MS = 8.64e15;
/** The last Jakarta day given: where it starts (ms, local) and its text. */
const lastDay = { start: Number.NaN, text: '' };

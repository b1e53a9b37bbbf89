import { formatJakartaTimestamp, TRANSACTION_STATUS } from '@snapgate/snap';

// Times in Asia/Jakarta (WIB, UTC+7, no daylight saving), amounts in Rupiah: `Rp 15.000,00`.
const JAKARTA_OFFSET_MS = 7 * 3600_000;
const DAY_MS = 86_400_000;

/** `2026-11-24 06:03:38 WIB`; an em dash for no time. */
export function jakartaTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  return `${formatJakartaTimestamp(ms).slice(0, 19).replace('T', ' ')} WIB`;
}

/** `HH:MM` in Jakarta. */
export function jakartaMinute(ms: number): string {
  return jakartaTime(ms).slice(11, 16);
}

/** The start (epoch ms) of the Jakarta day `ms` falls in. */
export const jakartaDayStart = (ms: number) =>
  Math.floor((ms + JAKARTA_OFFSET_MS) / DAY_MS) * DAY_MS - JAKARTA_OFFSET_MS;

/**
 * A Jakarta wall-clock time typed as `2026-11-24T10:30[:15]` as epoch ms; undefined when malformed
 * or impossible (`2026-02-30` is no day: Date.parse would roll it over to March).
 */
function parseJakartaWallClock(text: string): number | undefined {
  const t = Date.parse(`${text}+07:00`);
  if (Number.isNaN(t)) return undefined;
  return formatJakartaTimestamp(t).slice(0, 19) === text ? t : undefined;
}

/** `2026-11-24` (a date input's value) as the epoch ms that Jakarta day starts; undefined when malformed. */
export function parseJakartaDate(value: string | undefined): number | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  return parseJakartaWallClock(`${value}T00:00:00`);
}

/** `2026-11-24T10:30` (a datetime-local input's value) read as Jakarta time. */
export function parseJakartaDateTime(value: string | undefined): number | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  return parseJakartaWallClock(value.length === 16 ? `${value}:00` : value);
}

/** An epoch ms as ISO 8601 in Jakarta time (`2026-11-24T10:30:00+07:00`), as the admin API reads times. */
export const jakartaIso = (ms: number) => `${formatJakartaTimestamp(ms).slice(0, 19)}+07:00`;

/** A SNAP money string (`15000.00`) as `Rp 15.000,00`. */
export function rupiah(value: string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return value;
  const whole = (m[2] as string).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  const cents = (m[3] ?? '').padEnd(2, '0').slice(0, 2);
  return `${m[1]}Rp ${whole},${cents}`;
}

/** A duration as `3 s`, `4 min`, `2 h 5 min`. */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h ${min % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export const statusName = (status: string) =>
  `${status} ${(TRANSACTION_STATUS as Record<string, string>)[status] ?? ''}`.trim();

/** A stored JSON text, indented as people read it; a text that is no JSON as it is; `none` for null. */
export function prettyJson(text: string | null, none = ''): string {
  if (text === null) return none;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

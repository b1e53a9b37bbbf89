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

/** `2026-11-24` (a date input's value) as the epoch ms that Jakarta day starts; undefined when malformed. */
export function parseJakartaDate(value: string | undefined): number | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
  const t = Date.parse(`${value}T00:00:00+07:00`);
  return Number.isNaN(t) ? undefined : t;
}

/** `2026-11-24T10:30` (a datetime-local input's value) read as Jakarta time. */
export function parseJakartaDateTime(value: string | undefined): number | undefined {
  if (!value || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const t = Date.parse(`${value.length === 16 ? `${value}:00` : value}+07:00`);
  return Number.isNaN(t) ? undefined : t;
}

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

import { compareMoney, isMoneyValue, jakartaDay, parseSnapTimestamp, toMinorUnits } from '@snapgate/snap';
import { badTextIndex, firstBadTextField } from '../text.ts';

// docs/books.md#reconciliation: a provider's report of the payments it saw, read from CSV or JSON,
// and set against the gateway's own records. Every line is either matched or carries a problem;
// a payment the gateway recorded in the report's days that no line names is a problem too.
// Amounts stay decimal strings and are compared in integer sen, never as floats.

export { jakartaDay };

/** One line of a provider's report. */
export interface ReportItem {
  /** 1-based position; a CSV header is not counted (a JSON item's index + 1). */
  line: number;
  referenceNo: string | null;
  providerReference: string | null;
  amount: string;
  paidAtMs: number;
  /** Two digits, '00' unless the report says otherwise. */
  status: string;
}

/** A report refused as a whole, naming the line and the field that made it so when there is one. */
export class ReportError extends Error {
  readonly line: number | null;
  readonly field: string | null;
  constructor(message: string, line: number | null = null, field: string | null = null) {
    super(message);
    this.name = 'ReportError';
    this.line = line;
    this.field = field;
  }
}

/** The CSV columns, in their order. */
const CSV_COLUMNS = ['referenceNo', 'providerReference', 'amount', 'paidAt', 'status'] as const;
/** A report larger than this is split by the provider or refused: it is read in memory at once. */
export const MAX_LINES = 100_000;
/** Longer than any reference a provider hands out; keeps one odd field from filling the problems. */
const MAX_FIELD_CHARS = 128;
const TWO_DIGITS = /^\d{2}$/;
const DAY_MS = 86_400_000;
const JAKARTA_OFFSET_MS = 7 * 3_600_000;

/** A line's fields as read, before they are checked; an absent reference or status is null. */
interface RawItem {
  referenceNo: string | null;
  providerReference: string | null;
  amount: string;
  paidAt: string;
  status: string | null;
}

/** Refuses a field: `where` is how the reader finds it again ("line 3", "items[2]"). */
function refuse(where: string, line: number, field: string, detail: string): ReportError {
  return new ReportError(`${where}: ${field} ${detail}`, line, field);
}

/** A field's value in a message, quoted (fields are at most 128 characters by then). */
const shown = (value: string) => JSON.stringify(value);

const hex = (n: number, digits: number) => n.toString(16).toUpperCase().padStart(digits, '0');

/** What the text a field may not hold is called, after "holds" (text.ts: controls, lone surrogates). */
const NOT_TEXT = 'a control character, an unpaired surrogate or a byte that is not UTF-8';

/**
 * The first unit of `value` no field may hold, named (`a NUL character (U+0000)`), or undefined.
 * A byte that is not UTF-8 reaches here as U+DC80–U+DCFF (report-reader.ts): in a CSV that is all
 * such a unit can be; in JSON it may also be an escape (`\udcff`).
 */
function badTextIn(value: string, isCsv: boolean): string | undefined {
  const at = badTextIndex(value);
  if (at === -1) return undefined;
  const unit = value.charCodeAt(at);
  if (unit === 0) return 'a NUL character (U+0000)';
  if (unit < 0xd800) return `a control character (U+${hex(unit, 4)})`;
  if (unit < 0xdc80 || unit > 0xdcff) return `an unpaired surrogate (U+${hex(unit, 4)})`;
  const byte = `a byte that is not UTF-8 (0x${hex(unit - 0xdc00, 2)})`;
  return isCsv ? byte : `${byte} or an unpaired surrogate (U+${hex(unit, 4)})`;
}

/**
 * Checks a line's fields in column order and turns them into a report item. Text no field may hold
 * (NUL, other controls but tab, CR and LF, lone surrogates, bytes that are not UTF-8) is refused
 * first: PostgreSQL cannot even compare it, and no reference means it.
 */
function itemOf(raw: RawItem, line: number, where: string, isCsv: boolean): ReportItem {
  for (const field of CSV_COLUMNS) {
    const value = raw[field];
    const bad = value === null ? undefined : badTextIn(value, isCsv);
    if (bad !== undefined) throw refuse(where, line, field, `holds ${bad}, which no field may hold`);
    if (value !== null && value.length > MAX_FIELD_CHARS)
      throw refuse(where, line, field, `is longer than ${MAX_FIELD_CHARS} characters`);
  }
  if (raw.referenceNo === null && raw.providerReference === null)
    throw refuse(where, line, 'referenceNo', 'and providerReference are both empty: one is needed to find the payment');
  if (!isMoneyValue(raw.amount))
    throw refuse(where, line, 'amount', `${shown(raw.amount)} is not a decimal with two fraction digits`);
  if (toMinorUnits(raw.amount) <= 0n) throw refuse(where, line, 'amount', `${shown(raw.amount)} is not more than zero`);
  const paidAtMs = parseSnapTimestamp(raw.paidAt);
  if (paidAtMs === undefined)
    throw refuse(
      where,
      line,
      'paidAt',
      `${shown(raw.paidAt)} is not an ISO 8601 date-time with seconds and an offset (2026-11-26T10:00:00+07:00)`,
    );
  const status = raw.status ?? '00';
  if (!TWO_DIGITS.test(status)) throw refuse(where, line, 'status', `${shown(status)} is not two digits`);
  return {
    line,
    referenceNo: raw.referenceNo,
    providerReference: raw.providerReference,
    amount: raw.amount,
    paidAtMs,
    status,
  };
}

/** Refuses a report with more lines than are read at once. */
function tooLong(): ReportError {
  return new ReportError(`the report has more than ${MAX_LINES} lines: split it`);
}

// --- CSV -------------------------------------------------------------------------------------------

/** One CSV record (RFC 4180): its fields, where the next one starts, and whether it was an empty line. */
interface CsvRecord {
  fields: string[];
  next: number;
  blank: boolean;
}

/** True when a line ends at `at`: LF, CRLF, or a CR that is the last character of the text. */
function endsLine(text: string, at: number): boolean {
  const c = text[at];
  return c === '\n' || (c === '\r' && (text[at + 1] === '\n' || at + 1 === text.length));
}

/** Where the record goes on after a line end at `at`. */
const afterLineEnd = (text: string, at: number) => (text[at] === '\r' && text[at + 1] === '\n' ? at + 2 : at + 1);

/** Where a record is, for a message: the header or its line. */
const whereOf = (line: number | null) => (line === null ? 'header' : `line ${line}`);

/** Reads a quoted field whose opening quote is at `at`: its value and the index after the closing quote. */
function readQuoted(text: string, at: number, line: number | null): { value: string; end: number } {
  let value = '';
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) throw new ReportError(`${whereOf(line)}: a quoted field is never closed`, line);
    value += text.slice(from, quote);
    if (text[quote + 1] !== '"') return { value, end: quote + 1 };
    value += '"';
    from = quote + 2;
  }
}

/** Reads an unquoted field starting at `at`: it runs to the next comma or line end. */
function readBare(text: string, at: number, line: number | null): { value: string; end: number } {
  let end = at;
  while (end < text.length && text[end] !== ',' && !endsLine(text, end)) end++;
  const value = text.slice(at, end);
  if (value.includes('"'))
    throw new ReportError(
      `${whereOf(line)}: a double quote inside an unquoted field (quote the whole field, "" for a quote)`,
      line,
    );
  return { value, end };
}

/**
 * Reads the record starting at `at`. More fields than the header's are refused as soon as they
 * appear, so a line of a million commas costs nothing.
 */
function readRecord(text: string, at: number, line: number | null): CsvRecord {
  if (at >= text.length || endsLine(text, at)) return { fields: [''], next: afterLineEnd(text, at), blank: true };
  const fields: string[] = [];
  let i = at;
  for (;;) {
    const { value, end } = text[i] === '"' ? readQuoted(text, i, line) : readBare(text, i, line);
    fields.push(value);
    if (fields.length > CSV_COLUMNS.length)
      throw new ReportError(
        `${whereOf(line)}: more than ${CSV_COLUMNS.length} fields, expected ${CSV_COLUMNS.join(',')}`,
        line,
      );
    if (end >= text.length) return { fields, next: end, blank: false };
    if (text[end] === ',') i = end + 1;
    else if (endsLine(text, end)) return { fields, next: afterLineEnd(text, end), blank: false };
    else
      throw new ReportError(
        `${whereOf(line)}: text after a closing quote (a field is quoted whole or not at all)`,
        line,
      );
  }
}

/** Refuses any header but exactly the report's columns, in their order. */
function checkHeader(fields: string[]): void {
  if (fields.length === CSV_COLUMNS.length && fields.every((name, i) => name === CSV_COLUMNS[i])) return;
  const found = fields.join(',');
  const bad = badTextIn(found, true);
  // Text no field may hold is named, never shown.
  if (bad !== undefined) throw new ReportError(`header: expected ${CSV_COLUMNS.join(',')}, found ${bad}`);
  const cut = found.length > MAX_FIELD_CHARS ? `${found.slice(0, MAX_FIELD_CHARS)}…` : found;
  throw new ReportError(`header: expected ${CSV_COLUMNS.join(',')}, found ${shown(cut)}`);
}

/** A CSV line's fields as a raw item: an empty reference is absent, an empty status '00'. */
function rawOfCsv(fields: string[], line: number): RawItem {
  if (fields.length !== CSV_COLUMNS.length)
    throw new ReportError(`line ${line}: ${fields.length} fields, expected ${CSV_COLUMNS.length}`, line);
  const [referenceNo, providerReference, amount, paidAt, status] = fields as [string, string, string, string, string];
  return {
    referenceNo: referenceNo === '' ? null : referenceNo,
    providerReference: providerReference === '' ? null : providerReference,
    amount,
    paidAt,
    status: status === '' ? null : status,
  };
}

/**
 * Reads a provider's CSV report: the header `referenceNo,providerReference,amount,paidAt,status`,
 * then one paid transaction a line. RFC 4180 quoting; LF or CRLF line ends; a UTF-8 BOM and blank
 * lines at the end are tolerated, a blank line between lines is not (a line would be miscounted).
 * Throws ReportError at the first fault, naming its line (the header is not counted) and field.
 *
 * @example
 * parseReportCsv('referenceNo,providerReference,amount,paidAt,status\r\nR1,,10000.00,2026-11-26T10:00:00+07:00,\r\n');
 * // [{ line: 1, referenceNo: 'R1', providerReference: null, amount: '10000.00', paidAtMs: …, status: '00' }]
 */
export function parseReportCsv(text: string): ReportItem[] {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const header = readRecord(body, 0, null);
  checkHeader(header.fields);
  const items: ReportItem[] = [];
  let blankLine: number | undefined;
  let line = 0;
  for (let at = header.next; at < body.length; ) {
    line++;
    const record = readRecord(body, at, line);
    at = record.next;
    if (record.blank) {
      blankLine ??= line;
      continue;
    }
    if (blankLine !== undefined) throw new ReportError(`line ${blankLine}: a blank line inside the report`, blankLine);
    if (line > MAX_LINES) throw tooLong();
    items.push(itemOf(rawOfCsv(record.fields, line), line, `line ${line}`, true));
  }
  return items;
}

// --- JSON ------------------------------------------------------------------------------------------

/** A JSON object's members, or undefined for anything else (arrays included). */
function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** An optional string member: absent, null and '' are all "not given". */
function optionalString(item: Record<string, unknown>, field: string, line: number, where: string): string | null {
  const value = item[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw refuse(where, line, field, 'must be a string');
  return value;
}

/** A required string member; a number is refused by name, since 12.5 cannot be told from 12.50. */
function requiredString(item: Record<string, unknown>, field: string, line: number, where: string): string {
  const value = item[field];
  if (typeof value === 'number')
    throw refuse(where, line, field, 'must be a string ("10000.00", "2026-11-26T10:00:00+07:00"), not a number');
  if (typeof value !== 'string') throw refuse(where, line, field, 'is missing or not a string');
  return value;
}

/** A JSON item's members as a raw item; members the report does not know are ignored. */
function rawOfJson(value: unknown, line: number, where: string): RawItem {
  const item = objectOf(value);
  if (item === undefined) throw new ReportError(`${where}: not an object`, line);
  return {
    referenceNo: optionalString(item, 'referenceNo', line, where),
    providerReference: optionalString(item, 'providerReference', line, where),
    amount: requiredString(item, 'amount', line, where),
    paidAt: requiredString(item, 'paidAt', line, where),
    status: optionalString(item, 'status', line, where),
  };
}

/**
 * Reads a provider's JSON report, `{ "items": [{ referenceNo?, providerReference?, amount, paidAt,
 * status? }] }`, by the CSV's rules; an item's line is its index + 1. Members the report does not
 * know are ignored, but may not hold what no field may either. Throws ReportError at the first
 * fault (its message names the item as `items[i]`).
 */
export function parseReportJson(body: unknown): ReportItem[] {
  const report = objectOf(body);
  const items = report?.items;
  if (!report || !Array.isArray(items))
    throw new ReportError('the report must be an object with an "items" array', null, 'items');
  if (items.length > MAX_LINES) throw tooLong();
  const { items: _items, ...others } = report;
  const badOther = firstBadTextField(others);
  if (badOther !== undefined) throw new ReportError(`${badOther || 'body'}: holds ${NOT_TEXT}`, null, badOther);
  return items.map((value: unknown, index) => {
    const where = `items[${index}]`;
    const item = itemOf(rawOfJson(value, index + 1, where), index + 1, where, false);
    const badMember = firstBadTextField(value);
    if (badMember !== undefined)
      throw refuse(where, index + 1, badMember === 'body' ? 'a member name' : badMember, `holds ${NOT_TEXT}`);
    return item;
  });
}

// --- Classification --------------------------------------------------------------------------------

/** A payment as the gateway recorded it, as the service hands it in. */
export interface GatewayPayment {
  referenceNo: string;
  /** The acquirer's originalReferenceNo or the bank's paymentRequestId, when known. */
  providerReference: string | null;
  status: '00' | '01' | '02' | '03' | '04' | '05' | '06';
  /** What was paid (paidAmount), else the transaction amount; null for an open VA never paid. */
  amount: string | null;
  paidAtMs: number | null;
}

/** The gateway's records of one provider, as classification reads them. */
export interface GatewayView {
  byReferenceNo(referenceNo: string): GatewayPayment | undefined;
  byProviderReference(providerReference: string): GatewayPayment | undefined;
  /** This provider's payments recorded as paid (status 00 or 04) with paidAtMs in [fromMs, untilMs). */
  paidBetween(fromMs: number, untilMs: number): GatewayPayment[];
}

export type ProblemType =
  | 'missing_at_gateway'
  | 'missing_at_provider'
  | 'amount_mismatch'
  | 'status_mismatch'
  | 'duplicate';

export interface Problem {
  /** The report's line; null for a payment only the gateway has. */
  line: number | null;
  type: ProblemType;
  referenceNo?: string;
  /** What the gateway has (a status or an amount). */
  expected?: string;
  /** What the report says. */
  actual?: string;
}

export interface Classification {
  /** The Jakarta day (YYYY-MM-DD) of the report's earliest payment. */
  from: string;
  /** The Jakarta day of its latest payment. */
  to: string;
  lines: number;
  /** Lines without a problem. */
  matched: number;
  problems: Problem[];
}

type GatewayStatus = GatewayPayment['status'];

/** Statuses the gateway counts as paid: a refunded payment was paid all the same. */
const PAID: ReadonlySet<string> = new Set<GatewayStatus>(['00', '04']);
/** Statuses of a payment still open: the provider has a payment the gateway has not yet heard of. */
const OPEN: ReadonlySet<string> = new Set<GatewayStatus>(['01', '02', '03']);

/**
 * The instant 00:00 +07:00 starts a Jakarta day (`YYYY-MM-DD`) in epoch ms.
 *
 * @example
 * jakartaDayStartMs('2026-11-26'); // Date.parse('2026-11-25T17:00:00Z')
 */
export function jakartaDayStartMs(day: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  const startMs = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) - JAKARTA_OFFSET_MS : Number.NaN;
  // Date.UTC rolls 2026-02-31 over to March: a day that does not exist is refused, not moved.
  if (!Number.isFinite(startMs) || jakartaDay(startMs) !== day) throw new TypeError(`not a day: ${shown(day)}`);
  return startMs;
}

/** A problem with only the parts it has: absent parts are left out, not undefined. */
function problem(line: number | null, type: ProblemType, parts: Omit<Problem, 'line' | 'type'> = {}): Problem {
  const out: Problem = { line, type };
  if (parts.referenceNo !== undefined) out.referenceNo = parts.referenceNo;
  if (parts.expected !== undefined) out.expected = parts.expected;
  if (parts.actual !== undefined) out.actual = parts.actual;
  return out;
}

/** The gateway's payment a line names: by referenceNo first, then by providerReference. */
function findPayment(item: ReportItem, gateway: GatewayView): GatewayPayment | undefined {
  const byReference = item.referenceNo === null ? undefined : gateway.byReferenceNo(item.referenceNo);
  if (byReference !== undefined) return byReference;
  return item.providerReference === null ? undefined : gateway.byProviderReference(item.providerReference);
}

/**
 * The keys that make two lines the same payment: the gateway's referenceNo when it knows the
 * payment; else each reference the line gives (a provider's reference is as unique as ours).
 * A referenceNo the gateway does not know cannot collide with one it does: the lookup would have found it.
 */
function keysOf(item: ReportItem, found: GatewayPayment | undefined): string[] {
  if (found !== undefined) return [`ref:${found.referenceNo}`];
  const keys: string[] = [];
  if (item.referenceNo !== null) keys.push(`ref:${item.referenceNo}`);
  if (item.providerReference !== null) keys.push(`provider:${item.providerReference}`);
  return keys;
}

/** The problem of a line the report says was paid ('00'), against a payment the gateway knows. */
function paidLineProblem(item: ReportItem, g: GatewayPayment): Problem | undefined {
  const referenceNo = g.referenceNo;
  if (OPEN.has(g.status))
    return problem(item.line, 'missing_at_gateway', { referenceNo, expected: g.status, actual: item.status });
  if (!PAID.has(g.status))
    return problem(item.line, 'status_mismatch', { referenceNo, expected: g.status, actual: item.status });
  // A paid payment without an amount is a fault of the records: it cannot match any amount.
  if (g.amount === null) return problem(item.line, 'amount_mismatch', { referenceNo, actual: item.amount });
  if (compareMoney(g.amount, item.amount) !== 0)
    return problem(item.line, 'amount_mismatch', { referenceNo, expected: g.amount, actual: item.amount });
  return undefined;
}

/** A line's problem, if it has one (its first occurrence; duplicates are told apart before). */
function lineProblem(item: ReportItem, g: GatewayPayment | undefined): Problem | undefined {
  if (g === undefined)
    return problem(item.line, 'missing_at_gateway', {
      referenceNo: item.referenceNo ?? undefined,
      actual: item.status,
    });
  if (item.status === '00') return paidLineProblem(item, g);
  // The report says not paid: a problem only when the gateway says paid; otherwise neither side has a payment.
  if (PAID.has(g.status))
    return problem(item.line, 'status_mismatch', {
      referenceNo: g.referenceNo,
      expected: g.status,
      actual: item.status,
    });
  return undefined;
}

/** The earliest and latest payment instants of a non-empty report. */
function spanOf(items: ReportItem[]): { earliestMs: number; latestMs: number } {
  let earliestMs = Number.POSITIVE_INFINITY;
  let latestMs = Number.NEGATIVE_INFINITY;
  for (const item of items) {
    if (item.paidAtMs < earliestMs) earliestMs = item.paidAtMs;
    if (item.paidAtMs > latestMs) latestMs = item.paidAtMs;
  }
  return { earliestMs, latestMs };
}

/** The gateway's paid payments in the report's days that no line named, oldest first. */
function missingAtProvider(gateway: GatewayView, from: string, to: string, named: Set<string>): Problem[] {
  const unnamed = new Map<string, GatewayPayment>();
  for (const g of gateway.paidBetween(jakartaDayStartMs(from), jakartaDayStartMs(to) + DAY_MS))
    if (!named.has(g.referenceNo)) unnamed.set(g.referenceNo, g);
  return [...unnamed.values()]
    .sort((a, b) => (a.paidAtMs ?? 0) - (b.paidAtMs ?? 0) || (a.referenceNo < b.referenceNo ? -1 : 1))
    .map((g) => problem(null, 'missing_at_provider', { referenceNo: g.referenceNo, expected: g.amount ?? undefined }));
}

/** How many lines classification reads between two pauses (a few milliseconds of work). */
const LINES_PER_SLICE = 1_000;

/**
 * Sets a provider's report against the gateway's records. Every line is matched or has one
 * problem; a later line for a payment an earlier line already named is a `duplicate` and nothing
 * else. The report covers whole Jakarta days, from its earliest payment's to its latest's: a
 * payment the gateway recorded as paid in them that no line names is `missing_at_provider`.
 * Problems come in line order, `missing_at_provider` last (by paidAtMs, then referenceNo).
 */
export function classifyReport(items: ReportItem[], gateway: GatewayView): Classification {
  const steps = classifying(items, gateway);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * classifyReport, awaiting `pause` after every few thousand lines: 100,000 lines take a few hundred
 * milliseconds, which must not hold the gateway's event loop at once (the service pauses with
 * setImmediate, so requests are answered between slices).
 */
export async function classifyReportInSlices(
  items: ReportItem[],
  gateway: GatewayView,
  pause: () => Promise<void>,
): Promise<Classification> {
  const steps = classifying(items, gateway);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/** classifyReport's work, yielding between slices of lines. */
function* classifying(items: ReportItem[], gateway: GatewayView): Generator<void, Classification> {
  if (items.length === 0) throw new ReportError('the report has no lines');
  const { earliestMs, latestMs } = spanOf(items);
  const from = jakartaDay(earliestMs);
  const to = jakartaDay(latestMs);
  const seen = new Set<string>();
  /** The gateway's referenceNos some line named, whatever its problem. */
  const named = new Set<string>();
  const problems: Problem[] = [];
  let read = 0;
  for (const item of [...items].sort((a, b) => a.line - b.line)) {
    if (++read % LINES_PER_SLICE === 0) yield;
    const found = findPayment(item, gateway);
    const keys = keysOf(item, found);
    if (keys.some((key) => seen.has(key))) {
      problems.push(
        problem(item.line, 'duplicate', { referenceNo: found?.referenceNo ?? item.referenceNo ?? undefined }),
      );
      continue;
    }
    for (const key of keys) seen.add(key);
    if (found !== undefined) named.add(found.referenceNo);
    const lineIssue = lineProblem(item, found);
    if (lineIssue !== undefined) problems.push(lineIssue);
  }
  const matched = items.length - problems.length;
  yield;
  for (const p of missingAtProvider(gateway, from, to, named)) problems.push(p);
  return { from, to, lines: items.length, matched, problems };
}

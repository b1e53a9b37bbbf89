import { formatJakartaTimestamp, fromMinorUnits } from '@snapgate/snap';
import type { SettlementRecord } from '../records/book-records.ts';

// docs/books.md#settlements: the settlement report a merchant downloads, one CSV row per payment,
// refund, disbursement or returned disbursement. It is opened in spreadsheets: text cells that a spreadsheet would run as a formula are
// defused, while the money columns stay plain numbers (a refund's amount is negative).

/** One payment, refund or disbursement of a settlement, in integer sen. */
export interface ReportRow {
  referenceNo: string;
  partnerReferenceNo: string;
  kind: 'payment' | 'refund' | 'disbursement' | 'disbursement_returned';
  paidAtMs: number;
  /** Refunds: positive here, written negative. */
  amountSen: bigint;
  /** A refund does not return the fee: written 0.00 for a refund whatever this is. */
  feeSen: bigint;
  providerId: string;
  providerReference: string | null;
  /** A refund's own number (`RF…`); null on every other row. */
  refundNo: string | null;
  /** The payment method of a payment's or a refund's transaction (`qris`, `va`); empty for a disbursement. */
  method: string;
  /** The provider's name, as the operator named it; empty when there is none. */
  providerName: string;
}

export const SETTLEMENT_CSV_HEADER =
  'referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName';

/** RFC 4180 line end, also what spreadsheets expect. */
const CRLF = '\r\n';
/** Characters a spreadsheet reads as the start of a formula (CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Characters that make a field need quotes. */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * Sen as a money string with a sign: fromMinorUnits refuses negatives, a refund is one.
 *
 * @example
 * signedMoney(150000n);  // '1500.00'
 * signedMoney(-150000n); // '-1500.00'
 */
export function signedMoney(sen: bigint): string {
  return sen < 0n ? `-${fromMinorUnits(-sen)}` : fromMinorUnits(sen);
}

/** Quotes per RFC 4180 when the value holds a comma, quote, CR or LF. */
const quoted = (value: string) => (NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/**
 * How a report is laid out: `data` for programs (the header on the first line, every cell as it
 * is), `spreadsheet` for people (a summary of the settlement above the table, and references made
 * only of digits written as text formulas, so a spreadsheet keeps all their digits and leading zeros
 * instead of showing 2.61123E+17).
 */
export type ReportLayout = 'data' | 'spreadsheet';
export const REPORT_LAYOUTS = ['data', 'spreadsheet'] as const satisfies readonly ReportLayout[];

/** Only digits: what a spreadsheet would read as a number. */
const DIGITS = /^\d+$/;

/**
 * A text cell: a leading formula character gets a `'` so that a spreadsheet shows it as text,
 * then quotes per RFC 4180 when the value holds a comma, quote, CR or LF. In the spreadsheet
 * layout, digits alone become `="…"` (quoted), which spreadsheets show as the text between.
 *
 * @example
 * textCell('261123482913770215', 'spreadsheet'); // '"=""261123482913770215"""'
 * textCell('=HYPERLINK(1)');                     // "'=HYPERLINK(1)"
 */
export function textCell(value: string, layout: ReportLayout = 'data'): string {
  if (layout === 'spreadsheet' && DIGITS.test(value)) return quoted(`="${value}"`);
  return quoted(FORMULA_START.test(value) ? `'${value}` : value);
}

/** The signed amount, fee and net of a row: a refund takes money back and charges nothing. */
function moneyOf(row: ReportRow): { amountSen: bigint; feeSen: bigint; netSen: bigint } {
  // A negative amount here would flip a refund into a credit: a caller's mistake, refused.
  if (row.amountSen < 0n || row.feeSen < 0n)
    throw new TypeError(`settlement row ${row.referenceNo}: amountSen and feeSen are never negative`);
  if (row.kind === 'refund') return { amountSen: -row.amountSen, feeSen: 0n, netSen: -row.amountSen };
  // A disbursement took its amount and fee; a returned one gives both back (net = amount − fee throughout).
  if (row.kind === 'disbursement') {
    return { amountSen: -row.amountSen, feeSen: row.feeSen, netSen: -(row.amountSen + row.feeSen) };
  }
  if (row.kind === 'disbursement_returned') {
    return { amountSen: row.amountSen, feeSen: -row.feeSen, netSen: row.amountSen + row.feeSen };
  }
  return { amountSen: row.amountSen, feeSen: row.feeSen, netSen: row.amountSen - row.feeSen };
}

/** One CSV line of a row, without its line end. */
function lineOf(row: ReportRow, layout: ReportLayout): string {
  const { amountSen, feeSen, netSen } = moneyOf(row);
  const text = (value: string) => textCell(value, layout);
  return [
    text(row.referenceNo),
    text(row.partnerReferenceNo),
    text(row.kind),
    text(formatJakartaTimestamp(row.paidAtMs)),
    signedMoney(amountSen),
    signedMoney(feeSen),
    signedMoney(netSen),
    text(row.providerId),
    text(row.providerReference ?? ''),
    text(row.refundNo ?? ''),
    text(row.method),
    text(row.providerName),
  ].join(',');
}

/** The header line, ended by CRLF. */
export const SETTLEMENT_CSV_HEAD = SETTLEMENT_CSV_HEADER + CRLF;

/** Rows as CSV lines, each ended by CRLF, without the header: a page of a streamed report. */
export const settlementCsvLines = (rows: ReportRow[], layout: ReportLayout = 'data'): string =>
  rows.map((row) => lineOf(row, layout) + CRLF).join('');

/**
 * The settlement report as CSV: the header, then one line per row in the order given, each ended
 * by CRLF. Payments: net = amount − fee. Refunds: amount and net negative, fee 0.00. Disbursements:
 * amount and net negative, net less the fee; returned ones: amount and net positive, the fee given
 * back (negative), so net = amount − fee on every row.
 *
 * @example
 * settlementCsv([{ referenceNo: 'R1', partnerReferenceNo: 'P1', kind: 'payment', paidAtMs: 0,
 *   amountSen: 1234500n, feeSen: 8600n, providerId: 'acq', providerReference: null, refundNo: null,
 *   method: 'qris', providerName: 'Acquirer' }]);
 * // 'referenceNo,…\r\nR1,P1,payment,1970-01-01T07:00:00+07:00,12345.00,86.00,12259.00,acq,,,qris,Acquirer\r\n'
 */
export const settlementCsv = (rows: ReportRow[]): string => SETTLEMENT_CSV_HEAD + settlementCsvLines(rows);

/** What the spreadsheet layout's summary says of a settlement: its own facts, and its merchant's name. */
export type ReportSummary = Pick<
  SettlementRecord,
  | 'id'
  | 'merchantId'
  | 'cutoff'
  | 'createdAt'
  | 'status'
  | 'count'
  | 'grossSen'
  | 'feesSen'
  | 'refundsSen'
  | 'disbursedSen'
  | 'returnedSen'
  | 'netSen'
  | 'paidAt'
  | 'bankReference'
> & { merchantName: string };

/**
 * The spreadsheet layout's top: a UTF-8 byte order mark (so that Excel reads names as UTF-8), one
 * `label,value` line per fact of the settlement, then an empty line before the table's header.
 * What comes off the gross (fees, refunds, disbursements) is written negative, so the lines from
 * Gross to Returned add up to Net.
 */
export function spreadsheetSummary(s: ReportSummary): string {
  const time = (ms: number | null) => (ms === null ? '' : formatJakartaTimestamp(ms));
  const lines: Array<[string, string]> = [
    ['Settlement report', textCell(s.id, 'spreadsheet')],
    ['Merchant', textCell(s.merchantName, 'spreadsheet')],
    ['Merchant id', textCell(s.merchantId, 'spreadsheet')],
    ['Entries up to', textCell(time(s.cutoff))],
    ['Made at', textCell(time(s.createdAt))],
    ['Status', textCell(s.status)],
    ['Payments', String(s.count)],
    ['Gross', signedMoney(s.grossSen)],
    ['Fees', signedMoney(-s.feesSen)],
    ['Refunds', signedMoney(-s.refundsSen)],
    ['Disbursed', signedMoney(-s.disbursedSen)],
    ['Returned', signedMoney(s.returnedSen)],
    ['Net', signedMoney(s.netSen)],
    ['Paid out at', textCell(time(s.paidAt))],
    ['Bank reference', textCell(s.bankReference ?? '', 'spreadsheet')],
  ];
  return `\uFEFF${lines.map(([label, value]) => `${label},${value}${CRLF}`).join('')}${CRLF}`;
}

/** The file a report downloads as: `settlement-<id>.csv`, `settlement-<id>-spreadsheet.csv`. */
export const reportFileName = (settlementId: string, layout: ReportLayout = 'data') =>
  layout === 'spreadsheet' ? `settlement-${settlementId}-spreadsheet.csv` : `settlement-${settlementId}.csv`;

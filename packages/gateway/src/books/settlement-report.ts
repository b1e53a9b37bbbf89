import { formatJakartaTimestamp, fromMinorUnits } from '@snapgate/snap';

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

/**
 * A text cell: a leading formula character gets a `'` so that a spreadsheet shows it as text,
 * then quotes per RFC 4180 when the value holds a comma, quote, CR or LF.
 */
function textCell(value: string): string {
  const defused = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(defused) ? `"${defused.replaceAll('"', '""')}"` : defused;
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
function lineOf(row: ReportRow): string {
  const { amountSen, feeSen, netSen } = moneyOf(row);
  return [
    textCell(row.referenceNo),
    textCell(row.partnerReferenceNo),
    textCell(row.kind),
    textCell(formatJakartaTimestamp(row.paidAtMs)),
    signedMoney(amountSen),
    signedMoney(feeSen),
    signedMoney(netSen),
    textCell(row.providerId),
    textCell(row.providerReference ?? ''),
    textCell(row.refundNo ?? ''),
    textCell(row.method),
    textCell(row.providerName),
  ].join(',');
}

/** The header line, ended by CRLF. */
export const SETTLEMENT_CSV_HEAD = SETTLEMENT_CSV_HEADER + CRLF;

/** Rows as CSV lines, each ended by CRLF, without the header: a page of a streamed report. */
export const settlementCsvLines = (rows: ReportRow[]): string => rows.map((row) => lineOf(row) + CRLF).join('');

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

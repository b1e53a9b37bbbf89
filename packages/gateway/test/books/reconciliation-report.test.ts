// docs/books.md#reconciliation: reading a provider's report (CSV and JSON) and setting it against
// the gateway's records.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyReport,
  classifyReportInSlices,
  type GatewayPayment,
  type GatewayView,
  jakartaDay,
  jakartaDayStartMs,
  parseReportCsv,
  parseReportJson,
  ReportError,
  type ReportItem,
} from '../../src/books/reconciliation-report.ts';

const HEADER = 'referenceNo,providerReference,amount,paidAt,status';
const at = (iso: string) => Date.parse(iso);
const csv = (...lines: string[]) => `${HEADER}\r\n${lines.map((l) => `${l}\r\n`).join('')}`;

/** Asserts a ReportError with this line and field whose message matches. */
function refused(run: () => unknown, line: number | null, field: string | null, message: RegExp): void {
  assert.throws(run, (e: unknown) => {
    assert.ok(e instanceof ReportError, String(e));
    assert.equal(e.name, 'ReportError');
    assert.match(e.message, message);
    assert.equal(e.line, line, e.message);
    assert.equal(e.field, field, e.message);
    return true;
  });
}

describe('parseReportCsv', () => {
  it('reads lines after the header, numbering from 1, with an empty status as 00 and empty references as null', () => {
    const items = parseReportCsv(
      csv(
        'R1,P1,10000.00,2026-11-26T10:00:00+07:00,00',
        'R2,,12.50,2026-11-26T03:00:00Z,',
        ',P3,0.01,2026-11-26T10:00:00.5+0700,05',
      ),
    );
    assert.deepEqual(items, [
      {
        line: 1,
        referenceNo: 'R1',
        providerReference: 'P1',
        amount: '10000.00',
        paidAtMs: at('2026-11-26T03:00:00Z'),
        status: '00',
      },
      {
        line: 2,
        referenceNo: 'R2',
        providerReference: null,
        amount: '12.50',
        paidAtMs: at('2026-11-26T03:00:00Z'),
        status: '00',
      },
      {
        line: 3,
        referenceNo: null,
        providerReference: 'P3',
        amount: '0.01',
        paidAtMs: at('2026-11-26T03:00:00.500Z'),
        status: '05',
      },
    ]);
  });

  it('tolerates a UTF-8 BOM, LF or CRLF line ends, a last line without an end or ending in a bare CR, and blank trailing lines', () => {
    const line = 'R1,P1,10.00,2026-11-26T10:00:00+07:00,00';
    const expected = parseReportCsv(`${HEADER}\n${line}\n`);
    assert.equal(expected.length, 1);
    for (const text of [
      `\uFEFF${HEADER}\r\n${line}\r\n`,
      `${HEADER}\n${line}`,
      `${HEADER}\r\n${line}\r`,
      `${HEADER}\r\n${line}\r\n\r\n\n\r\n`,
      `${HEADER}\n${line}\n\n`,
    ])
      assert.deepEqual(parseReportCsv(text), expected, JSON.stringify(text));
  });

  it('reads a header alone, or with blank lines after it, as no lines', () => {
    assert.deepEqual(parseReportCsv(HEADER), []);
    assert.deepEqual(parseReportCsv(`${HEADER}\r\n`), []);
    assert.deepEqual(parseReportCsv(`${HEADER}\r\n\r\n\r\n`), []);
  });

  it('reads RFC 4180 quoting: commas, "" escapes and line ends inside quotes; the line is the record, not the text line', () => {
    const items = parseReportCsv(
      csv(
        '"R,1","P ""one""","10.00","2026-11-26T10:00:00+07:00","00"',
        '"R\r\n2",,1.00,2026-11-26T10:00:00+07:00,""',
        'R3,"",2.00,2026-11-26T10:00:00+07:00,01',
      ),
    );
    assert.deepEqual(
      items.map((i) => [i.line, i.referenceNo, i.providerReference, i.status]),
      [
        [1, 'R,1', 'P "one"', '00'],
        [2, 'R\r\n2', null, '00'],
        [3, 'R3', null, '01'],
      ],
    );
    assert.deepEqual(
      parseReportCsv(`"referenceNo","providerReference",amount,"paidAt",status\nR1,,1.00,2026-11-26T10:00:00Z,`).length,
      1,
    );
  });

  it('refuses a header that is not exactly the columns in their order, or an empty text', () => {
    for (const header of [
      'referenceNo,providerReference,amount,paidAt',
      'referenceNo,providerReference,amount,paidAt,status,extra',
      'providerReference,referenceNo,amount,paidAt,status',
      'ReferenceNo,providerReference,amount,paidAt,status',
      'referenceNo, providerReference,amount,paidAt,status',
      '',
    ])
      refused(
        () => parseReportCsv(`${header}\r\nR1,,1.00,2026-11-26T10:00:00Z,00\r\n`),
        null,
        null,
        /^header: .*expected referenceNo,providerReference,amount,paidAt,status/,
      );
    refused(() => parseReportCsv(''), null, null, /^header: expected referenceNo,providerReference/);
    refused(() => parseReportCsv(`\r\n${HEADER}\r\n`), null, null, /^header/);
  });

  it('refuses broken quoting: never closed, text after a closing quote, a quote inside an unquoted field', () => {
    refused(
      () => parseReportCsv(csv('"R1,,1.00,2026-11-26T10:00:00Z,00')),
      1,
      null,
      /^line 1: a quoted field is never closed/,
    );
    refused(
      () => parseReportCsv(csv('R0,,1.00,2026-11-26T10:00:00Z,00', '"R1"x,,1.00,2026-11-26T10:00:00Z,00')),
      2,
      null,
      /^line 2: text after a closing quote/,
    );
    refused(
      () => parseReportCsv(csv('R"1,,1.00,2026-11-26T10:00:00Z,00')),
      1,
      null,
      /^line 1: a double quote inside an unquoted field/,
    );
  });

  it('refuses a line with too few or too many fields', () => {
    refused(() => parseReportCsv(csv('R1,,1.00,2026-11-26T10:00:00Z')), 1, null, /^line 1: 4 fields, expected 5/);
    refused(() => parseReportCsv(csv('R1,,1.00,2026-11-26T10:00:00Z,00,x')), 1, null, /^line 1: more than 5 fields/);
    refused(() => parseReportCsv(csv(`R1${','.repeat(1_000_000)}`)), 1, null, /^line 1: more than 5 fields/);
  });

  it('refuses a blank line between lines, naming it', () => {
    refused(
      () => parseReportCsv(csv('R1,,1.00,2026-11-26T10:00:00Z,00', '', 'R2,,1.00,2026-11-26T10:00:00Z,00')),
      2,
      null,
      /^line 2: a blank line inside the report/,
    );
  });

  it('refuses a line with neither referenceNo nor providerReference', () => {
    refused(
      () => parseReportCsv(csv('R1,,1.00,2026-11-26T10:00:00Z,00', ',,1.00,2026-11-26T10:00:00Z,00')),
      2,
      'referenceNo',
      /^line 2: referenceNo and providerReference are both empty/,
    );
  });

  it('refuses an amount that is not a decimal with two fraction digits, or not more than zero', () => {
    for (const amount of ['12.5', '12', '12.500', '-12.50', '1,000.00', ' 12.50', '0012.50', 'abc', '1e3'])
      refused(
        () => parseReportCsv(csv(`R1,,${amount.includes(',') ? `"${amount}"` : amount},2026-11-26T10:00:00Z,00`)),
        1,
        'amount',
        new RegExp(`^line 1: amount ${JSON.stringify(amount).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a decimal`),
      );
    refused(
      () => parseReportCsv(csv('R1,,12.5,2026-11-26T10:00:00Z,00')),
      1,
      'amount',
      /^line 1: amount "12.5" is not a decimal with two fraction digits$/,
    );
    refused(
      () => parseReportCsv(csv('R1,,0.00,2026-11-26T10:00:00Z,00')),
      1,
      'amount',
      /^line 1: amount "0.00" is not more than zero/,
    );
    refused(
      () => parseReportCsv(csv('R1,,,2026-11-26T10:00:00Z,00')),
      1,
      'amount',
      /^line 1: amount "" is not a decimal/,
    );
  });

  it('refuses a paidAt without an offset, without seconds, not a real date, or not ISO 8601', () => {
    for (const paidAt of [
      '2026-11-26T10:00:00',
      '2026-11-26 10:00:00+07:00',
      '2026-11-26T10:00+07:00',
      '2026-11-26',
      '2026-02-30T10:00:00+07:00',
      '2026-11-26T24:00:00+07:00',
      '26/11/2026 10:00',
      '1764126000000',
      '',
    ])
      refused(
        () => parseReportCsv(csv(`R1,,1.00,${paidAt},00`)),
        1,
        'paidAt',
        /^line 1: paidAt ".*" is not an ISO 8601 date-time with seconds and an offset/,
      );
  });

  it('refuses a status that is not two digits', () => {
    for (const status of ['0', '000', 'OK', ' 00', 'a1'])
      refused(
        () => parseReportCsv(csv(`R1,,1.00,2026-11-26T10:00:00Z,${status}`)),
        1,
        'status',
        /^line 1: status ".*" is not two digits/,
      );
  });

  it('refuses a field longer than 128 characters, naming it without repeating it', () => {
    const long = 'x'.repeat(129);
    assert.equal(parseReportCsv(csv(`${'x'.repeat(128)},,1.00,2026-11-26T10:00:00Z,00`))[0]?.referenceNo?.length, 128);
    refused(
      () => parseReportCsv(csv(`${long},,1.00,2026-11-26T10:00:00Z,00`)),
      1,
      'referenceNo',
      /^line 1: referenceNo is longer than 128 characters$/,
    );
    refused(
      () => parseReportCsv(csv(`R1,${long},1.00,2026-11-26T10:00:00Z,00`)),
      1,
      'providerReference',
      /longer than 128/,
    );
    refused(() => parseReportCsv(csv(`R1,,1.00,${long},00`)), 1, 'paidAt', /^line 1: paidAt is longer than 128/);
  });

  it('reads 100,000 lines and refuses 100,001', () => {
    const line = 'R,,1.00,2026-11-26T10:00:00Z,00\n';
    assert.equal(parseReportCsv(`${HEADER}\n${line.repeat(100_000)}\n\n`).length, 100_000);
    refused(() => parseReportCsv(`${HEADER}\n${line.repeat(100_001)}`), null, null, /more than 100000 lines/);
  });
});

describe('parseReportJson', () => {
  it('reads items by the same rules: line = index + 1, absent, null or empty references null, status 00 by default, extra members ignored', () => {
    const items = parseReportJson({
      items: [
        { referenceNo: 'R1', amount: '10.00', paidAt: '2026-11-26T10:00:00+07:00', note: 'ignored' },
        { providerReference: 'P2', referenceNo: null, amount: '1.50', paidAt: '2026-11-26T03:00:00Z', status: '05' },
        { referenceNo: '', providerReference: 'P3', amount: '2.00', paidAt: '2026-11-26T03:00:00Z', status: null },
      ],
      extra: true,
    });
    assert.deepEqual(items, [
      {
        line: 1,
        referenceNo: 'R1',
        providerReference: null,
        amount: '10.00',
        paidAtMs: at('2026-11-26T03:00:00Z'),
        status: '00',
      },
      {
        line: 2,
        referenceNo: null,
        providerReference: 'P2',
        amount: '1.50',
        paidAtMs: at('2026-11-26T03:00:00Z'),
        status: '05',
      },
      {
        line: 3,
        referenceNo: null,
        providerReference: 'P3',
        amount: '2.00',
        paidAtMs: at('2026-11-26T03:00:00Z'),
        status: '00',
      },
    ]);
    assert.deepEqual(parseReportJson({ items: [] }), []);
  });

  it('refuses a body that is not an object with an items array', () => {
    for (const body of [null, undefined, 'x', 1, [], {}, { items: {} }, { items: 'x' }])
      refused(() => parseReportJson(body), null, 'items', /an object with an "items" array/);
  });

  it('refuses an item that is not an object', () => {
    const ok = { referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' };
    for (const item of [null, 'R1', 5, [ok]])
      refused(() => parseReportJson({ items: [ok, item] }), 2, null, /^items\[1\]: not an object/);
  });

  it('refuses a number as amount, and a missing or non-string amount or paidAt', () => {
    const base = { referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' };
    refused(
      () => parseReportJson({ items: [{ ...base, amount: 1 }] }),
      1,
      'amount',
      /^items\[0\]: amount must be a string .* not a number/,
    );
    refused(() => parseReportJson({ items: [{ ...base, amount: 12.5 }] }), 1, 'amount', /not a number/);
    refused(
      () => parseReportJson({ items: [{ ...base, amount: undefined }] }),
      1,
      'amount',
      /amount is missing or not a string/,
    );
    refused(
      () => parseReportJson({ items: [{ ...base, amount: { value: '1.00' } }] }),
      1,
      'amount',
      /amount is missing/,
    );
    refused(
      () => parseReportJson({ items: [{ ...base, paidAt: 1764126000000 }] }),
      1,
      'paidAt',
      /paidAt must be a string .* not a number/,
    );
    refused(() => parseReportJson({ items: [{ ...base, paidAt: null }] }), 1, 'paidAt', /paidAt is missing/);
  });

  it('refuses non-string references and status', () => {
    const base = { referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' };
    refused(
      () => parseReportJson({ items: [{ ...base, referenceNo: 123 }] }),
      1,
      'referenceNo',
      /^items\[0\]: referenceNo must be a string/,
    );
    refused(
      () => parseReportJson({ items: [{ ...base, providerReference: true }] }),
      1,
      'providerReference',
      /must be a string/,
    );
    refused(
      () => parseReportJson({ items: [{ ...base, status: 0 }] }),
      1,
      'status',
      /^items\[0\]: status must be a string/,
    );
  });

  it('refuses each bad value as the CSV does, naming the item', () => {
    const base = { referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' };
    const bad: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        { ...base, referenceNo: undefined },
        'referenceNo',
        /^items\[1\]: referenceNo and providerReference are both empty/,
      ],
      [{ ...base, amount: '12.5' }, 'amount', /^items\[1\]: amount "12.5" is not a decimal with two fraction digits/],
      [{ ...base, amount: '0.00' }, 'amount', /not more than zero/],
      [{ ...base, amount: '-1.00' }, 'amount', /not a decimal/],
      [{ ...base, paidAt: '2026-11-26T10:00:00' }, 'paidAt', /not an ISO 8601 date-time/],
      [{ ...base, status: '0' }, 'status', /^items\[1\]: status "0" is not two digits/],
      [{ ...base, referenceNo: 'x'.repeat(129) }, 'referenceNo', /longer than 128 characters/],
    ];
    for (const [item, field, message] of bad)
      refused(() => parseReportJson({ items: [base, item] }), 2, field, message);
  });

  it('refuses more than 100,000 items', () => {
    const item = { referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' };
    assert.equal(parseReportJson({ items: new Array(100_000).fill(item) }).length, 100_000);
    refused(() => parseReportJson({ items: new Array(100_001).fill(item) }), null, null, /more than 100000 lines/);
  });
});

describe('Jakarta days', () => {
  it('puts 00:00 +07:00 (17:00 UTC the day before) on the new day', () => {
    assert.equal(jakartaDay(at('2026-11-25T16:59:59.999Z')), '2026-11-25');
    assert.equal(jakartaDay(at('2026-11-25T17:00:00Z')), '2026-11-26');
    assert.equal(jakartaDayStartMs('2026-11-26'), at('2026-11-25T17:00:00Z'));
    assert.equal(jakartaDayStartMs('2027-01-01'), at('2026-12-31T17:00:00Z'));
    assert.equal(jakartaDayStartMs('2028-02-29'), at('2028-02-28T17:00:00Z'));
  });

  it('refuses a day that is not one', () => {
    for (const day of ['2026-02-29', '2026-13-01', '2026-11-26T00:00', '26-11-2026', ''])
      assert.throws(() => jakartaDayStartMs(day), TypeError, day);
  });
});

// --- classifyReport --------------------------------------------------------------------------------

let refSeq = 0;
/** A gateway payment, paid 00 on 2026-11-26 10:00 +07:00 for 100.00 unless told otherwise. */
function payment(parts: Partial<GatewayPayment> = {}): GatewayPayment {
  return {
    referenceNo: `G${++refSeq}`,
    providerReference: null,
    status: '00',
    amount: '100.00',
    paidAtMs: at('2026-11-26T10:00:00+07:00'),
    ...parts,
  };
}

/** A report line for a payment, by default the same as `payment()`. */
function line(n: number, parts: Partial<ReportItem> = {}): ReportItem {
  return {
    line: n,
    referenceNo: null,
    providerReference: null,
    amount: '100.00',
    paidAtMs: at('2026-11-26T10:00:00+07:00'),
    status: '00',
    ...parts,
  };
}

/** A gateway over a list of payments, keeping the windows paidBetween was asked about. */
function viewOf(payments: GatewayPayment[]): GatewayView & { windows: Array<[number, number]> } {
  const windows: Array<[number, number]> = [];
  return {
    windows,
    byReferenceNo: (referenceNo) => payments.find((p) => p.referenceNo === referenceNo),
    byProviderReference: (providerReference) => payments.find((p) => p.providerReference === providerReference),
    paidBetween(fromMs, untilMs) {
      windows.push([fromMs, untilMs]);
      return payments.filter(
        (p) =>
          (p.status === '00' || p.status === '04') &&
          p.paidAtMs !== null &&
          p.paidAtMs >= fromMs &&
          p.paidAtMs < untilMs,
      );
    },
  };
}

describe('classifyReport', () => {
  it('refuses an empty report', () => {
    refused(() => classifyReport([], viewOf([])), null, null, /^the report has no lines$/);
  });

  it('matches paid lines by referenceNo, by providerReference, and a refunded (04) payment as paid', () => {
    const a = payment({ referenceNo: 'A' });
    const b = payment({ referenceNo: 'B', providerReference: 'PB' });
    const c = payment({ referenceNo: 'C', status: '04', amount: '50.00' });
    const d = payment({ referenceNo: 'D', providerReference: 'PD' });
    const result = classifyReport(
      [
        line(1, { referenceNo: 'A' }),
        line(2, { providerReference: 'PB' }),
        line(3, { referenceNo: 'C', amount: '50.00' }),
        line(4, { referenceNo: 'unknown-to-us', providerReference: 'PD' }),
      ],
      viewOf([a, b, c, d]),
    );
    assert.deepEqual(result, { from: '2026-11-26', to: '2026-11-26', lines: 4, matched: 4, problems: [] });
  });

  it('compares amounts as money, not as text', () => {
    const a = payment({ referenceNo: 'A', amount: '100.00' });
    const result = classifyReport([line(1, { referenceNo: 'A', amount: '100.00' })], viewOf([a]));
    assert.equal(result.matched, 1);
  });

  it('reports a line the gateway does not know as missing_at_gateway, with the line’s referenceNo and status', () => {
    const result = classifyReport(
      [
        line(1, { referenceNo: 'X', providerReference: 'PX', status: '00' }),
        line(2, { providerReference: 'PY', status: '05' }),
      ],
      viewOf([]),
    );
    assert.deepEqual(result.problems, [
      { line: 1, type: 'missing_at_gateway', referenceNo: 'X', actual: '00' },
      { line: 2, type: 'missing_at_gateway', actual: '05' },
    ]);
    assert.equal(result.matched, 0);
  });

  it('reports a paid line whose payment the gateway still has open (01, 02, 03) as missing_at_gateway', () => {
    const open = (['01', '02', '03'] as const).map((status) => payment({ referenceNo: `O${status}`, status }));
    const result = classifyReport(
      open.map((p, i) => line(i + 1, { referenceNo: p.referenceNo })),
      viewOf(open),
    );
    assert.deepEqual(result.problems, [
      { line: 1, type: 'missing_at_gateway', referenceNo: 'O01', expected: '01', actual: '00' },
      { line: 2, type: 'missing_at_gateway', referenceNo: 'O02', expected: '02', actual: '00' },
      { line: 3, type: 'missing_at_gateway', referenceNo: 'O03', expected: '03', actual: '00' },
    ]);
  });

  it('reports a paid line whose payment the gateway has failed or cancelled (05, 06) as status_mismatch', () => {
    const result = classifyReport(
      [line(1, { referenceNo: 'F' }), line(2, { providerReference: 'PC' })],
      viewOf([
        payment({ referenceNo: 'F', status: '05' }),
        payment({ referenceNo: 'C', providerReference: 'PC', status: '06' }),
      ]),
    );
    assert.deepEqual(result.problems, [
      { line: 1, type: 'status_mismatch', referenceNo: 'F', expected: '05', actual: '00' },
      { line: 2, type: 'status_mismatch', referenceNo: 'C', expected: '06', actual: '00' },
    ]);
  });

  it('reports a line not paid whose payment the gateway has paid or refunded as status_mismatch', () => {
    const result = classifyReport(
      [line(1, { referenceNo: 'P', status: '05' }), line(2, { referenceNo: 'R', status: '06' })],
      viewOf([payment({ referenceNo: 'P' }), payment({ referenceNo: 'R', status: '04' })]),
    );
    assert.deepEqual(result.problems, [
      { line: 1, type: 'status_mismatch', referenceNo: 'P', expected: '00', actual: '05' },
      { line: 2, type: 'status_mismatch', referenceNo: 'R', expected: '04', actual: '06' },
    ]);
    assert.equal(result.matched, 0);
  });

  it('finds nothing wrong with a line not paid whose payment is not paid at the gateway either', () => {
    const statuses = ['01', '02', '03', '05', '06'] as const;
    const payments = statuses.map((status) =>
      payment({ referenceNo: `N${status}`, status, amount: null, paidAtMs: null }),
    );
    const reported = ['01', '05', '06', '05', '03'];
    const result = classifyReport(
      payments.map((p, i) => line(i + 1, { referenceNo: p.referenceNo, status: reported[i] })),
      viewOf(payments),
    );
    assert.deepEqual(result.problems, []);
    assert.equal(result.matched, 5);
  });

  it('reports a paid amount that differs as amount_mismatch: the gateway’s expected, the report’s actual', () => {
    const result = classifyReport(
      [line(1, { referenceNo: 'A', amount: '99.99' }), line(2, { providerReference: 'PB', amount: '150.00' })],
      viewOf([
        payment({ referenceNo: 'A', amount: '100.00' }),
        payment({ referenceNo: 'B', providerReference: 'PB', status: '04', amount: '100.00' }),
      ]),
    );
    assert.deepEqual(result.problems, [
      { line: 1, type: 'amount_mismatch', referenceNo: 'A', expected: '100.00', actual: '99.99' },
      { line: 2, type: 'amount_mismatch', referenceNo: 'B', expected: '100.00', actual: '150.00' },
    ]);
  });

  it('reports a payment named again as duplicate on each later line only, and nothing else on those lines', () => {
    const a = payment({ referenceNo: 'A', providerReference: 'PA' });
    const result = classifyReport(
      [
        line(1, { referenceNo: 'A' }),
        line(2, { providerReference: 'PA', amount: '1.00' }),
        line(3, { referenceNo: 'A', status: '05' }),
        line(4, { referenceNo: 'X' }),
        line(5, { referenceNo: 'X', amount: '2.00' }),
        line(6, { providerReference: 'PY' }),
        line(7, { referenceNo: 'Z', providerReference: 'PY' }),
      ],
      viewOf([a]),
    );
    assert.deepEqual(result.problems, [
      { line: 2, type: 'duplicate', referenceNo: 'A' },
      { line: 3, type: 'duplicate', referenceNo: 'A' },
      { line: 4, type: 'missing_at_gateway', referenceNo: 'X', actual: '00' },
      { line: 5, type: 'duplicate', referenceNo: 'X' },
      { line: 6, type: 'missing_at_gateway', actual: '00' },
      { line: 7, type: 'duplicate', referenceNo: 'Z' },
    ]);
    assert.equal(result.matched, 1);
  });

  it('reports the paid payments of the report’s days that no line named as missing_at_provider, last, by paidAtMs then referenceNo', () => {
    const named = payment({ referenceNo: 'N', paidAtMs: at('2026-11-25T12:00:00+07:00') });
    const payments = [
      named,
      payment({ referenceNo: 'before', paidAtMs: at('2026-11-24T23:59:59+07:00') }),
      payment({ referenceNo: 'first', paidAtMs: at('2026-11-25T00:00:00+07:00'), amount: '5.00' }),
      payment({ referenceNo: 'lastB', paidAtMs: at('2026-11-26T23:59:59+07:00'), status: '04', amount: '7.00' }),
      payment({ referenceNo: 'lastA', paidAtMs: at('2026-11-26T23:59:59+07:00'), amount: '6.00' }),
      payment({ referenceNo: 'after', paidAtMs: at('2026-11-27T00:00:00+07:00') }),
      payment({ referenceNo: 'open', status: '01', amount: null, paidAtMs: null }),
    ];
    const view = viewOf(payments);
    const result = classifyReport(
      [
        line(1, { referenceNo: 'N', paidAtMs: at('2026-11-25T12:00:00+07:00') }),
        line(2, { referenceNo: 'X', paidAtMs: at('2026-11-26T09:00:00+07:00') }),
      ],
      view,
    );
    assert.equal(result.from, '2026-11-25');
    assert.equal(result.to, '2026-11-26');
    assert.deepEqual(view.windows, [[at('2026-11-25T00:00:00+07:00'), at('2026-11-27T00:00:00+07:00')]]);
    assert.deepEqual(result.problems, [
      { line: 2, type: 'missing_at_gateway', referenceNo: 'X', actual: '00' },
      { line: null, type: 'missing_at_provider', referenceNo: 'first', expected: '5.00' },
      { line: null, type: 'missing_at_provider', referenceNo: 'lastA', expected: '6.00' },
      { line: null, type: 'missing_at_provider', referenceNo: 'lastB', expected: '7.00' },
    ]);
    assert.equal(result.lines, 2);
    assert.equal(result.matched, 1);
  });

  it('does not report as missing_at_provider a payment a line named with a problem', () => {
    const result = classifyReport(
      [line(1, { referenceNo: 'A', amount: '1.00' }), line(2, { referenceNo: 'B', status: '05' })],
      viewOf([payment({ referenceNo: 'A' }), payment({ referenceNo: 'B' })]),
    );
    assert.deepEqual(
      result.problems.map((p) => p.type),
      ['amount_mismatch', 'status_mismatch'],
    );
  });

  it('takes from and to from the earliest and latest line in Jakarta days, whatever their order', () => {
    const result = classifyReport(
      [
        line(1, { referenceNo: 'X1', paidAtMs: at('2026-11-25T17:00:00Z') }),
        line(2, { referenceNo: 'X2', paidAtMs: at('2026-11-24T16:59:59Z') }),
        line(3, { referenceNo: 'X3', paidAtMs: at('2026-11-25T16:59:59Z') }),
      ],
      viewOf([]),
    );
    assert.equal(result.from, '2026-11-24');
    assert.equal(result.to, '2026-11-26');
  });

  it('orders problems by line even when the items come out of order', () => {
    const result = classifyReport([line(2, { referenceNo: 'B' }), line(1, { referenceNo: 'A' })], viewOf([]));
    assert.deepEqual(
      result.problems.map((p) => p.line),
      [1, 2],
    );
  });

  it('classifies a parsed CSV report end to end', () => {
    const items = parseReportCsv(
      csv(
        'A,,100.00,2026-11-26T10:00:00+07:00,00',
        ',PB,100.00,2026-11-26T11:00:00+07:00,',
        'C,,90.00,2026-11-26T12:00:00+07:00,00',
        'A,,100.00,2026-11-26T10:00:00+07:00,00',
      ),
    );
    const result = classifyReport(
      items,
      viewOf([
        payment({ referenceNo: 'A' }),
        payment({ referenceNo: 'B', providerReference: 'PB', status: '04' }),
        payment({ referenceNo: 'C' }),
        payment({ referenceNo: 'D', amount: '3.00' }),
      ]),
    );
    assert.deepEqual(result, {
      from: '2026-11-26',
      to: '2026-11-26',
      lines: 4,
      matched: 2,
      problems: [
        { line: 3, type: 'amount_mismatch', referenceNo: 'C', expected: '100.00', actual: '90.00' },
        { line: 4, type: 'duplicate', referenceNo: 'A' },
        { line: null, type: 'missing_at_provider', referenceNo: 'D', expected: '3.00' },
      ],
    });
  });
});

describe('text no field may hold (red team: PostgreSQL answered 500 to a NUL in a report)', () => {
  const base = { referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' };
  it('refuses a NUL, another control character or an unpaired surrogate in any field, naming the line and the field, before any other rule', () => {
    const cases: Array<[string, string]> = [
      ['\u0000', 'a NUL character \\(U\\+0000\\)'],
      ['\u001b', 'a control character \\(U\\+001B\\)'],
      ['\u007f', 'a control character \\(U\\+007F\\)'],
    ];
    for (const [bad, named] of cases) {
      for (const [i, field] of ['referenceNo', 'providerReference', 'amount', 'paidAt', 'status'].entries()) {
        const fields = ['R1', 'P1', '1.00', '2026-11-26T10:00:00Z', '00'];
        fields[i] = `${(fields[i] as string).slice(0, 1)}${bad}${(fields[i] as string).slice(1)}`;
        refused(
          () => parseReportCsv(csv('R0,,1.00,2026-11-26T10:00:00Z,00', fields.join(','))),
          2,
          field,
          new RegExp(`^line 2: ${field} holds ${named}, which no field may hold$`),
        );
        refused(
          () => parseReportJson({ items: [base, { ...base, [field]: fields[i] }] }),
          2,
          field,
          new RegExp(`^items\\[1\\]: ${field} holds ${named}`),
        );
      }
    }
    refused(
      () => parseReportJson({ items: [{ ...base, referenceNo: 'R\ud800' }] }),
      1,
      'referenceNo',
      /^items\[0\]: referenceNo holds an unpaired surrogate \(U\+D800\)/,
    );
    // Before its length is judged: the first fault named is the text.
    refused(
      () => parseReportJson({ items: [{ ...base, referenceNo: `${'x'.repeat(200)}\u0000` }] }),
      1,
      'referenceNo',
      /holds a NUL/,
    );
  });

  it('keeps tab, CR and LF inside a field, and any real Unicode text', () => {
    const items = parseReportCsv(csv('"R\t1\r\n",Ünïcödé 😀,1.00,2026-11-26T10:00:00Z,00'));
    assert.deepEqual([items[0]?.referenceNo, items[0]?.providerReference], ['R\t1\r\n', 'Ünïcödé 😀']);
  });

  it('refuses such text in a JSON member the report does not know, or beside items, though it ignores them', () => {
    refused(
      () => parseReportJson({ items: [base, { ...base, note: { deep: ['x\u0000'] } }] }),
      2,
      'note.deep[0]',
      /^items\[1\]: note.deep\[0\] holds a control character, an unpaired surrogate or a byte that is not UTF-8$/,
    );
    refused(() => parseReportJson({ items: [base], source: 'bank\u0007' }), null, 'source', /^source: holds a control/);
  });
});

describe('classifyReportInSlices', () => {
  it('classifies as classifyReport does, pausing between slices of lines', async () => {
    const payments = Array.from({ length: 30 }, (_, i) =>
      payment({ referenceNo: `S${i}`, providerReference: `PS${i}` }),
    );
    const items = Array.from({ length: 2_500 }, (_, i) =>
      line(i + 1, { referenceNo: i % 7 === 0 ? `S${i % 30}` : null, providerReference: i % 7 === 0 ? null : `X${i}` }),
    );
    let pauses = 0;
    const sliced = await classifyReportInSlices(items, viewOf(payments), async () => {
      pauses++;
    });
    assert.deepEqual(sliced, classifyReport(items, viewOf(payments)));
    assert.ok(pauses >= 2, `${pauses} pauses`);
  });
});

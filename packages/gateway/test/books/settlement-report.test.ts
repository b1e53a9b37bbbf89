// docs/books.md#settlement: the settlement report CSV: signed money, refunds negative, RFC 4180
// quoting and defused spreadsheet formulas in text cells only.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toMinorUnits } from '@snapgate/snap';
import {
  type ReportRow,
  SETTLEMENT_CSV_HEADER,
  settlementCsv,
  settlementCsvLines,
  signedMoney,
  spreadsheetSummary,
  textCell,
} from '../../src/books/settlement-report.ts';

const PAID_AT_MS = Date.parse('2026-11-26T06:45:00Z');

/** A payment of 12,345.00 with a fee of 86.00 unless told otherwise. */
function row(parts: Partial<ReportRow> = {}): ReportRow {
  return {
    referenceNo: '261126000000000001',
    partnerReferenceNo: 'ORDER-1',
    kind: 'payment',
    paidAtMs: PAID_AT_MS,
    amountSen: 1_234_500n,
    feeSen: 8_600n,
    providerId: 'acquirer-1',
    providerReference: 'ACQ-9',
    refundNo: null,
    method: 'qris',
    providerName: 'Acquirer One',
    ...parts,
  };
}

/** The CSV's data lines (header and final empty piece dropped). */
function linesOf(text: string): string[] {
  assert.ok(text.endsWith('\r\n'), 'ends with CRLF');
  const lines = text.slice(0, -2).split('\r\n');
  assert.equal(lines[0], SETTLEMENT_CSV_HEADER);
  return lines.slice(1);
}

describe('signedMoney', () => {
  it('writes sen as a money string with a minus sign when negative', () => {
    assert.equal(signedMoney(0n), '0.00');
    assert.equal(signedMoney(1n), '0.01');
    assert.equal(signedMoney(150_000n), '1500.00');
    assert.equal(signedMoney(-150_000n), '-1500.00');
    assert.equal(signedMoney(-1n), '-0.01');
    assert.equal(signedMoney(-0n), '0.00');
    assert.equal(signedMoney(999_999_999_999_999_999n), '9999999999999999.99');
  });
});

describe('settlementCsv', () => {
  it('writes the header alone, CRLF-ended, for no rows', () => {
    assert.equal(
      settlementCsv([]),
      'referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName\r\n',
    );
  });

  it('writes a payment: amount, fee, net = amount − fee, paidAt in Jakarta time, CRLF line ends', () => {
    assert.equal(
      settlementCsv([row()]),
      `${SETTLEMENT_CSV_HEADER}\r\n261126000000000001,ORDER-1,payment,2026-11-26T13:45:00+07:00,12345.00,86.00,12259.00,acquirer-1,ACQ-9,,qris,Acquirer One\r\n`,
    );
  });

  it('writes a refund negative, amount and net, with fee 0.00 (a refund does not return the fee), and its number', () => {
    const refund = row({ kind: 'refund', amountSen: 150_000n, feeSen: 8_600n, refundNo: 'RF2611260000000001' });
    assert.deepEqual(linesOf(settlementCsv([refund])), [
      '261126000000000001,ORDER-1,refund,2026-11-26T13:45:00+07:00,-1500.00,0.00,-1500.00,acquirer-1,ACQ-9,RF2611260000000001,qris,Acquirer One',
    ]);
  });

  it('writes a disbursement without a method or a provider', () => {
    const out = row({ kind: 'disbursement', providerId: '', providerReference: 'TRF-1', method: '', providerName: '' });
    assert.deepEqual(linesOf(settlementCsv([{ ...out, amountSen: 100_000n, feeSen: 2_500n }])), [
      '261126000000000001,ORDER-1,disbursement,2026-11-26T13:45:00+07:00,-1000.00,25.00,-1025.00,,TRF-1,,,',
    ]);
  });

  it('writes an unknown providerReference as an empty field and keeps the rows’ order', () => {
    const lines = linesOf(
      settlementCsv([row({ referenceNo: 'B', providerReference: null }), row({ referenceNo: 'A', kind: 'refund' })]),
    );
    assert.equal(lines.length, 2);
    assert.ok(lines[0]?.startsWith('B,') && lines[0].endsWith(',acquirer-1,,,qris,Acquirer One'), lines[0]);
    assert.ok(lines[1]?.startsWith('A,'), lines[1]);
  });

  it('adds up: the amounts less the fees are the nets, payments and refunds together', () => {
    const rows = [
      row({ amountSen: 1_234_500n, feeSen: 8_600n }),
      row({ amountSen: 150_000_000n, feeSen: 250_000n }),
      row({ kind: 'refund', amountSen: 150_000n, feeSen: 0n }),
      row({ amountSen: 1n, feeSen: 0n }),
      row({ kind: 'refund', amountSen: 1_234_500n, feeSen: 8_600n }),
    ];
    const sums = { amount: 0n, fee: 0n, net: 0n };
    for (const line of linesOf(settlementCsv(rows))) {
      const cells = line.split(',');
      const sen = (cell: string | undefined) =>
        cell?.startsWith('-') ? -toMinorUnits(cell.slice(1)) : toMinorUnits(cell ?? '');
      sums.amount += sen(cells[4]);
      sums.fee += sen(cells[5]);
      sums.net += sen(cells[6]);
    }
    assert.equal(sums.amount, 1_234_500n + 150_000_000n - 150_000n + 1n - 1_234_500n);
    assert.equal(sums.fee, 8_600n + 250_000n);
    assert.equal(sums.net, sums.amount - sums.fee);
    assert.equal(signedMoney(sums.net), '1495914.01');
  });

  it('quotes a text field holding a comma, a double quote, CR or LF (RFC 4180)', () => {
    const text = settlementCsv([
      row({
        referenceNo: 'R,1',
        partnerReferenceNo: 'say "hi"',
        providerId: 'a\nb',
        providerReference: 'c\r\nd',
        providerName: 'Bank, "Sandbox"',
      }),
    ]);
    assert.equal(
      text,
      `${SETTLEMENT_CSV_HEADER}\r\n"R,1","say ""hi""",payment,2026-11-26T13:45:00+07:00,12345.00,86.00,12259.00,"a\nb","c\r\nd",,qris,"Bank, ""Sandbox"""\r\n`,
    );
  });

  it('defuses a text field a spreadsheet would run as a formula (=, +, -, @, tab, CR) with a leading quote', () => {
    const cases: Array<[string, string]> = [
      ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
      ['+1+1', "'+1+1"],
      ['-1500.00', "'-1500.00"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tx', "'\tx"],
      ['\rx', '"\'\rx"'],
      ['=1,2', '"\'=1,2"'],
      ['a=b', 'a=b'],
      ["'quoted", "'quoted"],
    ];
    for (const [value, cell] of cases) {
      const text = settlementCsv([row({ partnerReferenceNo: value })]);
      assert.ok(text.includes(`\r\n261126000000000001,${cell},payment,`), `${JSON.stringify(value)} → ${text}`);
    }
    const text = settlementCsv([
      row({
        referenceNo: '=1',
        providerId: '+p',
        providerReference: '@r',
        kind: 'refund',
        amountSen: 100n,
        providerName: '=cmd|x',
      }),
    ]);
    assert.equal(
      linesOf(text)[0],
      "'=1,ORDER-1,refund,2026-11-26T13:45:00+07:00,-1.00,0.00,-1.00,'+p,'@r,,qris,'=cmd|x",
    );
  });

  it('keeps a negative money cell a number: no quote and no prefix', () => {
    const [line] = linesOf(settlementCsv([row({ kind: 'refund', amountSen: 150_000n })]));
    const cells = line?.split(',') ?? [];
    assert.deepEqual(cells.slice(4, 7), ['-1500.00', '0.00', '-1500.00']);
  });

  it('refuses a negative amountSen or feeSen (a refund is written negative from a positive amount)', () => {
    assert.throws(() => settlementCsv([row({ kind: 'refund', amountSen: -150_000n })]), TypeError);
    assert.throws(() => settlementCsv([row({ feeSen: -1n })]), TypeError);
  });
});

describe('the settlement report for a spreadsheet', () => {
  it('writes a cell of digits alone as ="…", and every other cell as the data layout does', () => {
    assert.equal(textCell('261126000000000001', 'spreadsheet'), '"=""261126000000000001"""');
    assert.equal(textCell('014', 'spreadsheet'), '"=""014"""', 'leading zeros kept');
    assert.equal(textCell('014'), '014', 'the data layout: as it is');
    for (const value of ['ORDER-1', '=HYPERLINK("x")', '+62', 'a,b', '12.50', '']) {
      assert.equal(textCell(value, 'spreadsheet'), textCell(value), value);
    }
    assert.equal(textCell('=1+1', 'spreadsheet'), "'=1+1", 'a formula is still defused');
    const line = settlementCsvLines([row()], 'spreadsheet');
    assert.match(line, /^"=""261126000000000001""",ORDER-1,payment,/);
    assert.match(line, /,12345\.00,86\.00,12259\.00,/, 'money stays plain numbers');
  });

  it('sums the settlement above the table, the deductions negative, names quoted and defused', () => {
    const top = spreadsheetSummary({
      id: 'stl_1',
      merchantId: 'm-1',
      merchantName: '=Toko, "Maju"',
      cutoff: PAID_AT_MS,
      createdAt: PAID_AT_MS,
      status: 'open',
      count: 2,
      grossSen: 3_234_500n,
      feesSen: 22_600n,
      refundsSen: 500_000n,
      disbursedSen: 100_000n,
      returnedSen: 0n,
      netSen: 2_611_900n,
      paidAt: null,
      bankReference: null,
    });
    assert.ok(top.startsWith('\uFEFFSettlement report,stl_1\r\n'));
    assert.ok(top.endsWith('Bank reference,\r\n\r\n'), 'an empty line before the table');
    assert.match(top, /\r\nMerchant,"'=Toko, ""Maju"""\r\n/);
    assert.match(top, /\r\nEntries up to,2026-11-26T13:45:00\+07:00\r\n/);
    assert.match(
      top,
      /\r\nGross,32345\.00\r\nFees,-226\.00\r\nRefunds,-5000\.00\r\nDisbursed,-1000\.00\r\nReturned,0\.00\r\nNet,26119\.00\r\n/,
    );
    assert.match(top, /\r\nPaid out at,\r\n/);
  });
});

// docs/books.md#the-report: a report read from its bytes, at once or (a large one) on a thread of its
// own: UTF-8 judged by TextDecoder's rules, its first byte that is not UTF-8 named where it is, and
// the items handed back from the thread as packed columns, the same as read at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ReportError } from '../../src/books/reconciliation-report.ts';
import {
  createReportReader,
  firstInvalidUtf8,
  packItems,
  readReport,
  reportText,
  unpackItems,
} from '../../src/books/report-reader.ts';

const HEADER = 'referenceNo,providerReference,amount,paidAt,status';
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const isUtf8 = (bytes: Uint8Array) => {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
};

describe('reading a report’s bytes', () => {
  it('finds the first byte that is not UTF-8 exactly where TextDecoder would refuse, for random bytes', () => {
    // Bytes from every class UTF-8 tells apart: ASCII, continuations, leads of 2, 3 and 4, and never-valid bytes.
    const pool = [
      0x41, 0x0a, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
    ];
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 20_000; round++) {
      const bytes = Uint8Array.from({ length: random(7) }, () => pool[random(pool.length)] as number);
      const at = firstInvalidUtf8(bytes);
      assert.equal(at === -1, isUtf8(bytes), `${Buffer.from(bytes).toString('hex')}: ${at}`);
      if (at !== -1) assert.ok(isUtf8(bytes.subarray(0, at)), `${Buffer.from(bytes).toString('hex')}: ${at}`);
    }
    assert.equal(firstInvalidUtf8(Buffer.from('Rp 10.000 — ünïcode 😀')), -1);
    assert.equal(firstInvalidUtf8(Buffer.from([0x41, 0xed, 0xa0, 0x80])), 1, 'an encoded surrogate');
    assert.equal(firstInvalidUtf8(Buffer.from([0x41, 0xc0, 0xaf])), 1, 'an overlong form');
    assert.equal(firstInvalidUtf8(Buffer.from([0x41, 0xe2, 0x82])), 1, 'a sequence cut short');
  });

  it('reads the first byte that is not UTF-8 as U+DC00 plus the byte, and the rest as well as it can', () => {
    assert.equal(reportText(Buffer.from('a,b\n')), 'a,b\n');
    assert.equal(reportText(Buffer.from([0x61, 0xff, 0x62, 0xfe])), 'a\udcffb\ufffd');
    assert.equal(reportText(Buffer.from('\ufeffa')), '\ufeffa', 'the BOM is kept for the CSV reader to skip');
  });

  it('names the line and the field of a byte that is not UTF-8, in CSV and in JSON', () => {
    const csv = Buffer.concat([
      Buffer.from(`${HEADER}\nR1,P`),
      Buffer.from([0xff]),
      Buffer.from(',1.00,2026-11-26T10:00:00Z,00\n'),
    ]);
    assert.throws(() => readReport(csv, 'csv'), {
      name: 'ReportError',
      message: 'line 1: providerReference holds a byte that is not UTF-8 (0xFF), which no field may hold',
      line: 1,
      field: 'providerReference',
    });
    const json = Buffer.concat([
      Buffer.from('{"items":[{"referenceNo":"R'),
      Buffer.from([0xe2, 0x28]),
      Buffer.from('","amount":"1.00","paidAt":"2026-11-26T10:00:00Z"}]}'),
    ]);
    assert.throws(() => readReport(json, 'json'), {
      message:
        'items[0]: referenceNo holds a byte that is not UTF-8 (0xE2) or an unpaired surrogate (U+DCE2), which no field may hold',
      line: 1,
      field: 'referenceNo',
    });
  });

  it('refuses JSON that is not JSON naming where in the text, and JSON nested deeper than an admin body', () => {
    // Where V8 tells the position (a raw control character in a string), it is named.
    assert.throws(() => readReport(Buffer.from('{"items":[\n  {"referenceNo": "R\u0001"}]}'), 'json'), {
      message: 'body: not JSON (line 2, column 21 of the text)',
    });
    assert.throws(() => readReport(Buffer.from('{"items":[\n  {"referenceNo": x}]}'), 'json'), {
      message: /^body: not JSON/,
    });
    assert.throws(() => readReport(Buffer.from(`{"items":[${'['.repeat(40)}${']'.repeat(40)}]}`), 'json'), {
      message: 'body: nested deeper than 32 levels',
    });
  });

  it('packs items into columns and unpacks them as they were', async () => {
    const items = readReport(
      Buffer.from(`${HEADER}\nR1,,1.00,2026-11-26T10:00:00Z,\n,P2,2.50,2026-11-26T11:00:00+07:00,05\n`),
      'csv',
    );
    assert.deepEqual(await unpackItems(packItems(items)), items);
    assert.deepEqual(await unpackItems(packItems([])), []);
    assert.throws(
      () => packItems([{ ...(items[1] as (typeof items)[number]), line: 1 }, items[0] as (typeof items)[number]]),
      TypeError,
    );
  });

  it('reads a report on its own thread as at once, and its first fault alike', async () => {
    const onThread = createReportReader({ inlineBytes: 0 });
    const csv = Buffer.from(
      `${HEADER}\n${Array.from({ length: 300 }, (_, i) => `R${i},P${i},${i + 1}.00,2026-11-26T10:00:00+07:00,00`).join('\n')}\n`,
    );
    assert.deepEqual(await onThread.read(csv, 'csv'), readReport(csv, 'csv'));
    const json = Buffer.from(
      JSON.stringify({ items: [{ referenceNo: 'R1', amount: '1.00', paidAt: '2026-11-26T10:00:00Z' }] }),
    );
    assert.deepEqual(await onThread.read(json, 'json'), readReport(json, 'json'));
    await assert.rejects(
      onThread.read(Buffer.from(`${HEADER}\nR\u00001,,1.00,2026-11-26T10:00:00Z,00\n`), 'csv'),
      (e) => {
        assert.ok(e instanceof ReportError);
        assert.deepEqual(
          [e.line, e.field, e.message],
          [1, 'referenceNo', 'line 1: referenceNo holds a NUL character (U+0000), which no field may hold'],
        );
        return true;
      },
    );
    // Several at once are read one after the other, each answered its own.
    const answers = await Promise.all([
      onThread.read(csv, 'csv'),
      onThread.read(json, 'json'),
      onThread.read(csv, 'csv'),
    ]);
    assert.deepEqual(
      answers.map((a) => a.length),
      [300, 1, 300],
    );
  });
});

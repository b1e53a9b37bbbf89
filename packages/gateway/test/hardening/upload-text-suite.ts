// Red team finding (reconciliation uploads, 2): PostgreSQL answered 500 to a NUL byte in a
// reconciliation CSV (SQLite took it). The admin API's upload, a provider's report as CSV or JSON
// (POST /admin/v1/providers/:id/reconciliations; the console pastes one through a form), now refuses
// a NUL, any other control character but tab, CR and LF, an unpaired surrogate and bytes that are
// not UTF-8, in any field, with 400 problem+json naming the line and the field, alike on both stores,
// whether the report is read at once or on its own thread (a large one); nothing is kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { postForm, signInByHand } from '../console/console-gateway.ts';
import { ADMIN_TOKEN, startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const HEADER = 'referenceNo,providerReference,amount,paidAt,status';
const FIELDS = ['referenceNo', 'providerReference', 'amount', 'paidAt', 'status'] as const;
type Field = (typeof FIELDS)[number];
/** A report read on its own thread: over 256 KiB. */
const LARGE_LINES = 6_000;

export function uploadTextSuite(under: StoreUnderTest): void {
  describe(`text no field may hold, in a provider’s report (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void>;
    let acquirerId: string;
    const at = formatJakartaTimestamp(Date.now());
    const good: Record<Field, string> = {
      referenceNo: 'UPLOAD-TEXT-1',
      providerReference: 'ACQ-UPLOAD-1',
      amount: '1000.00',
      paidAt: at,
      status: '00',
    };
    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway(opened.store ? { store: opened.store } : {});
      acquirerId = (await gw.store.getSetting('sandbox_acquirer_provider_id')) as string;
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    async function post(body: string | Uint8Array<ArrayBuffer>, contentType: string) {
      const res = await fetch(`${gw.url}/admin/v1/providers/${acquirerId}/reconciliations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': contentType },
        body,
      });
      const text = await res.text();
      return { status: res.status, type: res.headers.get('content-type'), text };
    }
    const runs = async () =>
      (await gw.admin('GET', `/providers/${acquirerId}/reconciliations?limit=500`)).body.items.length;
    /** Asserts a 400 problem+json whose one error is `message` (and its detail the same, after "invalid report: "). */
    async function refused(body: string | Uint8Array<ArrayBuffer>, contentType: string, message: RegExp) {
      const r = await post(body, contentType);
      assert.equal(r.status, 400, r.text);
      assert.match(r.type ?? '', /^application\/problem\+json\b/);
      const problem = JSON.parse(r.text);
      assert.equal(problem.errors.length, 1, r.text);
      assert.match(problem.errors[0], message);
      assert.equal(problem.detail, `invalid report: ${problem.errors[0]}`);
      assert.doesNotMatch(
        r.text,
        /22021|22P05|byte sequence|\\u0000/,
        'never the database’s words, nor the text itself',
      );
    }
    const csvLine = (fields: Record<Field, string>) => FIELDS.map((f) => fields[f]).join(',');
    /** A value of `field` with `bad` inside it (the rest of the value well formed). */
    const spoiled = (field: Field, bad: string) => {
      const v = good[field];
      return `${v.slice(0, 2)}${bad}${v.slice(2)}`;
    };

    for (const field of FIELDS) {
      it(`refuses a NUL in ${field}, naming the line and the field, in CSV and in JSON`, async () => {
        const before = await runs();
        await refused(
          [HEADER, csvLine(good), csvLine({ ...good, [field]: spoiled(field, '\u0000') })].join('\n'),
          'text/csv',
          new RegExp(`^line 2: ${field} holds a NUL character \\(U\\+0000\\), which no field may hold$`),
        );
        await refused(
          JSON.stringify({ items: [good, { ...good, [field]: spoiled(field, '\u0000') }] }),
          'application/json',
          new RegExp(`^items\\[1\\]: ${field} holds a NUL character \\(U\\+0000\\)`),
        );
        assert.equal(await runs(), before, 'nothing was kept');
      });
    }

    it('refuses other control characters, unpaired surrogates and bytes that are not UTF-8, naming each', async () => {
      const before = await runs();
      const csv = (line: string) => [HEADER, csvLine(good), line].join('\n');
      await refused(
        csv(csvLine({ ...good, referenceNo: 'R\u001bX' })),
        'text/csv',
        /^line 2: referenceNo holds a control character \(U\+001B\)/,
      );
      await refused(
        csv(csvLine({ ...good, providerReference: 'P\u007fX' })),
        'text/csv',
        /^line 2: providerReference holds a control character \(U\+007F\)/,
      );
      const notUtf8 = new Uint8Array(
        Buffer.concat([
          Buffer.from(`${csv(csvLine(good))}\nUPLOAD-`),
          Buffer.from([0xff]),
          Buffer.from(`,,1000.00,${at},00\n`),
        ]),
      );
      await refused(notUtf8, 'text/csv', /^line 3: referenceNo holds a byte that is not UTF-8 \(0xFF\)/);
      await refused(
        JSON.stringify({ items: [good, { ...good, status: '0\ud800' }] }),
        'application/json',
        /^items\[1\]: status holds an unpaired surrogate \(U\+D800\)/,
      );
      const jsonNotUtf8 = new Uint8Array(
        Buffer.concat([
          Buffer.from('{"items":[{"referenceNo":"A'),
          Buffer.from([0xc3, 0x28]),
          Buffer.from(`","amount":"1.00","paidAt":"${at}"}]}`),
        ]),
      );
      await refused(
        jsonNotUtf8,
        'application/json',
        /^items\[0\]: referenceNo holds a byte that is not UTF-8 \(0xC3\)/,
      );
      // Members the report does not know are ignored, but may not hold such text either.
      await refused(
        JSON.stringify({ items: [good, { ...good, note: 'a\u0000b' }] }),
        'application/json',
        /^items\[1\]: note holds a control character, an unpaired surrogate or a byte that is not UTF-8$/,
      );
      // A raw NUL byte is not JSON at all: where it stops being JSON is named, the text never echoed.
      await refused(
        `{"items":[{"referenceNo":"A\u0000","amount":"1.00","paidAt":"${at}"}]}`,
        'application/json',
        /^body: not JSON \(line 1, column 28 of the text\)$/,
      );
      await refused(
        `referenceNo,provider\u0000Reference,amount,paidAt,status\n${csvLine(good)}`,
        'text/csv',
        /^header: expected .*, found a NUL character \(U\+0000\)$/,
      );
      assert.equal(await runs(), before, 'nothing was kept');
    });

    it('names the line of a large report read on its own thread, in CSV and in JSON', async () => {
      const items = Array.from({ length: LARGE_LINES }, (_, i) => ({ ...good, referenceNo: `UPLOAD-LARGE-${i + 1}` }));
      const spoil = (i: number) => (i === 4_999 ? { ...items[i], providerReference: 'AC\u0000Q' } : items[i]);
      const csv = [HEADER, ...items.map((_, i) => csvLine(spoil(i) as Record<Field, string>))].join('\n');
      assert.ok(csv.length > 256 * 1024);
      await refused(csv, 'text/csv', /^line 5000: providerReference holds a NUL character/);
      await refused(
        JSON.stringify({ items: items.map((_, i) => spoil(i)) }),
        'application/json',
        /^items\[4999\]: providerReference holds a NUL character/,
      );
      // The same report, clean, is read whole.
      const r = await post([HEADER, ...items.map((x) => csvLine(x))].join('\n'), 'text/csv');
      assert.equal(r.status, 201, r.text.slice(0, 300));
      assert.equal(JSON.parse(r.text).lines, LARGE_LINES);
    });

    it('keeps tabs and any real Unicode text in a field', async () => {
      const r = await post(
        [HEADER, csvLine({ ...good, referenceNo: 'Tab\there', providerReference: 'Ünïcödé 😀' })].join('\n'),
        'text/csv',
      );
      assert.equal(r.status, 201, r.text);
    });

    it('refuses a NUL in a report pasted into the console with 400, keeping nothing', async () => {
      const before = await runs();
      const session = await signInByHand(gw.url);
      const res = await postForm(gw.url, session, `/console/books/reconciliations/providers/${acquirerId}`, {
        csv: [HEADER, csvLine({ ...good, referenceNo: 'R\u0000X' })].join('\n'),
      });
      assert.equal(res.status, 400);
      assert.match(await res.text(), /control character/);
      assert.equal(await runs(), before);
    });
  });
}

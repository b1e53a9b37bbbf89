// docs/books.md#the-settlement-report-csv: a settlement's report is read and sent a page at a time,
// so a settlement of any size streams. A settlement of 2,345 entries (three pages and part of a
// fourth), downloaded from the admin API and from the console: every row once, in the order the
// entries were written, its net column adding up to the settlement's net. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { toMinorUnits } from '@snapgate/snap';
import { signInByHand } from '../console/console-gateway.ts';
import { ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.ts';
import { gatewayWithRawSql, type RawSql } from '../helpers/raw-sql.ts';

const ENTRIES = 2_345;

export function reportPagesSuite(engine: 'SQLite' | 'PostgreSQL'): void {
  describe(`a settlement report of many pages (${engine})`, () => {
    let gw: TestGateway;
    let raw: RawSql;
    let close = async () => undefined as unknown;
    before(async () => {
      ({ gw, raw, close } = await gatewayWithRawSql(engine));
    });
    after(() => close());

    it('streams every entry once, oldest first, its nets adding up to the settlement’s', async () => {
      const m = await gw.createMerchant();
      // Payments written as the ledger's own inserts write them (their totals and queue move), by SQL
      // for speed: 1.00 to 23.45 rupiah, a fee of 0.01 each.
      for (let i = 1; i <= ENTRIES; i++) {
        await raw.exec(
          `INSERT INTO ledger_entries (at, kind, cause, merchant_id, provider_id, reference_no, amount_sen, fee_sen)
           VALUES (?, 'payment', ?, ?, 'bank-report', ?, ?, 1)`,
          [Date.now() - 60_000, `payment:REPORT-${i}`, m.id, `REPORT-${String(i).padStart(5, '0')}`, i * 100],
        );
      }
      const made = await gw.admin('POST', '/settlements', { merchantId: m.id });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const s = made.body.items[0];
      assert.equal(s.count, ENTRIES);
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
      const fromApi = await fetch(`${gw.url}/admin/v1/settlements/${s.id}/report.csv`, { headers });
      assert.equal(fromApi.status, 200);
      assert.match(fromApi.headers.get('content-type') ?? '', /^text\/csv/);
      const text = await fromApi.text();
      const lines = text.split('\r\n');
      assert.equal(lines.at(-1), '', 'every line ended by CRLF');
      const rows = lines.slice(1, -1).map((l) => l.split(','));
      assert.equal(
        lines[0],
        'referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net,providerId,providerReference,refundNo,method,providerName',
      );
      assert.deepEqual(
        rows.map((r) => r[0]),
        Array.from({ length: ENTRIES }, (_, i) => `REPORT-${String(i + 1).padStart(5, '0')}`),
      );
      const net = rows.reduce((sum, r) => sum + toMinorUnits(r[6] as string), 0n);
      assert.equal(net, toMinorUnits(s.net));
      // The console's download is the same bytes.
      const cookie = await signInByHand(gw.url);
      const fromConsole = await fetch(`${gw.url}/console/books/settlements/${s.id}/report.csv`, {
        headers: { cookie },
      });
      assert.equal(fromConsole.status, 200);
      assert.equal(await fromConsole.text(), text);
    });
  });
}

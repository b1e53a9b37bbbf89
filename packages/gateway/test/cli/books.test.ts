// snapgate merchant balance, ledger verify|entries, settlement run|list|show|payout, reconcile:
// the books from the command line, against a real gateway (docs/books.md).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { formatJakartaTimestamp } from '@snapgate/snap';
import { rawSql } from '../books/ledger-suite.ts';
import { runCli } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });

describe('snapgate ledger, settlement, reconcile, merchant balance', () => {
  let gw: TestGateway;
  const dir = mkdtempSync(join(tmpdir(), 'snapgate-cli-books-'));
  before(async () => {
    gw = await startGateway();
  });
  after(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a payment from balance to a paid-out settlement, and reconciles a report', async () => {
    const m = await gw.createMerchant({ fees: { qris: { percent: '0.70' } } });
    const c = await authenticate(gw.url, m);
    const refs: string[] = [];
    for (const n of [1, 2]) {
      const g = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `CLI-BOOKS-${n}`,
        amount: idr('10000.00'),
      });
      refs.push(g.body.referenceNo);
    }
    assert.equal((await gw.admin('POST', `/sandbox/qris/${refs[0]}/pay`, {})).status, 200);

    const balance = await runCli(gw, 'merchant', 'balance', m.id, '--json');
    assert.equal(balance.code, 0, balance.err);
    assert.equal(JSON.parse(balance.out).pending, '9930.00');
    const entries = await runCli(gw, 'ledger', 'entries', '--merchant', m.id);
    assert.equal(entries.code, 0, entries.err);
    assert.match(entries.out, /payment/);
    const verified = await runCli(gw, 'ledger', 'verify');
    assert.equal(verified.code, 0, verified.out + verified.err);
    assert.match(verified.out, /ok/);

    const run = await runCli(gw, 'settlement', 'run', '--merchant', m.id, '--json');
    assert.equal(run.code, 0, run.err);
    const [s] = JSON.parse(run.out).items;
    assert.equal(s.net, '9930.00');
    assert.match((await runCli(gw, 'settlement', 'list', '--merchant', m.id)).out, new RegExp(s.id));
    const csv = await runCli(gw, 'settlement', 'show', s.id, '--csv');
    assert.match(csv.out, /^referenceNo,partnerReferenceNo,kind,paidAt,amount,fee,net/);
    assert.match(csv.out, /CLI-BOOKS-1,payment/);
    assert.equal((await runCli(gw, 'settlement', 'payout', s.id)).code, 2, 'no --bank-reference');
    const paid = await runCli(gw, 'settlement', 'payout', s.id, '--bank-reference', 'TRF-CLI-1', '--json');
    assert.equal(paid.code, 0, paid.err);
    assert.equal(JSON.parse(paid.out).status, 'paid');
    const again = await runCli(gw, 'settlement', 'payout', s.id, '--bank-reference', 'TRF-CLI-2');
    assert.equal(again.code, 1);
    assert.match(again.err, /409/);

    // The acquirer's report shows the second QRIS paid: missing at the gateway, applied with --apply.
    const acquirer = await gw.store.getSetting('sandbox_acquirer_provider_id');
    const report = join(dir, 'report.csv');
    const at = formatJakartaTimestamp(Date.now());
    writeFileSync(
      report,
      `referenceNo,providerReference,amount,paidAt,status\n${refs[0]},,10000.00,${at},00\n${refs[1]},,10000.00,${at},00\n`,
    );
    const found = await runCli(gw, 'reconcile', acquirer as string, report);
    assert.equal(found.code, 1, 'a problem is exit 1');
    assert.match(found.out, /line 2: missing_at_gateway/);
    const applied = await runCli(gw, 'reconcile', acquirer as string, report, '--apply');
    assert.equal(applied.code, 0, applied.out + applied.err);
    assert.match(applied.out, /line 2: applied/);
    assert.equal((await gw.store.findTransaction(refs[1] as string))?.status, '00');
    assert.equal((await runCli(gw, 'reconcile', acquirer as string, join(dir, 'nope.csv'))).code, 2);

    // A broken journal: exit 1, naming the problem.
    await rawSql(
      gw,
      `INSERT INTO ledger_entries (at, kind, cause, merchant_id, amount_sen, fee_sen)
       VALUES (1, 'payout', 'payout:FORGED', 'nobody', 100, 0)`,
    );
    const broken = await runCli(gw, 'ledger', 'verify');
    assert.equal(broken.code, 1);
    assert.match(broken.out, /no_cause/);
  });
});

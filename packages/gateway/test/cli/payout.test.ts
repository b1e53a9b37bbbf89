// snapgate settlement payout --bank, payout list|show|approve|reject: settlement payouts through the
// bank from the command line, against a real gateway and its sandbox bank (docs/payouts.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runCli, runCliWithEnv } from '../helpers/cli.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { authenticate, snapCall } from '../helpers/snap.ts';

const idr = (value: string) => ({ value, currency: 'IDR' });

describe('snapgate settlement payout --bank, payout list|show|approve|reject', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ env: { SNAPGATE_PAYOUT_APPROVAL_ABOVE: '0' } });
  });
  after(async () => {
    await gw.close();
  });

  it('asks for a payout, which another key approves, and rejects another', async () => {
    const m = await gw.createMerchant();
    const account = { bankCode: '999', accountNo: '1234567890', accountName: 'SANDBOX 7890' };
    assert.equal((await gw.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: account })).status, 200);
    const c = await authenticate(gw.url, m);
    const settle = async (n: number) => {
      const g = await snapCall(gw.url, c, '/api/snap/v1.0/qr/qr-mpm-generate', {
        partnerReferenceNo: `CLI-PAYOUT-${n}`,
        amount: idr('10000.00'),
      });
      assert.equal((await gw.admin('POST', `/sandbox/qris/${g.body.referenceNo}/pay`, {})).status, 200);
      return (await gw.admin('POST', '/settlements', { merchantId: m.id })).body.items[0].id as string;
    };
    const approver = (await gw.admin('POST', '/admin-keys', { name: 'cli-approver', scope: 'approve' })).body.key;
    const asApprover = (...args: string[]) =>
      runCliWithEnv({ SNAPGATE_URL: gw.url, SNAPGATE_ADMIN_TOKEN: approver }, ...args);

    const first = await settle(1);
    assert.equal((await runCli(gw, 'settlement', 'payout', first)).code, 2, 'neither --bank nor --bank-reference');
    const asked = await runCli(gw, 'settlement', 'payout', first, '--bank', '--json');
    assert.equal(asked.code, 0, asked.err);
    const { payoutId, status } = JSON.parse(asked.out);
    assert.equal(status, 'paying');
    const listed = await runCli(gw, 'payout', 'list', '--state', 'awaiting_approval');
    assert.match(listed.out, new RegExp(payoutId));
    assert.notEqual((await runCli(gw, 'payout', 'approve', payoutId)).code, 0, 'the key that asked');
    const approved = await asApprover('payout', 'approve', payoutId, '--json');
    assert.equal(approved.code, 0, approved.err);
    assert.equal(JSON.parse(approved.out).state, 'paid');
    const shown = await runCli(gw, 'payout', 'show', payoutId, '--json');
    assert.deepEqual(
      JSON.parse(shown.out).exchanges.map((e: { service: string }) => e.service),
      ['17'],
    );

    const second = await settle(2);
    const other = JSON.parse((await runCli(gw, 'settlement', 'payout', second, '--bank', '--json')).out).payoutId;
    const rejected = await asApprover('payout', 'reject', other, '--json');
    assert.equal(rejected.code, 0, rejected.err);
    assert.equal(JSON.parse(rejected.out).state, 'rejected');
    assert.equal((await gw.admin('GET', `/settlements/${second}`)).body.status, 'open');
  });
});

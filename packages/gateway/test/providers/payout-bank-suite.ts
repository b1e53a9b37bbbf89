import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PayoutBank } from '../../src/providers/payout-bank.ts';
import {
  SANDBOX_BANK_PREFIX,
  SANDBOX_BANK_TOKEN_PATH,
  SANDBOX_SOURCE_ACCOUNT_NO,
} from '../../src/providers/sandbox-bank.ts';
import { sandboxProviderId } from '../../src/providers/sandbox-providers.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { registerPayoutBank } from '../helpers/payout-bank.ts';
import { postToken, type SnapCaller, send, snapCall, tokenRequest } from '../helpers/snap.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

let seq = 0;
/** A partnerReferenceNo no other test uses. */
const ref = () => `PO${Date.now()}${++seq}`;
const idr = (value: string) => ({ value, currency: 'IDR' });

// The payout bank client (the gateway's own SNAP client) against the built-in sandbox bank, which the
// gateway serves over HTTP in sandbox mode: every call below is a real token request and a real
// signed call on 127.0.0.1, checked by the sandbox bank as a bank checks them.
export function payoutBankSuite(under: StoreUnderTest): void {
  describe(`the payout bank: snapgate as a SNAP Transfer Credit client of the sandbox bank (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void> = async () => undefined;
    let bank: PayoutBank;
    const client = () => gw.gateway.payoutBank;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store });
      bank = (await client().current()) as PayoutBank;
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('is the sandbox bank in sandbox mode when no provider is the payout bank', async () => {
      assert.deepEqual(
        { ...bank, target: undefined },
        {
          providerId: await sandboxProviderId(gw.store, 'bank'),
          name: 'Sandbox Bank',
          bankCode: '999',
          sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO,
          isSandbox: true,
          target: undefined,
        },
      );
      assert.equal(bank.target.pathPrefix, SANDBOX_BANK_PREFIX);
    });

    it('asks who holds an account: 15 at the payout bank itself, 16 at another, the holder SANDBOX <last 4>', async () => {
      const inside = await client().inquire(bank, { bankCode: '999', accountNo: '1234567890' }, 'INQ-1');
      assert.equal(inside.outcome, 'found');
      assert.equal(inside.service, '15');
      assert.deepEqual(inside.exchange.request, { partnerReferenceNo: 'INQ-1', beneficiaryAccountNo: '1234567890' });
      assert.equal(inside.exchange.status, 200);
      const { referenceNo, ...answered } = inside.exchange.response as Record<string, unknown>;
      assert.match(String(referenceNo), /^999\d+$/);
      assert.deepEqual(answered, {
        responseCode: '2001500',
        responseMessage: 'Successful',
        partnerReferenceNo: 'INQ-1',
        beneficiaryAccountName: 'SANDBOX 7890',
        beneficiaryAccountNo: '1234567890',
        currency: 'IDR',
      });
      const outside = await client().inquire(bank, { bankCode: '014', accountNo: '8888012345' });
      assert.deepEqual(
        [outside.outcome, outside.service, outside.outcome === 'found' && outside.accountName],
        ['found', '16', 'SANDBOX 2345'],
      );
      assert.deepEqual(outside.exchange.request, { beneficiaryBankCode: '014', beneficiaryAccountNo: '8888012345' });
      assert.equal((outside.exchange.response as { beneficiaryBankCode: string }).beneficiaryBankCode, '014');
    });

    it('hears 404 xx11 for an account ending 000, by the service asked', async () => {
      for (const [bankCode, code] of [
        ['999', '4041511'],
        ['014', '4041611'],
      ] as const) {
        const r = await client().inquire(bank, { bankCode, accountNo: '5550000' });
        assert.equal(r.outcome, 'refused');
        assert.equal(r.exchange.status, 404);
        assert.deepEqual(r.exchange.response, {
          responseCode: code,
          responseMessage: 'Invalid Card/Account/Customer [Account Not Found]',
        });
      }
    });

    it('transfers at once to any other account: 17 inside the bank, 18 to another', async () => {
      const intra = ref();
      const a = await client().transfer(bank, {
        partnerReferenceNo: intra,
        amount: '150000.00',
        beneficiary: { bankCode: '999', accountNo: '1234567890', name: 'Budi' },
        remark: 'settlement',
      });
      assert.deepEqual([a.outcome, a.service, a.responseCode], ['success', '17', '2001700']);
      assert.deepEqual(a.exchange.request, {
        partnerReferenceNo: intra,
        amount: idr('150000.00'),
        beneficiaryAccountNo: '1234567890',
        sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO,
        transactionDate: a.transactionDate,
        remark: 'settlement',
      });
      assert.deepEqual(a.exchange.response, {
        responseCode: '2001700',
        responseMessage: 'Successful',
        referenceNo: a.referenceNo,
        partnerReferenceNo: intra,
        amount: idr('150000.00'),
        beneficiaryAccountNo: '1234567890',
        sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO,
        transactionDate: a.transactionDate,
      });
      const inter = ref();
      const b = await client().transfer(bank, {
        partnerReferenceNo: inter,
        amount: '25000.00',
        beneficiary: { bankCode: '014', accountNo: '8888012345', name: 'Siti' },
      });
      assert.deepEqual([b.outcome, b.service, b.responseCode], ['success', '18', '2001800']);
      assert.equal((b.exchange.request as { beneficiaryAccountName: string }).beneficiaryAccountName, 'Siti');
      assert.equal((b.exchange.request as { beneficiaryBankCode: string }).beneficiaryBankCode, '014');
      const status = await client().status(bank, {
        service: '18',
        partnerReferenceNo: inter,
        transactionDate: b.transactionDate,
        amount: '25000.00',
      });
      assert.deepEqual(
        [status.outcome, status.latestTransactionStatus, status.referenceNo],
        ['success', '00', b.referenceNo],
      );
      assert.deepEqual(status.exchange.response, {
        responseCode: '2003600',
        responseMessage: 'Successful',
        originalReferenceNo: b.referenceNo,
        originalPartnerReferenceNo: inter,
        serviceCode: '18',
        transactionDate: b.transactionDate,
        amount: idr('25000.00'),
        beneficiaryAccountNo: '8888012345',
        beneficiaryBankCode: '014',
        previousResponseCode: '2001800',
        referenceNumber: b.referenceNo,
        sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO,
        latestTransactionStatus: '00',
        transactionStatusDesc: 'Success',
      });
    });

    it('is refused 404 xx11 for an account ending 000, and keeps no transfer', async () => {
      for (const [bankCode, code] of [
        ['999', '4041711'],
        ['014', '4041811'],
      ] as const) {
        const partnerReferenceNo = ref();
        const r = await client().transfer(bank, {
          partnerReferenceNo,
          amount: '1000.00',
          beneficiary: { bankCode, accountNo: '4440000', name: 'Nobody' },
        });
        assert.deepEqual([r.outcome, r.responseCode, r.exchange.status], ['refused', code, 404]);
        assert.equal(await gw.store.findSandboxTransfer({ partnerReferenceNo }), undefined);
        const status = await client().status(bank, { service: r.service, partnerReferenceNo });
        assert.equal(status.outcome, 'not-found');
        assert.deepEqual(status.exchange.response, {
          responseCode: '4043601',
          responseMessage: 'Transaction Not Found',
        });
      }
    });

    it('takes a transfer to an account ending 111 as pending, paid at the next status query', async () => {
      const partnerReferenceNo = ref();
      const r = await client().transfer(bank, {
        partnerReferenceNo,
        amount: '50000.00',
        beneficiary: { bankCode: '014', accountNo: '7770111', name: 'Pending Paid' },
      });
      assert.deepEqual(
        [r.outcome, r.exchange.status, r.responseCode, r.responseMessage],
        ['pending', 202, '2021800', 'Request In Progress'],
      );
      assert.equal((await gw.store.findSandboxTransfer({ partnerReferenceNo }))?.status, '03');
      const first = await client().status(bank, { service: '18', partnerReferenceNo, referenceNo: r.referenceNo });
      assert.deepEqual([first.outcome, first.latestTransactionStatus], ['success', '00']);
      assert.equal((first.exchange.response as { previousResponseCode: string }).previousResponseCode, '2021800');
      const again = await client().status(bank, { service: '18', partnerReferenceNo });
      assert.deepEqual([again.outcome, again.latestTransactionStatus], ['success', '00']);
    });

    it('takes a transfer to an account ending 222 as pending, failed at the next status query', async () => {
      const partnerReferenceNo = ref();
      const r = await client().transfer(bank, {
        partnerReferenceNo,
        amount: '50000.00',
        beneficiary: { bankCode: '999', accountNo: '7770222', name: 'Pending Failed' },
      });
      assert.deepEqual([r.outcome, r.responseCode], ['pending', '2021700']);
      const first = await client().status(bank, { service: '17', partnerReferenceNo });
      assert.deepEqual([first.outcome, first.latestTransactionStatus], ['failed', '06']);
      assert.equal((first.exchange.response as { transactionStatusDesc: string }).transactionStatusDesc, 'Failed');
      // The other service's code does not find it.
      assert.equal((await client().status(bank, { service: '18', partnerReferenceNo })).outcome, 'not-found');
    });

    it('makes one transfer of a partnerReferenceNo sent twice: the repeat answers the first answer', async () => {
      const partnerReferenceNo = ref();
      const send = (amount: string, accountNo: string) =>
        client().transfer(bank, {
          partnerReferenceNo,
          amount,
          beneficiary: { bankCode: '014', accountNo, name: 'Twice' },
        });
      const first = await send('70000.00', '1212121212');
      const again = await send('70000.00', '1212121212');
      const other = await send('99.00', '3434343434');
      assert.equal(first.outcome, 'success');
      assert.deepEqual(again.exchange.response, first.exchange.response);
      assert.deepEqual(other.exchange.response, first.exchange.response);
      const kept = await gw.store.findSandboxTransfer({ partnerReferenceNo });
      assert.deepEqual([kept?.referenceNo, kept?.amount, kept?.status], [first.referenceNo, '70000.00', '00']);
    });

    it('answers a signed call only with its own token and snapgate’s signature', async () => {
      const sandbox = await gw.store.findProviderById(await sandboxProviderId(gw.store, 'bank'));
      assert.ok(sandbox);
      const token = await send(
        gw.url,
        'POST',
        SANDBOX_BANK_TOKEN_PATH,
        ...(Object.values(tokenRequest({ clientKey: sandbox.clientKey, clientSecret: sandbox.clientSecret })) as [
          Record<string, string>,
          string,
        ]),
      );
      assert.equal(token.status, 200, token.text);
      assert.equal(token.body.responseCode, '2007300');
      const caller: SnapCaller = {
        clientKey: sandbox.clientKey,
        clientSecret: sandbox.clientSecret,
        partnerId: sandbox.clientKey,
        accessToken: token.body.accessToken,
      };
      const path = `${SANDBOX_BANK_PREFIX}/account-inquiry-internal`;
      const body = { beneficiaryAccountNo: '1234567890' };
      assert.equal((await snapCall(gw.url, caller, path, body)).status, 200);
      const badSignature = await snapCall(gw.url, caller, path, body, { secret: 'not-the-secret' });
      assert.deepEqual(
        [badSignature.status, badSignature.body],
        [401, { responseCode: '4011500', responseMessage: 'Unauthorized. [Invalid Signature]' }],
      );
      // The gateway's own tokens (the sandbox bank's provider token included) open nothing here.
      const gatewayToken = await postToken(gw.url, {
        clientKey: sandbox.clientKey,
        clientSecret: sandbox.clientSecret,
      });
      assert.equal(gatewayToken.status, 200, gatewayToken.text);
      const crossed = await snapCall(gw.url, { ...caller, accessToken: gatewayToken.body.accessToken }, path, body);
      assert.deepEqual(
        [crossed.status, crossed.body],
        [401, { responseCode: '4011501', responseMessage: 'Invalid Token (B2B)' }],
      );
      const missing = await snapCall(gw.url, caller, path, {});
      assert.deepEqual(
        [missing.status, missing.body],
        [400, { responseCode: '4001502', responseMessage: 'Invalid Mandatory Field {beneficiaryAccountNo}' }],
      );
      const wrongSecret = await send(
        gw.url,
        'POST',
        SANDBOX_BANK_TOKEN_PATH,
        ...(Object.values(tokenRequest({ clientKey: sandbox.clientKey, clientSecret: 'nope' })) as [
          Record<string, string>,
          string,
        ]),
      );
      assert.deepEqual(
        [wrongSecret.status, wrongSecret.body],
        [401, { responseCode: '4017300', responseMessage: 'Unauthorized. [Invalid Signature]' }],
      );
    });

    it('calls a provider that is the payout bank through its outbound settings, instead of the sandbox bank', async () => {
      // A "real" payout bank whose outbound settings lead to the sandbox bank's door, as to a bank's.
      const created = await registerPayoutBank(gw, gw.url, 'Bank Payout');
      assert.deepEqual(created.payouts, { sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO });
      try {
        const payoutBank = (await client().current()) as PayoutBank;
        assert.deepEqual(
          [payoutBank.providerId, payoutBank.bankCode, payoutBank.isSandbox],
          [created.id, '014', false],
        );
        // 014 is now the payout bank's own code: its accounts are asked about inside it (15).
        const r = await client().inquire(payoutBank, { bankCode: '014', accountNo: '1234567890' });
        assert.deepEqual([r.outcome, r.service], ['found', '15']);
        // Disabled, it pays nothing, and the sandbox bank does not stand in for it.
        assert.equal((await gw.admin('PATCH', `/providers/${created.id}`, { status: 'disabled' })).status, 200);
        assert.equal(await client().current(), undefined);
      } finally {
        const cleared = await gw.admin('PATCH', `/providers/${created.id}`, { payouts: null, outbound: null });
        assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      }
      assert.equal((await client().current())?.isSandbox, true);
    });

    it('has one payout bank at most: a second is refused 409, by create, by patch and at once', async () => {
      const outbound = { baseUrl: 'https://bank.example', clientKey: 'ck', clientSecret: 'cs', partnerId: 'P1' };
      const payouts = { sourceAccountNo: '1234567890' };
      const bank = (name: string, bankCode: string, more: Record<string, unknown> = {}) =>
        gw.admin('POST', '/providers', { name, kind: 'bank', bankCode, ...more });
      const first = await bank('Payout One', '101', { outbound, payouts });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const taken = `another provider (${first.body.id}) is the payout bank: set its payouts to null first (one payout bank at a time)`;
      const second = await bank('Payout Two', '102', { outbound, payouts });
      assert.equal(second.status, 409);
      assert.equal(second.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.deepEqual(second.body, { type: 'about:blank', title: 'Conflict', status: 409, detail: taken });
      const plain = await bank('Payout Two', '102');
      assert.equal(plain.status, 201, JSON.stringify(plain.body));
      const patched = await gw.admin('PATCH', `/providers/${plain.body.id}`, { outbound, payouts });
      assert.deepEqual([patched.status, patched.body.detail], [409, taken]);
      assert.equal(
        (await gw.admin('PATCH', `/providers/${first.body.id}`, { payouts: null, outbound: null })).status,
        200,
      );
      // Two at once: the database keeps one.
      const third = await bank('Payout Three', '103');
      const both = await Promise.all(
        [plain.body.id, third.body.id].map((id) => gw.admin('PATCH', `/providers/${id}`, { outbound, payouts })),
      );
      assert.deepEqual(both.map((r) => r.status).sort(), [200, 409]);
      const winner = both[0]?.status === 200 ? plain.body.id : third.body.id;
      assert.equal((await gw.store.findPayoutBank())?.id, winner);
      assert.equal((await client().current())?.providerId, winner);
      assert.equal((await gw.admin('PATCH', `/providers/${winner}`, { payouts: null, outbound: null })).status, 200);
      assert.equal((await client().current())?.isSandbox, true);
    });

    it('refuses payout settings that cannot work (400, every problem named)', async () => {
      const outbound = { baseUrl: 'https://bank.example', clientKey: 'ck', clientSecret: 'cs', partnerId: 'P1' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ kind: 'acquirer', outbound, payouts: { sourceAccountNo: '1' } }, 'payouts: only a bank is the payout bank'],
        [
          { kind: 'bank', payouts: { sourceAccountNo: '1' } },
          'payouts: the payout bank needs outbound settings (snapgate calls it)',
        ],
        [
          { kind: 'bank', outbound },
          'outbound: only an acquirer is called by snapgate, and a bank only as the payout bank (with payouts)',
        ],
        [
          { kind: 'bank', outbound, payouts: { sourceAccountNo: '12-3' } },
          'payouts.sourceAccountNo: must be 1 to 19 digits',
        ],
        [
          { kind: 'bank', outbound, payouts: { sourceAccountNo: '1'.repeat(20) } },
          'payouts.sourceAccountNo: must be 1 to 19 digits',
        ],
        [{ kind: 'bank', outbound, payouts: {} }, 'payouts.sourceAccountNo: Invalid input'],
        [{ kind: 'bank', outbound, payouts: { sourceAccountNo: '1', extra: 1 } }, 'payouts: Unrecognized key'],
      ];
      for (const [body, problem] of cases) {
        const r = await gw.admin('POST', '/providers', { name: 'Bad', bankCode: '120', ...body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.ok(
          (r.body.errors as string[]).some((e) => e.startsWith(problem)),
          `${JSON.stringify(body)}: ${JSON.stringify(r.body.errors)}`,
        );
      }
      const sandbox = await sandboxProviderId(gw.store, 'bank');
      const onSandbox = await gw.admin('PATCH', `/providers/${sandbox}`, {
        outbound,
        payouts: { sourceAccountNo: '1' },
      });
      assert.equal(onSandbox.status, 400);
      assert.deepEqual(onSandbox.body.errors, ['payouts: the sandbox bank is the payout bank of sandbox mode already']);
      // Its outbound settings go with its payouts: removing one alone is refused.
      const payoutBank = await gw.admin('POST', '/providers', {
        name: 'Payout Four',
        kind: 'bank',
        bankCode: '104',
        outbound,
        payouts: { sourceAccountNo: '1' },
      });
      assert.equal(payoutBank.status, 201, JSON.stringify(payoutBank.body));
      const alone = await gw.admin('PATCH', `/providers/${payoutBank.body.id}`, { outbound: null });
      assert.deepEqual(alone.body.errors, ['payouts: the payout bank needs outbound settings (snapgate calls it)']);
      assert.equal(
        (await gw.admin('PATCH', `/providers/${payoutBank.body.id}`, { payouts: null, outbound: null })).status,
        200,
      );
    });
  });
}

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { StoreUnderTest } from '../helpers/store-under-test.ts';

const ACCOUNT = { bankCode: '014', accountNo: '1234567890', accountName: 'Budi Santoso' };
const PROBLEM = 'application/problem+json; charset=utf-8';

// A merchant's bank account, verified at the payout bank when it is saved: here the built-in
// sandbox bank (sandbox mode), reached over HTTP as a real payout bank would be.
export function payoutAccountSuite(under: StoreUnderTest): void {
  describe(`merchants: the payout account, verified at the payout bank (${under.name})`, () => {
    let gw: TestGateway;
    let cleanup: () => Promise<void> = async () => undefined;

    before(async () => {
      const opened = await under.open();
      cleanup = opened.cleanup;
      gw = await startGateway({ store: opened.store });
    });
    after(async () => {
      await gw.close();
      await cleanup();
    });

    it('saves an account with the holder’s name the bank answered, and when', async () => {
      const before = Date.now();
      const m = await gw.createMerchant({ payoutAccount: ACCOUNT });
      const { verifiedAt, ...account } = m.payoutAccount as Record<string, string>;
      assert.deepEqual(account, { ...ACCOUNT, verifiedName: 'SANDBOX 7890' });
      assert.ok(Date.parse(verifiedAt as string) >= before - 1000 && Date.parse(verifiedAt as string) <= Date.now());
      assert.equal(m.payoutSchedule, 'manual');
      assert.deepEqual((await gw.admin('GET', `/merchants/${m.id}`)).body.payoutAccount, m.payoutAccount);
      // None given: none, and the default schedule.
      const plain = await gw.createMerchant();
      assert.deepEqual([plain.payoutAccount, plain.payoutSchedule], [null, 'manual']);
    });

    it('verifies every other sandbox account, whatever its bank code (111 and 222 exist too)', async () => {
      const m = await gw.createMerchant();
      for (const [bankCode, accountNo, name] of [
        ['999', '888801000157508', 'SANDBOX 7508'],
        ['002', '4321', 'SANDBOX 4321'],
        ['014', '5550111', 'SANDBOX 0111'],
        ['014', '5550222', 'SANDBOX 0222'],
      ] as const) {
        const r = await gw.admin('PATCH', `/merchants/${m.id}`, {
          payoutAccount: { bankCode, accountNo, accountName: 'Toko Maju' },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.deepEqual(
          { ...r.body.payoutAccount, verifiedAt: undefined },
          { bankCode, accountNo, accountName: 'Toko Maju', verifiedName: name, verifiedAt: undefined },
        );
      }
    });

    it('refuses an account the bank does not know with 422 and the bank’s code (15 at the bank, 16 at another); the old account stays', async () => {
      const m = await gw.createMerchant({ name: 'Kept', payoutAccount: ACCOUNT });
      for (const [bankCode, responseCode, service] of [
        ['999', '4041511', '15'],
        ['014', '4041611', '16'],
      ] as const) {
        const r = await gw.admin('PATCH', `/merchants/${m.id}`, {
          name: 'Changed',
          payoutAccount: { bankCode, accountNo: '7770000', accountName: 'Nobody' },
        });
        assert.equal(r.status, 422);
        assert.equal(r.headers.get('content-type'), PROBLEM);
        const said = `${responseCode} Invalid Card/Account/Customer [Account Not Found]`;
        assert.deepEqual(r.body, {
          type: 'about:blank',
          title: 'Unprocessable Content',
          status: 422,
          detail: `the payout bank refused the account inquiry (${service}): ${said}`,
          errors: [`payoutAccount: the payout bank refused the account: ${said}`],
          responseCode,
          responseMessage: 'Invalid Card/Account/Customer [Account Not Found]',
        });
        const now = (await gw.admin('GET', `/merchants/${m.id}`)).body;
        assert.deepEqual([now.name, now.payoutAccount], ['Kept', m.payoutAccount]);
      }
    });

    it('creates no merchant whose account the bank refuses', async () => {
      const before = (await gw.admin('GET', '/merchants?limit=500')).body.items.length;
      const r = await gw.admin('POST', '/merchants', {
        name: 'Refused',
        payoutAccount: { ...ACCOUNT, accountNo: '1000' },
      });
      assert.deepEqual([r.status, r.body.responseCode], [422, '4041611']);
      assert.equal((await gw.admin('GET', '/merchants?limit=500')).body.items.length, before);
    });

    it('keeps the payout schedule, and clears the account with null', async () => {
      const m = await gw.createMerchant({ payoutAccount: ACCOUNT, payoutSchedule: 'auto' });
      assert.equal(m.payoutSchedule, 'auto');
      const manual = await gw.admin('PATCH', `/merchants/${m.id}`, { payoutSchedule: 'manual' });
      assert.deepEqual([manual.status, manual.body.payoutSchedule], [200, 'manual']);
      // A patch without the account leaves it as it was, unverified again.
      assert.deepEqual(manual.body.payoutAccount, m.payoutAccount);
      const cleared = await gw.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: null, payoutSchedule: 'auto' });
      assert.deepEqual([cleared.status, cleared.body.payoutAccount, cleared.body.payoutSchedule], [200, null, 'auto']);
      assert.deepEqual((await gw.admin('GET', `/merchants/${m.id}`)).body.payoutSchedule, 'auto');
    });

    it('refuses bad input for each field with 400 and the field named; the account stays', async () => {
      const m = await gw.createMerchant({ payoutAccount: ACCOUNT });
      const cases: Array<[unknown, string]> = [
        [{ payoutAccount: { ...ACCOUNT, bankCode: '14' } }, 'payoutAccount.bankCode: must be 3 digits'],
        [{ payoutAccount: { ...ACCOUNT, bankCode: 'BCA' } }, 'payoutAccount.bankCode: must be 3 digits'],
        [{ payoutAccount: { ...ACCOUNT, bankCode: 14 } }, 'payoutAccount.bankCode: Invalid input: expected string'],
        [{ payoutAccount: { ...ACCOUNT, accountNo: '12-34' } }, 'payoutAccount.accountNo: must be 1 to 34 digits'],
        [
          { payoutAccount: { ...ACCOUNT, accountNo: '1'.repeat(35) } },
          'payoutAccount.accountNo: must be 1 to 34 digits',
        ],
        [{ payoutAccount: { ...ACCOUNT, accountNo: '' } }, 'payoutAccount.accountNo: must be 1 to 34 digits'],
        [{ payoutAccount: { ...ACCOUNT, accountName: '  ' } }, 'payoutAccount.accountName: Too small'],
        [{ payoutAccount: { ...ACCOUNT, accountName: 'x'.repeat(101) } }, 'payoutAccount.accountName: Too big'],
        [{ payoutAccount: { bankCode: '014', accountNo: '123' } }, 'payoutAccount.accountName: Invalid input'],
        [{ payoutAccount: { ...ACCOUNT, verifiedName: 'Me' } }, 'payoutAccount: Unrecognized key'],
        [{ payoutAccount: 'BCA 123' }, 'payoutAccount: Invalid input'],
        [{ payoutSchedule: 'weekly' }, 'payoutSchedule: Invalid option'],
      ];
      for (const [body, problem] of cases) {
        const r = await gw.admin('PATCH', `/merchants/${m.id}`, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.headers.get('content-type'), PROBLEM);
        assert.equal(r.body.title, 'Bad Request');
        assert.ok(
          (r.body.errors as string[]).some((e) => e.startsWith(problem)),
          `${JSON.stringify(body)}: ${JSON.stringify(r.body.errors)}`,
        );
        const created = await gw.admin('POST', '/merchants', { name: 'Bad', ...(body as object) });
        assert.equal(created.status, 400, JSON.stringify(body));
      }
      assert.deepEqual((await gw.admin('GET', `/merchants/${m.id}`)).body.payoutAccount, m.payoutAccount);
    });

    it('answers 409 in production mode while no provider is the payout bank, and 502 while the payout bank does not answer', async () => {
      // A bank that does not answer costs this test at most the upstream timeout.
      const prod = await startGateway({ env: { SNAPGATE_MODE: 'production', SNAPGATE_UPSTREAM_TIMEOUT_MS: '3000' } });
      try {
        const m = await prod.createMerchant();
        const r = await prod.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: ACCOUNT });
        assert.equal(r.status, 409);
        assert.equal(r.headers.get('content-type'), PROBLEM);
        assert.deepEqual(r.body, {
          type: 'about:blank',
          title: 'Conflict',
          status: 409,
          detail: 'there is no active payout bank to verify the account at: make a bank provider the payout bank',
        });
        assert.equal((await prod.admin('POST', '/merchants', { name: 'X', payoutAccount: ACCOUNT })).status, 409);
        // Other settings of the same merchant save as ever.
        assert.equal((await prod.admin('PATCH', `/merchants/${m.id}`, { payoutSchedule: 'auto' })).status, 200);
        // A payout bank that does not answer (nothing listens there): 502, nothing saved.
        const bank = await prod.admin('POST', '/providers', {
          name: 'Payout Bank',
          kind: 'bank',
          bankCode: '014',
          outbound: { baseUrl: 'https://payout-bank.invalid', clientKey: 'ck', clientSecret: 'cs', partnerId: 'P1' },
          payouts: { sourceAccountNo: '1234567890123' },
        });
        assert.equal(bank.status, 201, JSON.stringify(bank.body));
        const unanswered = await prod.admin('PATCH', `/merchants/${m.id}`, { payoutAccount: ACCOUNT });
        assert.deepEqual([unanswered.status, unanswered.body.title], [502, 'Bad Gateway']);
        assert.match(unanswered.body.detail, /^the payout bank gave no answer to the account inquiry \(15\)/);
        assert.equal((await prod.admin('GET', `/merchants/${m.id}`)).body.payoutAccount, null);
      } finally {
        await prod.close();
      }
    });
  });
}

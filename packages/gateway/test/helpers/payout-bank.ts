import assert from 'node:assert/strict';
import {
  SANDBOX_BANK_PREFIX,
  SANDBOX_BANK_TOKEN_PATH,
  SANDBOX_SOURCE_ACCOUNT_NO,
} from '../../src/providers/sandbox-bank.ts';
import { sandboxProviderId } from '../../src/providers/sandbox-providers.ts';
import type { TestGateway } from './gateway.ts';

/**
 * A "real" payout bank (bank code 014) registered through the admin API: its outbound settings lead
 * to `baseUrl`, where it is called as the sandbox bank is (the sandbox bank's own credentials, token
 * path and prefix), and it pays from the sandbox bank's source account. The provider as the admin API
 * answered it.
 */
export async function registerPayoutBank(
  gw: TestGateway,
  baseUrl: string,
  name: string,
): Promise<{ id: string; payouts: unknown }> {
  const sandbox = await gw.store.findProviderById(await sandboxProviderId(gw.store, 'bank'));
  assert.ok(sandbox);
  const created = await gw.admin('POST', '/providers', {
    name,
    kind: 'bank',
    bankCode: '014',
    outbound: {
      baseUrl,
      clientKey: sandbox.clientKey,
      clientSecret: sandbox.clientSecret,
      partnerId: sandbox.clientKey,
      tokenPath: SANDBOX_BANK_TOKEN_PATH,
      pathPrefix: SANDBOX_BANK_PREFIX,
    },
    payouts: { sourceAccountNo: SANDBOX_SOURCE_ACCOUNT_NO },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body;
}

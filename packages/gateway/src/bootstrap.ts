import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createMerchantService } from './merchants/merchant-service.ts';
import { hashAdminToken } from './operators/admin-keys.ts';
import { ensureSandboxProviders } from './providers/sandbox-providers.ts';
import type { Store } from './store/store.ts';

export interface BootstrapResult {
  jwtKey: Buffer;
  /** Signs `rsa-sha256` callbacks; generated once and shared by every instance. */
  callbackPrivateKey: KeyObject;
  callbackPublicKeyPem: string;
  adminTokenSha256: string;
  /** SNAPGATE_ADMIN_TOKEN is set, but the bootstrap key it names was revoked: it opens nothing. */
  bootstrapRevoked?: boolean;
  /** Set only when this start generated the admin token: shown once. */
  generatedAdminToken?: string;
  /** Set only when this start created the sandbox merchant: shown once. */
  sandboxMerchant?: { id: string; clientKey: string; clientSecret: string; partnerId: string };
}

/** Keys and first-run state every instance shares through the store. */
export async function bootstrap(store: Store, config: Config, clock: Clock): Promise<BootstrapResult> {
  const jwtKey = Buffer.from(
    await store.getOrCreateSetting('jwt_hs256_key', () => randomBytes(32).toString('base64')),
    'base64',
  );
  const privatePem = await store.getOrCreateSetting('callback_rsa_private_pem', () =>
    generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  );
  const callbackPrivateKey = createPrivateKey(privatePem);
  const callbackPublicKeyPem = createPublicKey(callbackPrivateKey).export({ type: 'spki', format: 'pem' }).toString();
  const result: BootstrapResult = { jwtKey, callbackPrivateKey, callbackPublicKeyPem, adminTokenSha256: '' };
  if (config.adminToken) {
    result.adminTokenSha256 = hashAdminToken(config.adminToken);
  } else {
    let generated: string | undefined;
    result.adminTokenSha256 = await store.getOrCreateSetting('admin_token_sha256', () => {
      generated = `sgadm_${randomBytes(24).toString('base64url')}`;
      return hashAdminToken(generated);
    });
    if (generated && hashAdminToken(generated) === result.adminTokenSha256) result.generatedAdminToken = generated;
  }
  // The bootstrap token is the first admin key: it stays an admin key until revoked.
  await store.upsertBootstrapAdminKey('bootstrap', result.adminTokenSha256, clock.now());
  // A revoked bootstrap key stays revoked, whatever token it is given again: say so at start.
  const bootstrapKey = (await store.listAdminKeys()).find((k) => k.name === 'bootstrap');
  if (config.adminToken && bootstrapKey?.revokedAt) result.bootstrapRevoked = true;
  if (config.mode === 'sandbox') await ensureSandboxProviders(store, clock.now());
  if (config.mode === 'sandbox' && (await store.countMerchants()) === 0) {
    const merchants = createMerchantService({ store, clock, mode: config.mode });
    const { merchant, clientSecret } = await merchants.create({ name: 'Sandbox Merchant', merchantCity: 'JAKARTA' });
    result.sandboxMerchant = {
      id: merchant.id,
      clientKey: merchant.clientKey,
      clientSecret,
      partnerId: merchant.partnerId,
    };
  }
  return result;
}

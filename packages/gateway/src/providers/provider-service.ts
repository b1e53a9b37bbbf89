import { createPrivateKey, randomUUID } from 'node:crypto';
import { B2B_TOKEN_PATH } from '@snapgate/snap';
import { type AddressGuard, createAddressGuard } from '../address-guard.ts';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import { callbackUrlProblemResolved } from '../merchants/callback-url.ts';
import { newClientSecret } from '../merchants/merchant-service.ts';
import { isUsableRsaPublicKey } from '../merchants/public-key.ts';
import type { ProviderPayouts } from '../records/payout-records.ts';
import type { ProviderKind, ProviderOutbound, ProviderPatch, ProviderRecord } from '../records/provider-records.ts';
import type { Page, PageRequest, StoredInboundCall } from '../records/records.ts';
import { UniqueViolation } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import type { NewProviderInput, OutboundInput, PayoutsInput } from './provider-fields.ts';
import { DEFAULT_PATH_PREFIX } from './snap-client.ts';

export type { NewProviderInput, OutboundInput, ProviderKind, ProviderRecord, StoredInboundCall };

/** What the admin API shows of a provider: never a secret, its own or the outbound one. */
export function providerView(p: ProviderRecord) {
  const { clientSecret: _s, previousSecret: _p, tokensNotBefore: _t, outbound, ...rest } = p;
  return {
    ...rest,
    // An e-wallet has no bank code (the sandbox wallet's '999' of earlier versions is not shown).
    bankCode: p.payOption ? null : p.bankCode,
    outbound: outbound === null ? null : outboundView(outbound),
    payouts: p.payouts ?? null,
    payOption: p.payOption ?? null,
    previousValidUntil: p.previousValidUntil === null ? null : new Date(p.previousValidUntil).toISOString(),
    createdAt: new Date(p.createdAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  };
}

function outboundView(o: ProviderOutbound) {
  const { clientSecret: _s, privateKeyPem, ...rest } = o;
  return { ...rest, hasPrivateKey: privateKeyPem !== null };
}

function outboundOf(input: OutboundInput): ProviderOutbound {
  return {
    baseUrl: input.baseUrl.replace(/\/+$/, ''),
    clientKey: input.clientKey,
    clientSecret: input.clientSecret,
    privateKeyPem: input.privateKeyPem ?? null,
    partnerId: input.partnerId,
    channelId: input.channelId ?? '95221',
    tokenPath: input.tokenPath ?? B2B_TOKEN_PATH,
    pathPrefix: input.pathPrefix ?? DEFAULT_PATH_PREFIX,
  };
}

const payoutsOf = (input: PayoutsInput): ProviderPayouts => ({ sourceAccountNo: input.sourceAccountNo });

async function checkSettings(
  s: {
    kind: ProviderKind;
    publicKeyPem?: string | null | undefined;
    outbound?: ProviderOutbound | null | undefined;
    acquiresGatewayQris?: boolean | undefined;
  },
  mode: Mode,
  guard: AddressGuard = createAddressGuard(mode === 'production'),
): Promise<string[]> {
  const problems: string[] = [];
  if (s.acquiresGatewayQris && s.kind !== 'acquirer') {
    problems.push('acquiresGatewayQris: only an acquirer acquires QRIS');
  }
  if (s.publicKeyPem && !isUsableRsaPublicKey(s.publicKeyPem)) {
    problems.push('publicKeyPem: must be a PEM-encoded RSA public key of at least 2048 bits');
  }
  if (s.outbound) {
    let url: URL | undefined;
    try {
      url = new URL(s.outbound.baseUrl);
    } catch {
      problems.push('outbound.baseUrl: must be an absolute http(s) URL');
    }
    if (url && url.protocol !== 'https:' && (mode === 'production' || url.protocol !== 'http:')) {
      problems.push(`outbound.baseUrl: must be https${mode === 'production' ? ' in production mode' : ' or http'}`);
    } else if (url) {
      // The one address guard of every outbound URL, as for callbacks (and again at every connection).
      const p = await callbackUrlProblemResolved(s.outbound.baseUrl, guard);
      if (p) problems.push(`outbound.baseUrl: ${p}`);
    }
    // Paths belong in tokenPath and pathPrefix: the base URL is the acquirer's origin.
    if (
      url &&
      (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    ) {
      problems.push(
        'outbound.baseUrl: must be an origin only (scheme, host, port); put paths in tokenPath and pathPrefix',
      );
    }
    if (s.outbound.privateKeyPem !== null) {
      try {
        if (createPrivateKey(s.outbound.privateKeyPem).asymmetricKeyType !== 'rsa') throw new TypeError('not RSA');
      } catch {
        problems.push('outbound.privateKeyPem: must be a PEM-encoded RSA private key');
      }
    }
  }
  return problems;
}

/**
 * snapgate calls an acquirer that issues QRIS, and the payout bank: a bank's outbound settings and
 * its payouts go together. `outbound` and `payouts` are the provider's as they would be after.
 */
function payoutProblems(s: {
  kind: ProviderKind;
  isSandbox: boolean;
  outbound: ProviderOutbound | null;
  payouts: ProviderPayouts | null;
}): string[] {
  if (s.payouts && s.kind !== 'bank') return ['payouts: only a bank is the payout bank'];
  if (s.payouts && s.isSandbox) return ['payouts: the sandbox bank is the payout bank of sandbox mode already'];
  if (s.kind !== 'bank') return [];
  if (s.outbound && !s.payouts) {
    return ['outbound: only an acquirer is called by snapgate, and a bank only as the payout bank (with payouts)'];
  }
  if (s.payouts && !s.outbound) return ['payouts: the payout bank needs outbound settings (snapgate calls it)'];
  return [];
}

/** The one-acquirer rule of migration 016, as SQLite and PostgreSQL name it. */
const isGatewayQrisConstraint = (c: string) =>
  c === 'providers.acquires_gateway_qris' || c === 'providers_one_gateway_qris_acquirer';
/** The one-payout-bank rule of migration 029 (SQLite names the index in its message). */
const isPayoutBankConstraint = (c: string) => c.includes('providers_one_payout_bank');
/** The one-active-wallet-per-payOption rule of migration 040. */
const isPayOptionConstraint = (c: string) => c.includes('pay_option');
const payOptionTaken = (payOption: string | null | undefined) =>
  conflict(`payOption ${payOption} is already served by an active e-wallet: disable that one first (one at a time)`);

/** What an e-wallet's (a provider with a payOption) settings must keep: its outbound settings (snapgate calls it), and no bank code. */
function walletProblems(
  existing: ProviderRecord,
  patch: { bankCode?: string | undefined; outbound?: ProviderOutbound | null | undefined },
): string[] {
  if (!existing.payOption) return [];
  const problems: string[] = [];
  if (patch.bankCode !== undefined) problems.push('bankCode: an e-wallet has no bank code');
  if (patch.outbound === null && !existing.isSandbox) {
    problems.push('outbound: required for an e-wallet: snapgate calls it (disable the provider to stop it)');
  }
  return problems;
}
const payoutBankTaken = (holder?: string) =>
  conflict(
    `another provider${holder ? ` (${holder})` : ''} is the payout bank: set its payouts to null first (one payout bank at a time)`,
  );
const gatewayQrisTaken = () =>
  conflict(
    'another acquirer acquires the QRIS snapgate issues itself: set its acquiresGatewayQris to false first (one acquirer at a time)',
  );

export interface ProviderServiceDeps {
  store: Store;
  clock: Clock;
  mode: Mode;
  /** The address guard of outbound URLs; default: the mode's, without staging allowance. */
  guard?: AddressGuard;
}

export function createProviderService({ store, clock, mode, guard }: ProviderServiceDeps) {
  /** Two active banks with one bankCode would make a VA's owner ambiguous. */
  async function checkBankCodeFree(kind: ProviderKind, bankCode: string, self?: string): Promise<void> {
    if (kind !== 'bank') return;
    const holder = (await store.findBanks(bankCode)).find((b) => b.status === 'active' && b.id !== self);
    if (holder) {
      throw conflict(`bankCode ${bankCode} already belongs to the active bank ${holder.id}`);
    }
  }

  /** At most one payout bank (the database says so too, under concurrent writes). */
  async function checkPayoutBankFree(payouts: ProviderPayouts | null | undefined, self?: string): Promise<void> {
    if (!payouts) return;
    const holder = await store.findPayoutBank();
    if (holder && holder.id !== self) throw payoutBankTaken(holder.id);
  }

  const service = {
    async create(
      input: NewProviderInput,
      options: { isSandbox?: boolean } = {},
    ): Promise<{ provider: ProviderRecord; clientSecret: string }> {
      const outbound = input.outbound ? outboundOf(input.outbound) : null;
      const payouts = input.payouts ? payoutsOf(input.payouts) : null;
      const problems = await checkSettings(
        {
          kind: input.kind,
          publicKeyPem: input.publicKeyPem,
          outbound,
          acquiresGatewayQris: input.acquiresGatewayQris,
        },
        mode,
        guard,
      );
      problems.push(...payoutProblems({ kind: input.kind, isSandbox: options.isSandbox ?? false, outbound, payouts }));
      if (problems.length > 0) throw invalid('invalid provider', problems);
      await checkBankCodeFree(input.kind, input.bankCode ?? '');
      await checkPayoutBankFree(payouts);
      if (input.payOption !== undefined && (await store.findWallet(input.payOption))) {
        throw payOptionTaken(input.payOption);
      }
      const now = clock.now();
      const clientSecret = newClientSecret();
      const provider: ProviderRecord = {
        id: randomUUID(),
        name: input.name,
        kind: input.kind,
        bankCode: input.bankCode ?? '',
        ...(input.payOption === undefined ? {} : { payOption: input.payOption }),
        clientKey: randomUUID(),
        clientSecret,
        previousSecret: null,
        previousValidUntil: null,
        secretVersion: 1,
        publicKeyPem: input.publicKeyPem ?? null,
        outbound,
        isSandbox: options.isSandbox ?? false,
        acquiresGatewayQris: input.acquiresGatewayQris ?? false,
        ...(payouts ? { payouts } : {}),
        status: 'active',
        createdAt: now,
        updatedAt: now,
      };
      try {
        await store.insertProvider(provider);
      } catch (e) {
        if (e instanceof UniqueViolation && isGatewayQrisConstraint(e.constraint)) throw gatewayQrisTaken();
        if (e instanceof UniqueViolation && isPayoutBankConstraint(e.constraint)) throw payoutBankTaken();
        if (e instanceof UniqueViolation && isPayOptionConstraint(e.constraint)) throw payOptionTaken(input.payOption);
        // The same bankCode, taken by a concurrent create.
        if (e instanceof UniqueViolation)
          throw conflict(`bankCode ${input.bankCode} already belongs to an active bank`);
        throw e;
      }
      return { provider, clientSecret };
    },

    async get(id: string): Promise<ProviderRecord> {
      const p = await store.findProviderById(id);
      if (!p) throw notFound('provider');
      return p;
    },

    find: (id: string): Promise<ProviderRecord | undefined> => store.findProviderById(id),

    /** Providers, oldest first (there are few). */
    list: (page: PageRequest): Promise<Page<ProviderRecord>> => store.listProviders(page),

    /** A provider's inbound calls, newest first. */
    async inbound(id: string, page: PageRequest): Promise<Page<StoredInboundCall>> {
      await service.get(id);
      return store.listInbound(id, page);
    },

    /** Inbound calls since `since`, counted by provider id. */
    inboundCounts: (since: number): Promise<Record<string, number>> => store.countInboundByProvider(since),

    async update(
      id: string,
      patch: Omit<ProviderPatch, 'outbound' | 'payouts'> & {
        outbound?: OutboundInput | null;
        payouts?: PayoutsInput | null;
      },
    ): Promise<ProviderRecord> {
      const existing = await service.get(id);
      const outbound = patch.outbound === undefined ? undefined : patch.outbound && outboundOf(patch.outbound);
      const payouts = patch.payouts === undefined ? undefined : patch.payouts && payoutsOf(patch.payouts);
      const problems = await checkSettings(
        {
          kind: existing.kind,
          publicKeyPem: patch.publicKeyPem,
          outbound,
          acquiresGatewayQris: patch.acquiresGatewayQris,
        },
        mode,
        guard,
      );
      if (outbound !== undefined || payouts !== undefined) {
        problems.push(
          ...payoutProblems({
            kind: existing.kind,
            isSandbox: existing.isSandbox,
            outbound: outbound === undefined ? existing.outbound : outbound,
            payouts: payouts === undefined ? (existing.payouts ?? null) : payouts,
          }),
        );
      }
      problems.push(...walletProblems(existing, { bankCode: patch.bankCode, outbound }));
      if (problems.length > 0) throw invalid('invalid provider settings', problems);
      if ((patch.bankCode ?? patch.status) !== undefined && (patch.status ?? existing.status) === 'active') {
        await checkBankCodeFree(existing.kind, patch.bankCode ?? existing.bankCode, id);
      }
      await checkPayoutBankFree(payouts, id);
      try {
        const p = await store.updateProvider(id, { ...patch, outbound, payouts }, clock.now());
        if (!p) throw notFound('provider');
        return p;
      } catch (e) {
        if (e instanceof UniqueViolation && isGatewayQrisConstraint(e.constraint)) throw gatewayQrisTaken();
        if (e instanceof UniqueViolation && isPayoutBankConstraint(e.constraint)) throw payoutBankTaken();
        if (e instanceof UniqueViolation && isPayOptionConstraint(e.constraint))
          throw payOptionTaken(existing.payOption);
        if (e instanceof UniqueViolation) throw conflict(`duplicate ${e.constraint}`);
        throw e;
      }
    },

    async rotateSecret(id: string, overlapSec: number): Promise<{ clientSecret: string; previousValidUntil: number }> {
      await service.get(id);
      const now = clock.now();
      const clientSecret = newClientSecret();
      const previousValidUntil = now + overlapSec * 1000;
      const p = await store.rotateProviderSecret(id, { clientSecret, previousValidUntil, rotatedAt: now });
      if (!p) throw notFound('provider');
      return { clientSecret, previousValidUntil };
    },
  };
  return service;
}

export type ProviderService = ReturnType<typeof createProviderService>;

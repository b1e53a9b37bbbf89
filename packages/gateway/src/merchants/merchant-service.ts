import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { AddressGuard } from '../address-guard.ts';
import type { Clock } from '../clock.ts';
import type { Mode } from '../config.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import { type Caller, reaches } from '../operators/caller.ts';
import type { PayoutAccount, PayoutSchedule } from '../records/payout-records.ts';
import {
  type CallbackJson,
  type CallbackSignature,
  type MerchantPatch,
  type MerchantRecord,
  type MerchantStatus,
  type Page,
  type PageRequest,
  type TokenSignature,
  UniqueViolation,
} from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { callbackUrlProblemResolved } from './callback-url.ts';
import type { NewMerchantInput, PayoutAccountInput } from './merchant-fields.ts';
import { isUsableRsaPublicKey } from './public-key.ts';

export type { CallbackJson, CallbackSignature, MerchantPatch, MerchantRecord, MerchantStatus, TokenSignature };

/**
 * What a merchant may change of itself in its portal: where its callbacks go, and where the gateway
 * takes its SNAP B2B token for them (the same power: that URL defaults from callbackBaseUrl).
 */
export const MERCHANT_EDITABLE = [
  'callbackBaseUrl',
  'qrisCallbackUrl',
  'vaCallbackUrl',
  'transferCallbackUrl',
  'callbackTokenUrl',
] as const;

export type { NewMerchantInput, PayoutAccountInput };

/**
 * Who verifies a merchant's bank account: the payout bank (providers/payout-bank.ts). It answers the
 * holder's name; it throws the DomainError of a missing payout bank (conflict), of the bank's refusal
 * (refused, with its SNAP code) or of no answer (unavailable).
 */
export interface PayoutAccountVerifier {
  verifyAccount(account: {
    bankCode: string;
    accountNo: string;
  }): Promise<{ verifiedName: string; verifiedAt: number }>;
}

/** A merchant patch as an operator sends it: the bank account as given, before the bank verifies it. */
export type MerchantPatchRequest = Omit<MerchantPatch, 'payoutAccount'> & {
  payoutAccount?: PayoutAccountInput | null;
};

/** What the admin API shows of a merchant: never its secrets. */
export type MerchantView = Omit<
  MerchantRecord,
  'clientSecret' | 'previousSecret' | 'previousValidUntil' | 'createdAt' | 'updatedAt' | 'payoutAccount'
> & {
  previousValidUntil: string | null;
  payoutAccount: (Omit<PayoutAccount, 'verifiedAt'> & { verifiedAt: string }) | null;
  payoutSchedule: PayoutSchedule;
  createdAt: string;
  updatedAt: string;
};

export function merchantView(m: MerchantRecord): MerchantView {
  // Secrets never leave; tokensNotBefore is the gateway's own bookkeeping.
  const {
    clientSecret: _s,
    previousSecret: _p,
    tokensNotBefore: _t,
    portalNotBefore: _pn,
    nmidGenerated: _n,
    ...rest
  } = m;
  return {
    ...rest,
    checkoutFrameAncestors: m.checkoutFrameAncestors ?? null,
    payoutAccount: m.payoutAccount
      ? { ...m.payoutAccount, verifiedAt: new Date(m.payoutAccount.verifiedAt).toISOString() }
      : null,
    payoutSchedule: m.payoutSchedule ?? 'manual',
    limits: m.limits ?? null,
    transferCallbackUrl: m.transferCallbackUrl ?? null,
    previousValidUntil: m.previousValidUntil === null ? null : new Date(m.previousValidUntil).toISOString(),
    createdAt: new Date(m.createdAt).toISOString(),
    updatedAt: new Date(m.updatedAt).toISOString(),
  };
}

/** EMVCo tags 59/60 take printable ASCII: fold accents, drop the rest (`Kopi Café` → `Kopi Cafe`). */
export function qrisText(value: string, max: number, fallback: string): string {
  const ascii = value
    .normalize('NFKD')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, max)
    .trim();
  return ascii || fallback;
}

/** A client secret: 32 random bytes, base64url. */
export const newClientSecret = () => randomBytes(32).toString('base64url');

/** A QRIS National Merchant ID shape: `ID` + 13 digits. */
const newNmid = () => `ID${String(randomInt(1e6)).padStart(6, '0')}${String(randomInt(1e7)).padStart(7, '0')}`;

async function checkSettings(
  s: Pick<
    NewMerchantInput,
    | 'callbackBaseUrl'
    | 'qrisCallbackUrl'
    | 'vaCallbackUrl'
    | 'transferCallbackUrl'
    | 'callbackTokenUrl'
    | 'publicKeyPem'
    | 'tokenSignature'
  >,
  existingPem: string | null,
  mode: Mode | AddressGuard,
): Promise<string[]> {
  const problems: string[] = [];
  for (const field of [
    'callbackBaseUrl',
    'qrisCallbackUrl',
    'vaCallbackUrl',
    'transferCallbackUrl',
    'callbackTokenUrl',
  ] as const) {
    const url = s[field];
    if (url === undefined || url === null) continue;
    const p = await callbackUrlProblemResolved(url, mode);
    if (p) problems.push(`${field}: ${p}`);
  }
  if (s.publicKeyPem !== undefined && s.publicKeyPem !== null && !isUsableRsaPublicKey(s.publicKeyPem)) {
    problems.push('publicKeyPem: must be a PEM-encoded RSA public key of at least 2048 bits');
  }
  const pem = s.publicKeyPem === undefined ? existingPem : s.publicKeyPem;
  if (s.tokenSignature === 'rsa-sha256' && !pem) {
    problems.push('tokenSignature: rsa-sha256 needs a publicKeyPem');
  }
  return problems;
}

function uniqueProblem(e: UniqueViolation) {
  if (e.constraint.includes('partner_id')) return conflict('partnerId is already used by another merchant');
  return conflict(`duplicate ${e.constraint}`);
}

export interface MerchantServiceDeps {
  store: Store;
  clock: Clock;
  mode: Mode;
  /** The address guard of callback URLs; default: the mode's, without staging allowance. */
  guard?: AddressGuard;
  /** Verifies bank accounts at the payout bank; without one, none can be saved (409). */
  payoutAccounts?: PayoutAccountVerifier;
}

export function createMerchantService({ store, clock, mode, guard, payoutAccounts }: MerchantServiceDeps) {
  /** The account as given, with the holder's name the payout bank answers; null stays null. */
  async function verified(account: PayoutAccountInput | null | undefined): Promise<PayoutAccount | null | undefined> {
    if (!account) return account;
    if (!payoutAccounts) throw conflict('there is no active payout bank to verify the account at');
    const { verifiedName, verifiedAt } = await payoutAccounts.verifyAccount(account);
    return { ...account, verifiedName, verifiedAt };
  }

  async function qrisProviderProblems(id: string | null | undefined): Promise<string[]> {
    if (id === undefined || id === null) return [];
    const p = await store.findProviderById(id);
    if (p?.kind !== 'acquirer') return [`qrisProvider: no acquirer with id ${id}`];
    return [];
  }

  return {
    async create(input: NewMerchantInput): Promise<{ merchant: MerchantRecord; clientSecret: string }> {
      const problems = [
        ...(await checkSettings(input, null, guard ?? mode)),
        ...(await qrisProviderProblems(input.qrisProvider)),
      ];
      if (input.callbackSignature === 'snap-b2b' && !input.callbackTokenUrl && !input.callbackBaseUrl) {
        problems.push(
          'callbackTokenUrl: snap-b2b takes a token from the merchant: give callbackTokenUrl or callbackBaseUrl',
        );
      }
      if (problems.length > 0) throw invalid('invalid merchant', problems);
      // Asked last: an invalid merchant costs the bank nothing.
      const payoutAccount = await verified(input.payoutAccount);
      const now = clock.now();
      const clientKey = randomUUID();
      const clientSecret = newClientSecret();
      const merchant: MerchantRecord = {
        id: randomUUID(),
        name: input.name,
        clientKey,
        clientSecret,
        previousSecret: null,
        previousValidUntil: null,
        secretVersion: 1,
        partnerId: input.partnerId ?? clientKey,
        publicKeyPem: input.publicKeyPem ?? null,
        tokenSignature: input.tokenSignature ?? 'any',
        callbackSignature: input.callbackSignature ?? 'hmac-sha512',
        callbackJson: input.callbackJson ?? 'standard',
        callbackVaBody: input.callbackVaBody ?? 'standard',
        callbackAck: input.callbackAck ?? 'strict',
        callbackTokenUrl: input.callbackTokenUrl ?? null,
        callbackBaseUrl: input.callbackBaseUrl ?? null,
        qrisCallbackUrl: input.qrisCallbackUrl ?? null,
        vaCallbackUrl: input.vaCallbackUrl ?? null,
        ...(input.transferCallbackUrl ? { transferCallbackUrl: input.transferCallbackUrl } : {}),
        merchantName: input.merchantName ?? qrisText(input.name, 25, 'MERCHANT'),
        merchantCity: input.merchantCity ?? 'JAKARTA',
        nmid: input.nmid ?? newNmid(),
        nmidGenerated: input.nmid === undefined,
        mcc: input.mcc ?? '5999',
        qrisProvider: input.qrisProvider ?? null,
        qrisCriteria: input.qrisCriteria ?? 'UMI',
        fees: input.fees ?? null,
        retrySchedule: input.retrySchedule ?? null,
        ...(input.checkoutFrameAncestors?.length ? { checkoutFrameAncestors: input.checkoutFrameAncestors } : {}),
        ...(payoutAccount ? { payoutAccount } : {}),
        ...(input.payoutSchedule === 'auto' ? { payoutSchedule: 'auto' as const } : {}),
        ...(input.limits ? { limits: input.limits } : {}),
        status: 'active',
        createdAt: now,
        updatedAt: now,
      };
      try {
        await store.insertMerchant(merchant);
      } catch (e) {
        if (e instanceof UniqueViolation) throw uniqueProblem(e);
        throw e;
      }
      return { merchant, clientSecret };
    },

    async get(id: string): Promise<MerchantRecord> {
      const m = await store.findMerchantById(id);
      if (!m) throw notFound('merchant');
      return m;
    },

    find: (id: string): Promise<MerchantRecord | undefined> => store.findMerchantById(id),

    list: (page: PageRequest): Promise<Page<MerchantRecord>> => store.listMerchants(page),

    /** Every merchant (there are few), oldest first. */
    async all(): Promise<MerchantRecord[]> {
      const out: MerchantRecord[] = [];
      let cursor: string | undefined;
      for (let i = 0; i < 50; i++) {
        const page = await store.listMerchants({ limit: 500, cursor });
        out.push(...page.items);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return out;
    },

    /** Merchants whose id, name, client key, partner id or QRIS name holds `term` (any case). */
    async search(term: string | undefined): Promise<MerchantRecord[]> {
      const all = await this.all();
      const t = term?.toLowerCase();
      if (!t) return all;
      return all.filter((m) =>
        [m.id, m.name, m.clientKey, m.partnerId, m.merchantName].some((v) => v.toLowerCase().includes(t)),
      );
    },

    /**
     * Changes a merchant's settings. A merchant (its portal) changes only itself, and only where its
     * callbacks go (MERCHANT_EDITABLE; the token URL with SNAP B2B token callbacks only); another
     * merchant answers as one that does not exist.
     */
    async update(id: string, request: MerchantPatchRequest, caller?: Caller): Promise<MerchantRecord> {
      const { payoutAccount: account, ...patch } = request;
      if (caller && !reaches(caller, id)) throw notFound('merchant');
      if (caller?.kind === 'merchant') {
        const editable: readonly string[] = MERCHANT_EDITABLE;
        const refused = Object.keys(request).filter((k) => !editable.includes(k));
        if (refused.length > 0) {
          throw invalid(
            'a merchant changes only its callback URLs',
            refused.map((k) => `${k}: not changed from the portal`),
          );
        }
      }
      const existing = await this.get(id);
      // The token URL is the portal's only where the callbacks are signed with a SNAP B2B token.
      if (caller?.kind === 'merchant' && 'callbackTokenUrl' in patch && existing.callbackSignature !== 'snap-b2b') {
        throw invalid('a merchant sets its callback token URL only for SNAP B2B token callbacks', [
          'callbackTokenUrl: only with callbackSignature snap-b2b',
        ]);
      }
      const problems = await checkSettings(
        {
          callbackBaseUrl: patch.callbackBaseUrl ?? undefined,
          qrisCallbackUrl: patch.qrisCallbackUrl ?? undefined,
          vaCallbackUrl: patch.vaCallbackUrl ?? undefined,
          transferCallbackUrl: patch.transferCallbackUrl ?? undefined,
          callbackTokenUrl: patch.callbackTokenUrl ?? undefined,
          publicKeyPem: patch.publicKeyPem === null ? undefined : patch.publicKeyPem,
          tokenSignature: patch.tokenSignature ?? existing.tokenSignature,
        },
        patch.publicKeyPem === null ? null : existing.publicKeyPem,
        guard ?? mode,
      );
      problems.push(...(await qrisProviderProblems(patch.qrisProvider)));
      if (problems.length > 0) throw invalid('invalid merchant settings', problems);
      // The bank refusing the account refuses the whole patch: the account before stays.
      const payoutAccount = await verified(account);
      const changes: MerchantPatch = payoutAccount === undefined ? patch : { ...patch, payoutAccount };
      // No origin may frame its pages: one way to say it, null.
      const stored =
        changes.checkoutFrameAncestors?.length === 0 ? { ...changes, checkoutFrameAncestors: null } : changes;
      try {
        const m = await store.updateMerchant(id, stored, clock.now());
        if (!m) throw notFound('merchant');
        return m;
      } catch (e) {
        if (e instanceof UniqueViolation) throw uniqueProblem(e);
        throw e;
      }
    },

    /**
     * A new client secret; the previous one is accepted for `overlapSec`. With `fromVersion`, only
     * while the secret is still that version (the one a page showed): a second rotation sent at once
     * (a double click, two tabs) is refused rather than ending the overlap of the first.
     */
    async rotateSecret(
      id: string,
      overlapSec: number,
      fromVersion?: number,
    ): Promise<{ clientSecret: string; previousValidUntil: number }> {
      await this.get(id);
      const now = clock.now();
      const clientSecret = newClientSecret();
      const previousValidUntil = now + overlapSec * 1000;
      const m = await store.rotateMerchantSecret(id, { clientSecret, previousValidUntil, rotatedAt: now, fromVersion });
      if (!m && fromVersion !== undefined) throw conflict('the secret was rotated meanwhile');
      if (!m) throw notFound('merchant');
      return { clientSecret, previousValidUntil };
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;

import { createHash, randomBytes } from 'node:crypto';
import { isMoneyValue, isSnapError, jakartaDay, SERVICE, toMinorUnits } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import { methodOf } from '../methods/index.ts';
import type { LinkMethod, LinkPayment, PaymentLink } from '../records/link-records.ts';
import type { MerchantRecord, TransactionKind, TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { checkoutUrlOf } from './checkout-link.ts';
import type { EwalletService } from './ewallet-service.ts';
import type { RecordFor, SnapResponse } from './idempotency.ts';
import { MAX_AMOUNT_SEN } from './money-bounds.ts';
import type { QrisService } from './qris-service.ts';
import type { MerchantRequest } from './snap-request.ts';
import { DEFAULT_BANK_CODE, type VaService } from './va-service.ts';

// Payment links (docs/payment-links.md): a merchant (or its operator) makes a link; a payer opens
// it at /l/<id>, picks a method (and types the amount when the link leaves it open), and pays an
// ordinary transaction made through the merchant's own payment call of that method, which names
// the link (its callbacks carry `additionalInfo.paymentLinkId`). The link keeps no money itself.

const MAX_DESCRIPTION = 200;
const MAX_URL = 2048;
/** A link's payments as its page and the API list them: the newest. */
export const LINK_PAYMENTS_SHOWN = 100;

/** A link as the admin API, the dashboard and the CLI show it. */
export interface PaymentLinkView {
  id: string;
  merchantId: string;
  url: string;
  description: string;
  amount: { value: string; currency: 'IDR' } | null;
  minAmount: { value: string; currency: 'IDR' } | null;
  maxAmount: { value: string; currency: 'IDR' } | null;
  expiresAt: string | null;
  singleUse: boolean;
  methods: LinkMethod[];
  returnUrl: string | null;
  active: boolean;
  /** `open`, `paid` (single-use, paid once), `expired`, `inactive` (deactivated). */
  state: LinkState;
  createdAt: string;
}

export type LinkState = 'open' | 'paid' | 'expired' | 'inactive';

export interface PaymentLinkServiceDeps {
  store: Store;
  clock: Clock;
  qris: QrisService;
  va: VaService;
  ewallet: EwalletService;
  mode: 'sandbox' | 'production';
  publicUrl: () => string;
}

const idr = (value: string | null) => (value === null ? null : { value, currency: 'IDR' as const });
const isPaid = (p: LinkPayment) => p.status === '00' || p.status === '04';

/** A Money input `{value, currency: 'IDR'}` (or absent), with its problem named by `field`. */
function moneyOf(input: unknown, field: string, problems: string[]): string | null {
  if (input === undefined || input === null) return null;
  const m = input as { value?: unknown; currency?: unknown };
  if (typeof m !== 'object' || !isMoneyValue(m.value) || (m.currency ?? 'IDR') !== 'IDR') {
    problems.push(`${field}: {"value": "10000.00", "currency": "IDR"}`);
    return null;
  }
  const sen = toMinorUnits(m.value);
  if (sen <= 0n || sen > MAX_AMOUNT_SEN) {
    problems.push(`${field}: more than 0.00 and at most 100000000000000.00`);
    return null;
  }
  return m.value;
}

/** What a link's choice passes to a method's door. */
interface ChoiceBody {
  partnerReferenceNo: string;
  money: { value: string; currency: 'IDR' };
  method: LinkMethod;
  /** The VA's name: the merchant's. */
  payerFacingName: string;
  additionalInfo?: { returnUrl: string };
}

/**
 * Per payment method: the merchant's own call that makes a link's payment (its service and body),
 * and how a payment of it names its link method (`qris`, `va:<bankCode>`, `ewallet:<payOption>`).
 */
const DOORS: {
  [K in TransactionKind]: {
    kind: K;
    serviceCode: string;
    body(c: ChoiceBody): Record<string, unknown>;
    run(deps: PaymentLinkServiceDeps, ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse>;
    linkMethodOf(t: Extract<TransactionRecord, { kind: K }>): LinkMethod;
  };
} = {
  qris: {
    kind: 'qris',
    serviceCode: SERVICE.qrisGenerate,
    body: (c) => ({
      partnerReferenceNo: c.partnerReferenceNo,
      amount: c.money,
      ...(c.additionalInfo ? { additionalInfo: c.additionalInfo } : {}),
    }),
    run: (deps, ctx, recordFor) => deps.qris.generate(ctx, recordFor),
    linkMethodOf: () => 'qris',
  },
  va: {
    kind: 'va',
    serviceCode: SERVICE.vaCreate,
    body: (c) => ({
      virtualAccountName: c.payerFacingName.slice(0, 255),
      trxId: c.partnerReferenceNo,
      totalAmount: c.money,
      additionalInfo: { bankCode: c.method.slice('va:'.length), ...c.additionalInfo },
    }),
    run: (deps, ctx, recordFor) => deps.va.create(ctx, recordFor),
    linkMethodOf: (t) => `va:${t.details.bankCode}`,
  },
  ewallet: {
    kind: 'ewallet',
    serviceCode: SERVICE.debitPay,
    body: (c) => ({
      partnerReferenceNo: c.partnerReferenceNo,
      amount: c.money,
      payOptionDetails: [{ payMethod: 'EMONEY', payOption: c.method.slice('ewallet:'.length), transAmount: c.money }],
      ...(c.additionalInfo ? { additionalInfo: c.additionalInfo } : {}),
    }),
    run: (deps, ctx, recordFor) => deps.ewallet.pay(ctx, recordFor),
    linkMethodOf: (t) => `ewallet:${t.details.payOption}`,
  },
};

/** The door of a link method (`va:014` is the VA's), if it names a method at all. */
function doorOf(method: LinkMethod): (typeof DOORS)[TransactionKind] | undefined {
  const kind = method.split(':')[0] as TransactionKind;
  return Object.hasOwn(DOORS, kind) ? DOORS[kind] : undefined;
}

/** The link method a payment was made with. */
const linkMethodOf = (t: TransactionRecord): LinkMethod =>
  (DOORS[t.kind].linkMethodOf as (t: TransactionRecord) => LinkMethod)(t);

export function createPaymentLinkService(deps: PaymentLinkServiceDeps) {
  const { store, clock } = deps;
  const urlOf = (id: string) => `${deps.publicUrl()}/l/${id}`;

  /** The methods a merchant's payer can use now: QRIS, each bank's VA, each e-wallet (docs/payment-links.md#methods). */
  async function methodsAvailable(): Promise<LinkMethod[]> {
    const providers = (await store.listProviders({ limit: 500 })).items.filter((p) => p.status === 'active');
    const usable = (p: (typeof providers)[number]) => (p.isSandbox ? deps.mode !== 'production' : true);
    const bankKind = methodOf('va').provider.kind;
    const walletKind = methodOf('ewallet').provider.kind;
    const banks = new Set(
      providers.filter((p) => p.kind === bankKind && p.bankCode && usable(p)).map((p) => p.bankCode as string),
    );
    if (deps.mode !== 'production') banks.add(DEFAULT_BANK_CODE);
    const wallets = providers
      .filter((p) => p.kind === walletKind && p.payOption && (p.isSandbox ? deps.mode !== 'production' : !!p.outbound))
      .map((p) => p.payOption as string);
    return [
      'qris',
      ...[...banks].sort().map((b) => `va:${b}` as LinkMethod),
      ...[...new Set(wallets)].sort().map((w) => `ewallet:${w}` as LinkMethod),
    ];
  }

  function stateOf(link: PaymentLink, payments: LinkPayment[], now: number): LinkState {
    if (!link.active) return 'inactive';
    if (link.singleUse && payments.some(isPaid)) return 'paid';
    if (link.expiresAt !== null && link.expiresAt <= now) return 'expired';
    return 'open';
  }

  function viewOf(link: PaymentLink, payments: LinkPayment[]): PaymentLinkView {
    return {
      id: link.id,
      merchantId: link.merchantId,
      url: urlOf(link.id),
      description: link.description,
      amount: idr(link.amount),
      minAmount: idr(link.minAmount),
      maxAmount: idr(link.maxAmount),
      expiresAt: link.expiresAt === null ? null : new Date(link.expiresAt).toISOString(),
      singleUse: link.singleUse,
      methods: link.methods,
      returnUrl: link.returnUrl,
      active: link.active,
      state: stateOf(link, payments, clock.now()),
      createdAt: new Date(link.createdAt).toISOString(),
    };
  }

  const paymentView = (p: LinkPayment) => ({
    referenceNo: p.referenceNo,
    method: p.kind,
    status: p.status,
    amount: idr(p.paidAmount ?? p.amount),
    createdAt: new Date(p.createdAt).toISOString(),
  });

  /** The merchant's own link (another merchant's is not found). */
  async function ownLink(merchantId: string, linkId: string): Promise<PaymentLink> {
    const link = typeof linkId === 'string' && linkId.length <= 64 ? await store.findPaymentLink(linkId) : undefined;
    if (!link || link.merchantId !== merchantId) throw notFound(`payment link ${linkId}`);
    return link;
  }

  /** The merchant's own payment call of a method, as a payer's choice on the link's page makes it. */
  async function call(
    merchant: MerchantRecord,
    link: PaymentLink,
    serviceCode: string,
    body: Record<string, unknown>,
    operation: (ctx: MerchantRequest, recordFor: RecordFor) => Promise<SnapResponse>,
    requestId: string,
  ): Promise<void> {
    const now = clock.now();
    const externalId = `link:${randomBytes(12).toString('base64url')}`;
    const ctx: MerchantRequest = {
      merchant,
      body,
      serviceCode,
      // A colon no client's X-EXTERNAL-ID may hold: never one of the merchant's own keys.
      idempotencyKey: { merchantId: merchant.id, day: jakartaDay(now), externalId },
      requestHash: createHash('sha256')
        .update(`${externalId}:${serviceCode}:${JSON.stringify(body)}`)
        .digest('hex'),
      now,
      requestId,
      paymentLinkId: link.id,
    };
    const recordFor: RecordFor = (response) => ({
      ...ctx.idempotencyKey,
      requestHash: ctx.requestHash,
      httpStatus: response.httpStatus,
      responseBody: response.body,
    });
    await operation(ctx, recordFor);
  }

  /** What the link's page shows: the link, its merchant's name and its state (undefined: no such link). */
  async function openLink(linkId: string) {
    const link = linkId.length <= 64 ? await store.findPaymentLink(linkId) : undefined;
    if (!link) return undefined;
    const merchant = await store.findMerchantById(link.merchantId);
    if (!merchant) return undefined;
    const payments = await store.paymentsOfLink(link.id, LINK_PAYMENTS_SHOWN);
    // A disabled merchant takes no payment: its links read as deactivated.
    const state = merchant.status === 'active' ? stateOf(link, payments, clock.now()) : 'inactive';
    return { link, merchant, state, payments };
  }

  return {
    methodsAvailable,

    /** A new link (docs/payment-links.md#making-a-link); every problem of the input at once. */
    async create(merchantId: string, input: Record<string, unknown>): Promise<PaymentLinkView> {
      const problems: string[] = [];
      const known = [
        'amount',
        'minAmount',
        'maxAmount',
        'description',
        'expiresAt',
        'singleUse',
        'methods',
        'returnUrl',
      ];
      for (const k of Object.keys(input)) if (!known.includes(k)) problems.push(`${k}: not a field of a payment link`);
      const description = typeof input.description === 'string' ? input.description.trim() : '';
      if (description === '' || description.length > MAX_DESCRIPTION)
        problems.push(`description: required, at most ${MAX_DESCRIPTION} characters`);
      const amount = moneyOf(input.amount, 'amount', problems);
      const minAmount = moneyOf(input.minAmount, 'minAmount', problems);
      const maxAmount = moneyOf(input.maxAmount, 'maxAmount', problems);
      if (amount !== null && (minAmount !== null || maxAmount !== null))
        problems.push('minAmount, maxAmount: only for a link whose amount the payer types (no amount)');
      if (minAmount !== null && maxAmount !== null && toMinorUnits(minAmount) > toMinorUnits(maxAmount))
        problems.push('minAmount: not more than maxAmount');
      const now = clock.now();
      let expiresAt: number | null = null;
      if (input.expiresAt !== undefined && input.expiresAt !== null) {
        const at = typeof input.expiresAt === 'string' ? Date.parse(input.expiresAt) : Number.NaN;
        if (!Number.isFinite(at) || !/T.*(Z|[+-]\d\d:\d\d)$/.test(String(input.expiresAt)))
          problems.push('expiresAt: an ISO 8601 time with its offset, such as 2026-12-31T23:59:59+07:00');
        else if (at <= now) problems.push('expiresAt: in the future');
        else expiresAt = at;
      }
      if (input.singleUse !== undefined && typeof input.singleUse !== 'boolean')
        problems.push('singleUse: true or false');
      const returnUrl = input.returnUrl ?? null;
      if (returnUrl !== null) {
        const ok =
          typeof returnUrl === 'string' &&
          returnUrl.length <= MAX_URL &&
          URL.canParse(returnUrl) &&
          (new URL(returnUrl).protocol === 'https:' ||
            (deps.mode !== 'production' && new URL(returnUrl).protocol === 'http:'));
        if (!ok) problems.push(`returnUrl: an https URL of at most ${MAX_URL} characters`);
      }
      const available = await methodsAvailable();
      let methods: LinkMethod[] = available;
      if (input.methods !== undefined) {
        const asked = input.methods;
        if (
          !Array.isArray(asked) ||
          asked.length === 0 ||
          asked.length > 50 ||
          !asked.every((m) => typeof m === 'string')
        ) {
          problems.push('methods: a list of qris, va:<bankCode>, ewallet:<payOption>');
        } else {
          const unknown = asked.filter((m) => !available.includes(m as LinkMethod));
          if (unknown.length > 0)
            problems.push(`methods: ${unknown.join(', ')} not offered here (offered: ${available.join(', ')})`);
          methods = [...new Set(asked as LinkMethod[])];
        }
      }
      if (problems.length > 0) throw invalid('the payment link is not valid', problems);
      if (!(await store.findMerchantById(merchantId))) throw notFound(`merchant ${merchantId}`);
      const link: PaymentLink = {
        id: `pl_${randomBytes(16).toString('base64url').slice(0, 22)}`,
        merchantId,
        description,
        amount,
        minAmount,
        maxAmount,
        expiresAt,
        singleUse: input.singleUse !== false,
        methods,
        returnUrl: returnUrl as string | null,
        active: true,
        createdAt: now,
        updatedAt: now,
      };
      await store.insertPaymentLink(link);
      return viewOf(link, []);
    },

    /** A merchant's links, newest first, by pages of `limit` (cursor: the last link's id). */
    async list(merchantId: string, limit: number, cursor?: string) {
      if (!(await store.findMerchantById(merchantId))) throw notFound(`merchant ${merchantId}`);
      const after = cursor ? await store.findPaymentLink(cursor) : undefined;
      if (cursor && (!after || after.merchantId !== merchantId)) throw invalid('cursor: not a link of this list');
      const links = await store.listPaymentLinks(merchantId, limit + 1, after);
      const shown = links.slice(0, limit);
      const items = await Promise.all(
        shown.map(async (l) => viewOf(l, l.singleUse ? await store.paymentsOfLink(l.id, LINK_PAYMENTS_SHOWN) : [])),
      );
      return { items, nextCursor: links.length > limit ? (shown.at(-1)?.id ?? null) : null };
    },

    /** One link with its payments (the newest 100). */
    async get(merchantId: string, linkId: string) {
      const link = await ownLink(merchantId, linkId);
      const payments = await store.paymentsOfLink(link.id, LINK_PAYMENTS_SHOWN);
      return { ...viewOf(link, payments), payments: payments.map(paymentView) };
    },

    /** Deactivates a link: it takes no payment any more (payments already made stand). */
    async deactivate(merchantId: string, linkId: string): Promise<PaymentLinkView> {
      const link = await ownLink(merchantId, linkId);
      const after = await store.deactivatePaymentLink(link.id, clock.now());
      if (!after) throw conflict(`payment link ${linkId} is inactive already`);
      return viewOf(after, await store.paymentsOfLink(link.id, LINK_PAYMENTS_SHOWN));
    },

    open: openLink,

    /**
     * A payer's choice on the link's page: the transaction made for it, where its checkout page is.
     * A single-use link with a fixed amount reuses its open payment of that method (one payment,
     * whoever pays it); a refusal says why in the payer's terms (`problem`).
     */
    async pay(
      linkId: string,
      choice: { method: string; amount?: string },
      requestId: string,
    ): Promise<{ checkoutUrl: string } | { problem: 'closed' | 'method' | 'amount' | 'refused'; detail?: string }> {
      const opened = await openLink(linkId);
      if (opened?.state !== 'open') return { problem: 'closed' };
      const { link, merchant, payments } = opened;
      const method = link.methods.find((m) => m === choice.method);
      if (!method) return { problem: 'method' };
      let amount = link.amount;
      if (amount === null) {
        const typed = (choice.amount ?? '').trim().replace(/^Rp\s*/i, '');
        const value = /^\d{1,15}$/.test(typed) ? `${typed}.00` : typed;
        const sen = isMoneyValue(value) ? toMinorUnits(value) : 0n;
        const tooSmall = link.minAmount !== null && sen < toMinorUnits(link.minAmount);
        const tooBig = link.maxAmount !== null && sen > toMinorUnits(link.maxAmount);
        if (sen <= 0n || sen > MAX_AMOUNT_SEN || tooSmall || tooBig) return { problem: 'amount' };
        amount = value;
      }
      const door = doorOf(method);
      if (!door) return { problem: 'method' };
      if (link.singleUse && link.amount !== null) {
        const now = clock.now();
        for (const p of payments) {
          if (p.status !== '01' || !p.checkoutId) continue;
          const t = await store.findTransaction(p.referenceNo);
          if (t && (t.expiresAt === null || t.expiresAt > now) && linkMethodOf(t) === method) {
            return { checkoutUrl: checkoutUrlOf(deps.publicUrl(), p.checkoutId) };
          }
        }
      }
      const partnerReferenceNo = `LINK-${randomBytes(9).toString('hex').toUpperCase()}`;
      try {
        await call(
          merchant,
          link,
          door.serviceCode,
          door.body({
            partnerReferenceNo,
            money: { value: amount, currency: 'IDR' },
            method,
            payerFacingName: merchant.name,
            ...(link.returnUrl === null ? {} : { additionalInfo: { returnUrl: link.returnUrl } }),
          }),
          (ctx, recordFor) => door.run(deps, ctx, recordFor),
          requestId,
        );
        const made = await store.findTransactionByPartnerRef(merchant.id, door.kind, partnerReferenceNo);
        if (!made?.checkoutId) return { problem: 'refused' };
        return { checkoutUrl: checkoutUrlOf(deps.publicUrl(), made.checkoutId) };
      } catch (e) {
        if (!isSnapError(e)) throw e;
        return { problem: 'refused', detail: `${e.responseCode} ${e.responseMessage}` };
      }
    },
  };
}

export type PaymentLinkService = ReturnType<typeof createPaymentLinkService>;

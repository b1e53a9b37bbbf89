import { createHash, randomBytes } from 'node:crypto';
import { isMoneyValue, isSnapError, jakartaDay, SERVICE, toMinorUnits } from '@snapgate/snap';
import type { Clock } from '../clock.ts';
import { conflict, invalid, notFound } from '../domain-error.ts';
import { methodOf } from '../methods/index.ts';
import type { LinkMethod, LinkPayment, PaymentLink } from '../records/link-records.ts';
import {
  type MerchantRecord,
  type TransactionKind,
  type TransactionRecord,
  UniqueViolation,
} from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { checkoutUrlOf, normalizedUrl } from './checkout-link.ts';
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
    /** The merchant's own cancel of an unpaid payment of this method: its service and body. */
    cancel: {
      serviceCode: string;
      body(t: Extract<TransactionRecord, { kind: K }>): Record<string, unknown>;
      run(deps: PaymentLinkServiceDeps, ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse>;
    };
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
    cancel: {
      serviceCode: SERVICE.qrisCancel,
      body: (t) => ({ originalReferenceNo: t.referenceNo, reason: CANCEL_REASON }),
      run: (deps, ctx, recordFor) => deps.qris.cancel(ctx, recordFor),
    },
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
    cancel: {
      serviceCode: SERVICE.vaDelete,
      body: (t) => ({ virtualAccountNo: t.virtualAccountNo, trxId: t.partnerReferenceNo }),
      run: (deps, ctx, recordFor) => deps.va.remove(ctx, recordFor, CANCEL_REASON),
    },
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
    cancel: {
      serviceCode: SERVICE.debitCancel,
      body: (t) => ({
        originalPartnerReferenceNo: t.partnerReferenceNo,
        originalReferenceNo: t.referenceNo,
        reason: CANCEL_REASON,
      }),
      run: (deps, ctx, recordFor) => deps.ewallet.cancel(ctx, recordFor),
    },
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

/** A payment's cancel door, for any method. */
const cancelDoorOf = (t: TransactionRecord) =>
  DOORS[t.kind].cancel as {
    serviceCode: string;
    body(t: TransactionRecord): Record<string, unknown>;
    run(deps: PaymentLinkServiceDeps, ctx: MerchantRequest, recordFor: RecordFor): Promise<SnapResponse>;
  };

const CANCEL_REASON = 'payment link: another way to pay was chosen, or the link was deactivated';
/** Without a minAmount, a typed amount is at least this (Rp 1.000): no link is closed for a few sen. */
const DEFAULT_MIN_SEN = 100_000n;

/**
 * A payer's typed amount as money: `50000`, `50.000` (thousands as Bahasa Indonesia writes them),
 * `50000,00`, `50.000,00`, `50000.00`, with or without `Rp`; leading zeros dropped. Undefined when
 * it is none of these.
 */
export function typedAmount(text: string): string | undefined {
  const t = text.trim().replace(/^Rp\.?\s*/i, '');
  let m = /^(\d{1,3}(?:\.\d{3})+)(?:,(\d{2}))?$/.exec(t);
  const whole = m ? (m[1] as string).replaceAll('.', '') : undefined;
  m = m ?? /^(\d{1,15})(?:[.,](\d{2}))?$/.exec(t);
  if (!m) return undefined;
  const digits = whole ?? (m[1] as string);
  if (digits.length > 15) return undefined;
  return `${BigInt(digits)}.${m[2] ?? '00'}`;
}

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

  function stateOf(link: PaymentLink, paid: boolean, now: number, merchantActive = true): LinkState {
    // A disabled merchant takes no payment: its links read as deactivated.
    if (!link.active || !merchantActive) return 'inactive';
    if (link.singleUse && paid) return 'paid';
    if (link.expiresAt !== null && link.expiresAt <= now) return 'expired';
    return 'open';
  }

  /** The view of a link, with what its state needs: whether it was paid, whether its merchant is active. */
  async function viewOf(link: PaymentLink): Promise<PaymentLinkView> {
    const [paid, merchant] = await Promise.all([
      link.singleUse ? store.isLinkPaid(link.id) : false,
      store.findMerchantById(link.merchantId),
    ]);
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
      state: stateOf(link, paid, clock.now(), merchant?.status === 'active'),
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
      paymentLink: { id: link.id, singleUse: link.singleUse },
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
    const paid = link.singleUse ? await store.isLinkPaid(link.id) : false;
    return { link, merchant, state: stateOf(link, paid, clock.now(), merchant.status === 'active') };
  }

  /**
   * Cancels a link's unpaid payment through the merchant's own cancel of its method; whatever the
   * answer, the payment as it is after (paid meanwhile, say).
   */
  async function cancelPayment(merchant: MerchantRecord, link: PaymentLink, t: TransactionRecord, requestId: string) {
    const door = cancelDoorOf(t);
    try {
      await call(
        merchant,
        link,
        door.serviceCode,
        door.body(t),
        (ctx, recordFor) => door.run(deps, ctx, recordFor),
        requestId,
      );
    } catch (e) {
      if (!isSnapError(e)) throw e;
    }
    return (await store.findTransaction(t.referenceNo)) ?? t;
  }

  /** A single-use link's payment under way, if one is (at most one: migration 045). */
  async function openPaymentOf(link: PaymentLink): Promise<TransactionRecord | undefined> {
    const [ref] = await store.openPaymentsOfLink(link.id, 1);
    return ref === undefined ? undefined : store.findTransaction(ref);
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
      let returnUrl: string | null = null;
      if (input.returnUrl !== undefined && input.returnUrl !== null) {
        try {
          // The payment calls' own rule (checkout-link.ts): a link never makes payments they refuse.
          if (typeof input.returnUrl !== 'string' || input.returnUrl.length > MAX_URL) throw new TypeError();
          returnUrl = normalizedUrl(input.returnUrl, 'returnUrl', SERVICE.qrisGenerate, deps.mode);
        } catch {
          problems.push(`returnUrl: an https URL without a user or password, at most ${MAX_URL} characters`);
        }
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
        returnUrl,
        active: true,
        createdAt: now,
        updatedAt: now,
      };
      await store.insertPaymentLink(link);
      return viewOf(link);
    },

    /** A merchant's links, newest first, by pages of `limit` (cursor: the last link's id). */
    async list(merchantId: string, limit: number, cursor?: string) {
      if (!(await store.findMerchantById(merchantId))) throw notFound(`merchant ${merchantId}`);
      const after = cursor ? await store.findPaymentLink(cursor) : undefined;
      if (cursor && (!after || after.merchantId !== merchantId)) throw invalid('cursor: not a link of this list');
      const links = await store.listPaymentLinks(merchantId, limit + 1, after);
      const shown = links.slice(0, limit);
      const items = await Promise.all(shown.map(viewOf));
      return { items, nextCursor: links.length > limit ? (shown.at(-1)?.id ?? null) : null };
    },

    /** One link with its payments (the newest 100). */
    async get(merchantId: string, linkId: string) {
      const link = await ownLink(merchantId, linkId);
      const payments = await store.paymentsOfLink(link.id, LINK_PAYMENTS_SHOWN);
      return { ...(await viewOf(link)), payments: payments.map(paymentView) };
    },

    /**
     * Deactivates a link: it takes no payment any more, and its payments still unpaid are cancelled
     * (the newest 100; paid ones stand).
     */
    async deactivate(merchantId: string, linkId: string, requestId = 'deactivate'): Promise<PaymentLinkView> {
      const link = await ownLink(merchantId, linkId);
      const after = await store.deactivatePaymentLink(link.id, clock.now());
      if (!after) throw conflict(`payment link ${linkId} is inactive already`);
      const merchant = await store.findMerchantById(merchantId);
      for (const ref of merchant ? await store.openPaymentsOfLink(link.id, LINK_PAYMENTS_SHOWN) : []) {
        const t = await store.findTransaction(ref);
        if (t && merchant) await cancelPayment(merchant, link, t, requestId);
      }
      return viewOf(after);
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
      const { link, merchant } = opened;
      const method = link.methods.find((m) => m === choice.method);
      const door = method === undefined ? undefined : doorOf(method);
      if (!method || !door) return { problem: 'method' };
      let amount = link.amount;
      if (amount === null) {
        const value = typedAmount(choice.amount ?? '');
        const sen = value === undefined ? 0n : toMinorUnits(value);
        const least = link.minAmount === null ? DEFAULT_MIN_SEN : toMinorUnits(link.minAmount);
        const tooBig = link.maxAmount !== null && sen > toMinorUnits(link.maxAmount);
        if (value === undefined || sen < least || sen > MAX_AMOUNT_SEN || tooBig) return { problem: 'amount' };
        amount = value;
      }
      if (link.singleUse) {
        // One payment at a time (migration 045): the one under way is the payer's when it is the
        // same method and amount; another choice cancels it first (unless it was paid meanwhile).
        const open = await openPaymentOf(link);
        if (open) {
          const now = clock.now();
          const isLive = open.expiresAt === null || open.expiresAt > now;
          if (isLive && open.checkoutId && linkMethodOf(open) === method && open.amount === amount) {
            return { checkoutUrl: checkoutUrlOf(deps.publicUrl(), open.checkoutId) };
          }
          const after = await cancelPayment(merchant, link, open, requestId);
          if (after.status === '00' || after.status === '04') return { problem: 'closed' };
          if (['01', '02', '03'].includes(after.status))
            return { problem: 'refused', detail: 'a payment is under way' };
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
        // Another payer's choice of this single-use link won the race: theirs is the one payment.
        if (e instanceof UniqueViolation && e.constraint.includes('payment_link_once')) {
          return { problem: 'refused', detail: 'another payment of this single-use link is under way' };
        }
        if (!isSnapError(e)) throw e;
        return { problem: 'refused', detail: `${e.responseCode} ${e.responseMessage}` };
      }
    },
  };
}

export type PaymentLinkService = ReturnType<typeof createPaymentLinkService>;

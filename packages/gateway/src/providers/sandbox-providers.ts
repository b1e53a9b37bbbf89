import { randomUUID } from 'node:crypto';
import { TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import { conflict, notFound } from '../domain-error.ts';
import { newClientSecret } from '../merchants/merchant-service.ts';
import type { Payer } from '../payments/notification-body.ts';
import { parseQrisContent } from '../payments/qris-content.ts';
import type { ProviderKind, ProviderRecord } from '../records/provider-records.ts';
import type { TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { notifyDebitAsWallet, notifyQrisAsAcquirer, payVaAsBank } from './provider-calls.ts';
import type { SnapAnswer, SnapClient, SnapTarget } from './snap-client.ts';

/** The built-in sandbox bank, acquirer and wallet (bankCode 999), the same rows on every instance. */
const SANDBOX = {
  bank: { setting: 'sandbox_bank_provider_id', name: 'Sandbox Bank', kind: 'bank' },
  acquirer: { setting: 'sandbox_acquirer_provider_id', name: 'Sandbox Acquirer', kind: 'acquirer' },
  ewallet: { setting: 'sandbox_wallet_provider_id', name: 'Sandbox Wallet', kind: 'ewallet' },
} as const satisfies Record<ProviderKind, { setting: string; name: string; kind: ProviderKind }>;
export const SANDBOX_BANK_CODE = '999';
/** The sandbox wallet's `payOption` (docs/ewallets.md#sandbox). */
export const SANDBOX_WALLET = 'SANDBOXPAY';

/** Creates the sandbox bank and acquirer once; concurrent instances agree through the settings row. */
export async function ensureSandboxProviders(store: Store, nowMs: number): Promise<void> {
  for (const p of Object.values(SANDBOX)) {
    const id = await store.getOrCreateSetting(p.setting, () => randomUUID());
    if (await store.findProviderById(id)) continue;
    await store
      .insertProvider({
        id,
        name: p.name,
        kind: p.kind,
        bankCode: SANDBOX_BANK_CODE,
        clientKey: `sandbox-${p.kind}-${id}`,
        clientSecret: newClientSecret(),
        previousSecret: null,
        previousValidUntil: null,
        secretVersion: 1,
        publicKeyPem: null,
        outbound: null,
        isSandbox: true,
        acquiresGatewayQris: false,
        ...(p.kind === 'ewallet' ? { payOption: SANDBOX_WALLET } : {}),
        status: 'active',
        createdAt: nowMs,
        updatedAt: nowMs,
      })
      // Another instance inserted it first.
      .catch(async (e) => {
        if (!(await store.findProviderById(id))) throw e;
      });
  }
}

/** The id of the built-in sandbox bank, acquirer or wallet (sandbox mode). */
export async function sandboxProviderId(store: Pick<Store, 'getSetting'>, which: ProviderKind): Promise<string> {
  const id = await store.getSetting(SANDBOX[which].setting);
  if (!id) throw new TypeError(`the sandbox ${which} is missing`);
  return id;
}

/** A SNAP refusal from the provider path, carried to the sandbox API as a problem with its code. */
export class ProviderRefusal extends Error {
  readonly httpStatus: number;
  readonly responseCode: string;
  readonly responseMessage: string;
  constructor(answer: SnapAnswer, detail?: string) {
    const responseCode = String(answer.body.responseCode ?? '');
    const responseMessage = String(answer.body.responseMessage ?? '');
    super(detail ?? responseMessage);
    this.name = 'ProviderRefusal';
    this.httpStatus = answer.httpStatus;
    this.responseCode = responseCode;
    this.responseMessage = responseMessage;
  }
}

export interface SandboxPayerDeps {
  store: Store;
  client: SnapClient;
  /** The base URL this gateway answers on (known once it listens). */
  selfUrl: () => string;
}

/**
 * The payer's side in sandbox mode: the sandbox bank and acquirer pay by calling this gateway's
 * provider API over HTTP with a B2B token and real signatures, exactly as a bank or an acquirer
 * would, so every sandbox payment goes through the production path.
 */
export function createSandboxPayer({ store, client, selfUrl }: SandboxPayerDeps) {
  async function target(which: keyof typeof SANDBOX): Promise<SnapTarget & { providerId: string }> {
    const id = await store.getSetting(SANDBOX[which].setting);
    const p: ProviderRecord | undefined = id ? await store.findProviderById(id) : undefined;
    if (!p) throw new TypeError(`the sandbox ${which} is missing`);
    return {
      providerId: p.id,
      id: `sandbox-${which}`,
      baseUrl: selfUrl(),
      clientKey: p.clientKey,
      clientSecret: p.clientSecret,
      privateKeyPem: null,
      partnerId: p.clientKey,
      channelId: '95221',
    };
  }

  const refused = (answer: SnapAnswer): never => {
    throw new ProviderRefusal(answer);
  };

  /**
   * The transaction after a notify the sandbox sent for it (an acquirer's, a wallet's): a change the
   * status machine forbids (409 xx00) as a conflict saying both statuses, any other refusal as the
   * provider path's.
   */
  async function outcome(answer: SnapAnswer, referenceNo: string, to: TransactionStatus): Promise<TransactionRecord> {
    const after = (await store.findTransaction(referenceNo)) as TransactionRecord;
    if (answer.httpStatus === 409 && /^409\d\d00$/.test(String(answer.body.responseCode))) {
      throw conflict(
        `a transaction in status ${after.status} (${TRANSACTION_STATUS[after.status]}) cannot change to ${to} (${TRANSACTION_STATUS[to]})`,
      );
    }
    if (answer.httpStatus !== 200) refused(answer);
    return after;
  }

  return {
    /** A bank customer pays a VA: inquiry (24) for the bill, then the payment flag (25). */
    async payVa(
      virtualAccountNo: string,
      input: { amount?: string; payer: Payer; requestId?: string },
    ): Promise<TransactionRecord> {
      const bank = await target('bank');
      const outcome = await payVaAsBank(client, bank, virtualAccountNo, input);
      if (!outcome.payment) return refused(outcome.inquiry);
      if (outcome.payment.httpStatus !== 200) refused(outcome.payment);
      const paid = await store.findVaPayment(bank.providerId, outcome.paymentRequestId);
      return (await store.findTransaction(paid?.referenceNo ?? '')) as TransactionRecord;
    },

    /** The acquirer reports what the payer did with a QRIS: by referenceNo or by its qrContent. */
    async payQris(
      ref: { referenceNo?: string; qrContent?: string },
      input: { status: TransactionStatus; payer: Payer; requestId?: string },
    ): Promise<TransactionRecord> {
      let referenceNo = ref.referenceNo;
      if (ref.qrContent !== undefined) {
        referenceNo = parseQrisContent(ref.qrContent)?.referenceNo;
        if (!referenceNo) throw notFound('QRIS transaction for that qrContent (or its CRC does not match)');
      }
      const txn = referenceNo ? await store.findTransaction(referenceNo) : undefined;
      if (txn?.kind !== 'qris') throw notFound('QRIS transaction');
      const answer = await notifyQrisAsAcquirer(client, await target('acquirer'), {
        referenceNo: txn.referenceNo,
        amount: txn.amount as string,
        status: input.status,
        payer: input.payer,
        requestId: input.requestId,
      });
      return outcome(answer, txn.referenceNo, input.status);
    },

    /**
     * The payer answers the sandbox wallet (docs/ewallets.md#sandbox): approves (00) or declines (06)
     * an e-wallet payment of `SANDBOXPAY`; the wallet tells the gateway at its notify door.
     */
    async payEwallet(
      referenceNo: string,
      input: { status: '00' | '06'; payer: Pick<Payer, 'payerName' | 'payerRefId'>; requestId?: string },
    ): Promise<TransactionRecord> {
      const wallet = await target('ewallet');
      const txn = await store.findTransaction(referenceNo);
      if (txn?.kind !== 'ewallet' || txn.details.providerId !== wallet.providerId) {
        throw notFound('e-wallet payment of the sandbox wallet');
      }
      const answer = await notifyDebitAsWallet(client, wallet, {
        referenceNo,
        amount: txn.amount as string,
        status: input.status,
        payer: input.payer,
        requestId: input.requestId,
      });
      return outcome(answer, referenceNo, input.status);
    },
  };
}

export type SandboxPayer = ReturnType<typeof createSandboxPayer>;

// Webhook certification of a merchant (sandbox mode only): real, signed callbacks about the
// merchant's own sandbox transactions, driven through real status changes, then forgeries its
// endpoint must refuse. Only the answers are judged.

import { generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import { jakartaDay, phpJsonEncode, SERVICE, TRANSACTION_STATUS, type TransactionStatus } from '@snapgate/snap';
import type { OutboundPolicy } from '../address-guard.ts';
import type { Clock } from '../clock.ts';
import { type ConformanceReport, type RecordedRequest, type ScenarioResult, summarise } from '../conformance/report.ts';
import { callbackHeaders, callbackUrlOf, loggedCallbackHeaders } from '../delivery/callback-signing.ts';
import { CallbackTokenFailed, createCallbackTokens } from '../delivery/callback-token.ts';
import { ackRuleOf, createSender, type Sender, type SendResult } from '../delivery/send.ts';
import { newClientSecret } from '../merchants/merchant-service.ts';
import { methodOf } from '../methods/index.ts';
import { withIdempotency } from '../payments/idempotency.ts';
import { newNotificationId } from '../payments/ids.ts';
import { notificationBody, type Payer, serializeCallback } from '../payments/notification-body.ts';
import type { QrisService } from '../payments/qris-service.ts';
import type { MerchantRequest } from '../payments/snap-request.ts';
import type { StatusChanger } from '../payments/status-change.ts';
import type { VaService } from '../payments/va-service.ts';
import { sandboxProviderId } from '../providers/sandbox-providers.ts';
import type { CertificationRecord, MerchantRecord, TransactionKind, TransactionRecord } from '../records/records.ts';
import type { Store } from '../store/store.ts';
import { tokenFailure, tokenRefusal } from './token-check.ts';

export type { CertificationRecord } from '../records/records.ts';

export const CERTIFICATION_SUITE = 'webhook-certification';
/** How old the stale-timestamp forgery is. */
const STALE_MS = 10 * 60_000;

export interface CertificationDeps {
  mode: 'sandbox' | 'production';
  store: Store;
  clock: Clock;
  changer: StatusChanger;
  /** SNAPGATE_CALLBACK_TIMEOUT_MS: every answer must come within it. */
  callbackTimeoutMs: number;
  /** The gateway's callback key (`rsa-sha256` merchants, `snap-b2b` token requests). */
  gatewayPrivateKey: KeyObject;
  /** Only for `create: true`. */
  qris?: QrisService;
  va?: VaService;
  /** Default: a sender of its own with the callback timeout, closed after the run. */
  sender?: Sender;
  /** The gateway's outbound policy (extra trusted CAs); default: Node's CAs, the sandbox guard. */
  outbound?: OutboundPolicy;
}

export interface CertificationInput {
  merchantId: string;
  /** Two unpaid QRIS referenceNos; default the merchant's newest two. */
  qris?: string[] | undefined;
  /** An unpaid VA: its referenceNo or virtual account number; default the newest. */
  va?: string | undefined;
  /** Create the transactions through the payment services instead of picking existing ones. */
  create?: boolean | undefined;
  /** X-Request-Id of the request that runs it: its changes and their notifications carry it. */
  requestId?: string | undefined;
}

/** What a certification was about: the transactions it paid and failed, as they ended. */
export interface CertifiedTransaction {
  role: 'qris-paid' | 'qris-failed' | 'va-paid';
  referenceNo: string;
  partnerReferenceNo: string;
  kind: TransactionKind;
  status: TransactionStatus;
}

/** The conformance report, with what a stored certification adds. */
export interface CertificationReport extends ConformanceReport {
  id: string;
  merchantId: string;
  finishedAt: string;
  transactions: CertifiedTransaction[];
}

export type CertificationProblem =
  | 'production'
  | 'not-found'
  | 'no-callback-url'
  | 'no-transactions'
  | 'bad-transaction';

/** A certification that cannot run; `problem` says why (the admin API maps it to a status). */
export class CertificationRefused extends Error {
  readonly problem: CertificationProblem;
  constructor(problem: CertificationProblem, message: string) {
    super(message);
    this.name = 'CertificationRefused';
    this.problem = problem;
  }
}

/** Who "pays" during a certification: a name with a `/` and non-ASCII letters, so PHP bytes differ. */
export const CERTIFICATION_PAYER: Payer = {
  payerName: 'Siti Nurhaliza / Kedai Kopi Déjà Vü',
  payerIssuer: '93600009',
  payerRefId: '100000000001',
};

const isUnpaid = (t: TransactionRecord, now: number) =>
  t.status === '01' && (t.expiresAt === null || t.expiresAt === undefined || t.expiresAt > now);

/** Picks (or creates) the two QRIS and the VA to certify with. */
async function transactionsFor(
  deps: CertificationDeps,
  merchant: MerchantRecord,
  input: CertificationInput,
): Promise<{ qris: [TransactionRecord, TransactionRecord]; va: TransactionRecord }> {
  const { store } = deps;
  const now = deps.clock.now();
  if (input.create) return createTransactions(deps, merchant, input.requestId ?? randomUUID());

  const bad = (message: string) => new CertificationRefused('bad-transaction', message);
  const mine = (t: TransactionRecord | undefined, kind: TransactionKind, ref: string) => {
    if (!t || t.merchantId !== merchant.id || t.kind !== kind)
      throw bad(`${methodOf(kind).label.short} ${ref} is not a transaction of merchant ${merchant.id}`);
    if (!isUnpaid(t, now))
      throw bad(
        `${methodOf(kind).label.short} ${ref} is not unpaid (status ${t.status} ${TRANSACTION_STATUS[t.status]}${t.status === '01' ? ', expired' : ''}): certification needs unpaid transactions`,
      );
    return t;
  };

  let qris: TransactionRecord[];
  if (input.qris && input.qris.length > 0) {
    if (input.qris.length !== 2 || input.qris[0] === input.qris[1])
      throw bad('name exactly two different QRIS transactions (one is paid, the other fails)');
    qris = [];
    for (const ref of input.qris) qris.push(mine(await store.findTransaction(ref), 'qris', ref));
  } else {
    const page = await store.listTransactions({ merchantId: merchant.id, kind: 'qris', status: '01' }, { limit: 20 });
    qris = page.items.filter((t) => isUnpaid(t, now)).slice(0, 2);
  }
  let va: TransactionRecord | undefined;
  if (input.va) {
    const found = (await store.findTransaction(input.va)) ?? (await store.findTransactionByVirtualAccountNo(input.va));
    va = mine(found, 'va', input.va);
  } else {
    const page = await store.listTransactions({ merchantId: merchant.id, kind: 'va', status: '01' }, { limit: 20 });
    va = page.items.find((t) => isUnpaid(t, now));
  }
  if (qris.length < 2 || !va) {
    const missing = [
      qris.length < 2 ? `${2 - qris.length} unpaid QRIS` : undefined,
      va ? undefined : 'an unpaid VA',
    ].filter(Boolean);
    throw new CertificationRefused(
      'no-transactions',
      `merchant ${merchant.id} lacks ${missing.join(' and ')}: create two QRIS and one VA from your own system first (so it knows the orders), or certify with create: true`,
    );
  }
  return { qris: [qris[0] as TransactionRecord, qris[1] as TransactionRecord], va };
}

/** `create: true`: two QRIS and a VA through the payment services, as the merchant's calls would. */
async function createTransactions(
  deps: CertificationDeps,
  merchant: MerchantRecord,
  requestId: string,
): Promise<{ qris: [TransactionRecord, TransactionRecord]; va: TransactionRecord }> {
  const { store, qris: qrisService, va: vaService } = deps;
  if (!qrisService || !vaService) throw new TypeError('certifyMerchant: create needs the QRIS and VA services');
  // The certification's own scenario: two QRIS and one VA (docs/certification.md).
  const run = async (serviceCode: string, body: Record<string, unknown>, op: 'qris' | 'va') => {
    const now = deps.clock.now();
    const ctx: MerchantRequest = {
      merchant,
      body,
      serviceCode,
      // A colon no client's X-EXTERNAL-ID may hold: never a merchant's own key.
      idempotencyKey: {
        merchantId: merchant.id,
        day: jakartaDay(now),
        externalId: `cert:${randomBytes(8).toString('hex')}`,
      },
      requestHash: randomUUID(),
      now,
      requestId,
    };
    const r = await withIdempotency(
      store,
      ctx,
      (recordFor) => (op === 'qris' ? qrisService.generate(ctx, recordFor) : vaService.create(ctx, recordFor)),
      { writes: true },
    );
    const answer = JSON.parse(r.body) as {
      responseCode?: string;
      responseMessage?: string;
      referenceNo?: string;
      virtualAccountData?: { virtualAccountNo?: string };
    };
    const txn =
      op === 'qris'
        ? await store.findTransaction(answer.referenceNo ?? '')
        : await store.findTransactionByVirtualAccountNo(answer.virtualAccountData?.virtualAccountNo ?? '');
    if (r.httpStatus !== 200 || !txn)
      throw new CertificationRefused(
        'bad-transaction',
        `could not create a sandbox ${methodOf(op).label.short}: ${answer.responseCode ?? r.httpStatus} ${answer.responseMessage ?? ''}`.trim(),
      );
    return txn;
  };
  const ref = () => `CERT-${deps.clock.now()}-${randomBytes(3).toString('hex')}`;
  const amount = { value: '10000.00', currency: 'IDR' };
  const a = await run(SERVICE.qrisGenerate, { partnerReferenceNo: ref(), amount }, 'qris');
  const b = await run(SERVICE.qrisGenerate, { partnerReferenceNo: ref(), amount }, 'qris');
  const v = await run(
    SERVICE.vaCreate,
    { virtualAccountName: 'Certification', trxId: ref(), totalAmount: amount, virtualAccountTrxType: 'C' },
    'va',
  );
  return { qris: [a, b], va: v };
}

interface Sent {
  request: RecordedRequest;
  result: SendResult;
}

/**
 * Runs a webhook certification of a merchant and stores it. Sandbox mode only. Throws
 * CertificationRefused when it cannot run (production, unknown merchant, no callback URL, no
 * unpaid transactions).
 */
export async function certifyMerchant(
  deps: CertificationDeps,
  input: CertificationInput,
): Promise<CertificationReport> {
  if (deps.mode !== 'sandbox')
    throw new CertificationRefused(
      'production',
      'webhook certification runs only in sandbox mode: it pays and fails transactions',
    );
  const { store, clock, changer } = deps;
  const merchant = await store.findMerchantById(input.merchantId);
  if (!merchant) throw new CertificationRefused('not-found', `no merchant ${input.merchantId}`);
  const qrisUrl = callbackUrlOf(merchant, 'qris');
  const vaUrl = callbackUrlOf(merchant, 'va');
  if (!qrisUrl || !vaUrl)
    throw new CertificationRefused(
      'no-callback-url',
      `merchant ${merchant.id} has no ${qrisUrl ? 'VA' : 'QRIS'} callback URL: set callbackBaseUrl (or qrisCallbackUrl and vaCallbackUrl) first`,
    );
  const picked = await transactionsFor(deps, merchant, input);

  const id = randomUUID();
  const startedAt = clock.now();
  const started = performance.now();
  const timeoutMs = deps.callbackTimeoutMs;
  const sender = deps.sender ?? createSender({ timeoutMs, outbound: deps.outbound });
  const tokens =
    merchant.callbackSignature === 'snap-b2b'
      ? createCallbackTokens({ sender, clock, gatewayPrivateKey: deps.gatewayPrivateKey })
      : undefined;
  const results: ScenarioResult[] = [];
  const format = merchant.callbackJson;

  const headersFor = async (
    url: URL,
    body: string,
    notificationId: string,
    who: Pick<MerchantRecord, 'partnerId' | 'clientSecret' | 'callbackSignature'> = merchant,
    nowMs = clock.now(),
    key = deps.gatewayPrivateKey,
  ) => {
    const accessToken = who.callbackSignature === 'snap-b2b' && tokens ? (await tokens.get(merchant)).token : undefined;
    return callbackHeaders({ merchant: who, url, body, notificationId, nowMs, gatewayPrivateKey: key, accessToken });
  };

  const send = async (url: URL, headers: Record<string, string>, body: string): Promise<Sent> => {
    const recordedHeaders = loggedCallbackHeaders(headers);
    const request: RecordedRequest = {
      method: 'POST',
      url: url.toString(),
      path: `${url.pathname}${url.search}`,
      headers: recordedHeaders,
      body,
    };
    // Acknowledged as the gateway would count it: the merchant's own rule (callbackAck).
    return { request, result: await sender.post(url, headers, body, ackRuleOf(merchant.callbackAck)) };
  };

  const record = (
    group: string,
    scenario: string,
    title: string,
    kind: 'positive' | 'negative',
    sent: Sent,
    failure: string,
  ) => {
    const { result } = sent;
    const answered = result.status !== null;
    const acknowledged = result.outcome === 'acknowledged';
    let passed: boolean;
    let reason: string;
    if (!answered) {
      passed = false;
      reason = result.error?.startsWith('timeout')
        ? `your endpoint did not answer within the callback timeout (${timeoutMs} ms): the gateway counts that as a failure and sends the notification again later`
        : `your endpoint could not be reached (${result.error ?? 'no answer'})`;
    } else if (kind === 'positive') {
      passed = acknowledged;
      reason = passed
        ? 'passed'
        : `${failure} (it answered HTTP ${result.status}${codeOf(result.responseBody)}; only HTTP 200 with responseCode ${merchant.callbackAck === 'any-200' ? 'a 200xxxx code' : '2002600'} acknowledges)`;
    } else {
      passed = !acknowledged;
      reason = passed ? 'passed' : failure;
    }
    results.push({
      group,
      id: scenario,
      title,
      kind,
      passed,
      reason,
      durationMs: result.durationMs,
      request: sent.request,
      response: {
        status: result.status ?? 0,
        headers: {},
        body: result.responseBody ?? '',
      },
    });
  };

  /** A true status change, then its own notification (the outbox row) sent as is. */
  const changeAndSend = async (
    txn: TransactionRecord,
    to: TransactionStatus,
    url: URL,
    group: string,
    scenario: string,
  ): Promise<{ txn: TransactionRecord; notificationId: string; body: string }> => {
    const now = clock.now();
    const changed = await changer.change(
      txn,
      {
        to,
        reason: `webhook certification ${id}`,
        requestId: input.requestId,
        // Paid by the sandbox bank or acquirer, as a sandbox payment is.
        providerId: to === '00' ? await sandboxProviderId(store, methodOf(txn.kind).provider.kind) : undefined,
        patch: (current) => ({
          ...(to === '00'
            ? {
                // An open amount (a VA's) is paid 10,000.00.
                paidAmount: current.amount ?? '10000.00',
                paidAt: now,
              }
            : {}),
          details: { ...current.details, payer: CERTIFICATION_PAYER },
        }),
      },
      now,
    );
    // Every change certified here is notified, in the same transaction: the stored bytes are sent.
    const notification = (await store.notificationsOf(changed.referenceNo)).find((n) => n.txnSeq === changed.seq);
    if (!notification) throw new Error(`the change of ${changed.referenceNo} wrote no notification`);
    const body = notification.body;
    const sent = await send(url, await headersFor(url, body, notification.id), body);
    const what = `${methodOf(txn.kind).label.short} ${txn.partnerReferenceNo ?? txn.referenceNo}`;
    record(
      group,
      scenario,
      `a true notification: ${what} is now ${to} (${TRANSACTION_STATUS[to]})`,
      'positive',
      sent,
      `your endpoint refused a true, correctly signed notification that ${what} is ${TRANSACTION_STATUS[to]}: your order would not follow the payment`,
    );
    return { txn: changed, notificationId: notification.id, body };
  };

  const qUrl = new URL(qrisUrl);
  const vUrl = new URL(vaUrl);
  try {
    // 0. A snap-b2b merchant's token endpoint first: refused, nothing is changed or sent.
    const refused = await tokenRefusal(tokens, merchant);
    const scenarios = async () => {
      // 1. The true notifications, each right after the change it reports.
      const [qa, qb] = picked.qris;
      const q03 = await changeAndSend(qa, '03', qUrl, 'qris', 'qris-pending');
      const q00 = await changeAndSend(q03.txn, '00', qUrl, 'qris', 'qris-paid');
      const q06 = await changeAndSend(qb, '06', qUrl, 'qris', 'qris-failed');
      const v00 = await changeAndSend(picked.va, '00', vUrl, 'va', 'va-paid');

      // 2. True content, in forms a receiver must take too.
      const again = await send(qUrl, await headersFor(qUrl, q00.body, q00.notificationId), q00.body);
      record(
        'robustness',
        'duplicate',
        'the same notification again (same X-EXTERNAL-ID)',
        'positive',
        again,
        'your endpoint refused a notification it had already received: the gateway sends one again whenever an answer is lost, so a repeat must be acknowledged (and not applied twice)',
      );

      const extended = JSON.parse(v00.body) as Record<string, unknown> & { additionalInfo?: Record<string, unknown> };
      extended.additionalInfo = { ...extended.additionalInfo, certificationNote: 'an unknown field' };
      extended.futureField = { added: 'later' };
      const extendedBody = serializeCallback(extended, format);
      const extendedId = newNotificationId(clock.now());
      record(
        'robustness',
        'unknown-fields',
        'the same content with unknown extra fields',
        'positive',
        await send(vUrl, await headersFor(vUrl, extendedBody, extendedId), extendedBody),
        'your endpoint refused a true notification carrying fields it does not know: SNAP adds fields over time, ignore the ones you do not use',
      );

      const phpBody = phpJsonEncode(JSON.parse(q00.body));
      const phpId = newNotificationId(clock.now());
      record(
        'robustness',
        'php-escapes',
        'the same content as PHP writes it (\\/ and \\u escapes, a non-ASCII payer name)',
        'positive',
        await send(qUrl, await headersFor(qUrl, phpBody, phpId), phpBody),
        'your endpoint refused true bytes that use PHP escapes (\\/ and \\uXXXX): verify the signature over the raw bytes received, never over re-serialised JSON',
      );

      const charsetId = newNotificationId(clock.now());
      const charsetHeaders = {
        ...(await headersFor(qUrl, q06.body, charsetId)),
        'content-type': 'application/json; charset=utf-8',
      };
      record(
        'robustness',
        'charset',
        'Content-Type: application/json; charset=utf-8',
        'positive',
        await send(qUrl, charsetHeaders, q06.body),
        'your endpoint refused a true notification whose Content-Type has a charset parameter: compare the media type only',
      );

      // 3. Forgeries: a notification that the failed QRIS was paid.
      const forged = notificationBody(
        {
          ...q06.txn,
          status: '00',
          statusDesc: TRANSACTION_STATUS['00'],
          paidAmount: q06.txn.amount,
          paidAt: clock.now(),
        },
        clock.now(),
        merchant,
      );
      const forgedTitle = (how: string) => `a forged notification that a failed QRIS was paid: ${how}`;
      const fid = () => newNotificationId(clock.now());
      const refuse = async (scenario: string, how: string, headers: Record<string, string>, failure: string) =>
        record('security', scenario, forgedTitle(how), 'negative', await send(qUrl, headers, forged), failure);
      const MARK_PAID = 'anyone can mark your orders paid';

      await refuse(
        'wrong-signature',
        'a wrong signature',
        { ...(await headersFor(qUrl, forged, fid())), 'x-signature': randomBytes(64).toString('base64') },
        `your endpoint accepted a callback with a forged signature: ${MARK_PAID}`,
      );
      await refuse(
        'signature-of-another-body',
        'a valid signature over another body',
        await headersFor(qUrl, q06.body, fid()),
        `your endpoint accepted a body its signature was not made over: ${MARK_PAID} by reusing one signed callback`,
      );
      await refuse(
        'another-merchants-secret',
        "signed with another merchant's secret",
        await headersFor(qUrl, forged, fid(), {
          ...merchant,
          clientSecret: newClientSecret(),
          callbackSignature: merchant.callbackSignature === 'rsa-sha256' ? 'hmac-sha512' : merchant.callbackSignature,
        }),
        `your endpoint accepted a callback signed with a secret that is not yours: any merchant of the gateway (${MARK_PAID.replace('anyone ', 'or anyone ')})`,
      );
      await refuse(
        'stale-timestamp',
        'correctly signed, X-TIMESTAMP 10 minutes old',
        await headersFor(qUrl, forged, fid(), merchant, clock.now() - STALE_MS),
        'your endpoint accepted a callback whose X-TIMESTAMP is 10 minutes old: a recorded callback can be replayed later; refuse timestamps more than a few minutes off',
      );
      await refuse(
        'another-partner-id',
        'correctly signed for another X-PARTNER-ID',
        await headersFor(qUrl, forged, fid(), { ...merchant, partnerId: `OTHER${randomBytes(4).toString('hex')}` }),
        'your endpoint accepted a callback addressed to another partner (X-PARTNER-ID is not yours): check X-PARTNER-ID against your own',
      );
      const unsigned = await headersFor(qUrl, forged, fid());
      delete unsigned['x-signature'];
      await refuse(
        'missing-signature',
        'no X-SIGNATURE header',
        unsigned,
        `your endpoint accepted a callback without a signature: ${MARK_PAID}`,
      );
      if (merchant.callbackSignature === 'rsa-sha256') {
        const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        await refuse(
          'another-key',
          "signed by a key that is not the gateway's",
          await headersFor(qUrl, forged, fid(), merchant, clock.now(), privateKey),
          `your endpoint accepted a callback signed by a key that is not the gateway's: verify with the key at /.well-known/snapgate/callback-public-key.pem, or ${MARK_PAID}`,
        );
      }
    };
    if (refused) results.push(refused);
    else {
      try {
        await scenarios();
      } catch (e) {
        // A token refused mid-run (one that ran out): the report says so, and where the orders ended.
        if (!(e instanceof CallbackTokenFailed)) throw e;
        results.push(tokenFailure(e));
      }
    }

    // 4. Where the transactions ended, read back.
    const transactions: CertifiedTransaction[] = [];
    const [qa, qb] = picked.qris;
    for (const [role, t] of [
      ['qris-paid', qa],
      ['qris-failed', qb],
      ['va-paid', picked.va],
    ] as const) {
      const now = (await store.findTransaction(t.referenceNo)) ?? t;
      transactions.push({
        role,
        referenceNo: now.referenceNo,
        partnerReferenceNo: now.partnerReferenceNo ?? '',
        kind: now.kind,
        status: now.status,
      });
    }

    const finishedAt = clock.now();
    const summary = summarise(
      CERTIFICATION_SUITE,
      `merchant ${merchant.id} (${qrisUrl}, ${vaUrl})`,
      new Date(startedAt),
      Math.round(performance.now() - started),
      results,
    );
    const report: CertificationReport = {
      ...summary,
      id,
      merchantId: merchant.id,
      finishedAt: new Date(finishedAt).toISOString(),
      transactions,
    };
    await store.insertCertification({
      id,
      merchantId: merchant.id,
      startedAt,
      finishedAt,
      passed: report.ok,
      report: JSON.stringify(report),
      suite: CERTIFICATION_SUITE,
    });
    return report;
  } finally {
    if (!deps.sender) await sender.close();
  }
}

function codeOf(body: string | null): string {
  if (!body) return '';
  try {
    const code = (JSON.parse(body) as { responseCode?: unknown }).responseCode;
    return typeof code === 'string' ? `, responseCode ${code}` : '';
  } catch {
    return '';
  }
}

/** The stored report of a certification. */
export function reportOf(record: CertificationRecord): CertificationReport {
  return JSON.parse(record.report) as CertificationReport;
}

import { isTransactionStatus, type TransactionStatus } from '@snapgate/snap';
import { systemClock } from '../../clock.ts';
import { parseQrisContent } from '../../payments/qris-content.ts';
import { notifyQrisAsAcquirer, payVaAsBank } from '../../providers/provider-calls.ts';
import {
  createSnapClient,
  type SnapAnswer,
  SnapCallFailed,
  SnapCallTimeout,
  type SnapClient,
  type SnapTarget,
} from '../../providers/snap-client.ts';
import { AdminApiError } from '../admin-client.ts';
import {
  bodyOf,
  type CommandSpec,
  type Ctx,
  enc,
  flag,
  onePositional,
  readFlagFile,
  UsageError,
  type Values,
} from '../command-kit.ts';
import { printRecord } from '../output.ts';

const PAYER_FLAGS = [
  flag('--payer-name <name>', "the payer's name (default: SIMULATED PAYER)"),
  flag('--payer-issuer <code>', "the payer's issuer (default: 93600009)"),
  flag('--payer-ref-id <id>', "the payer's reference (default: the current time in milliseconds)"),
];
function payerBody(values: Values): Record<string, unknown> {
  return bodyOf(values, { 'payer-name': 'payerName', 'payer-issuer': 'payerIssuer', 'payer-ref-id': 'payerRefId' });
}
const payerOf = (values: Values) => ({
  payerName: typeof values['payer-name'] === 'string' ? values['payer-name'] : 'SIMULATED PAYER',
  payerIssuer: typeof values['payer-issuer'] === 'string' ? values['payer-issuer'] : '93600009',
  payerRefId: typeof values['payer-ref-id'] === 'string' ? values['payer-ref-id'] : String(Date.now()),
});
const TXN_FIELDS = [
  'referenceNo',
  'kind',
  'partnerReferenceNo',
  'status',
  'statusDesc',
  'amount',
  'paidAmount',
  'virtualAccountNo',
  'paidAt',
];
const pickFields = (t: Record<string, unknown>) => Object.fromEntries(TXN_FIELDS.map((k) => [k, t[k]]));

const PROVIDER_FLAGS = [
  flag('--provider-key <clientKey>', 'act as this provider over the SNAP API at --url (not the sandbox shortcut)'),
  flag('--provider-secret <secret>', "the provider's client secret (signs the calls)"),
  flag('--provider-private-key <file>', "the provider's PEM private key (signs the token request SHA256withRSA)"),
];

/** `--provider-key …`: act as that provider against the gateway at --url, over its SNAP API. */
function providerTarget(ctx: Ctx): SnapTarget | undefined {
  const clientKey = ctx.values['provider-key'];
  const secret = ctx.values['provider-secret'];
  const privateKeyPem = readFlagFile(ctx.values, 'provider-private-key') ?? null;
  if (clientKey === undefined) {
    if (secret !== undefined || privateKeyPem !== null) throw new UsageError('--provider-key is required');
    return undefined;
  }
  if (typeof clientKey !== 'string' || (typeof secret !== 'string' && privateKeyPem === null)) {
    throw new UsageError('--provider-key needs --provider-secret or --provider-private-key');
  }
  // The transactional signature is always HMAC-SHA512 with the secret; a key alone signs only the token.
  if (typeof secret !== 'string') throw new UsageError('--provider-secret is required to sign the calls');
  return {
    // Named in a refusal: "token refused by the gateway at https://…".
    id: `the gateway at ${ctx.url}`,
    baseUrl: ctx.url,
    clientKey,
    clientSecret: secret,
    privateKeyPem,
    partnerId: clientKey,
    channelId: '95221',
  };
}

/**
 * A sandbox payment through the admin API. A gateway in production mode has no sandbox routes (404
 * `no route …`): that is said plainly, with the way to pay there (as the provider itself).
 */
async function sandboxCall(ctx: Ctx, path: string, body: Record<string, unknown>) {
  try {
    return await ctx.admin.call<Record<string, unknown>>('POST', path, body);
  } catch (e) {
    const detail = e instanceof AdminApiError ? (e.body as { detail?: unknown } | undefined)?.detail : undefined;
    if (e instanceof AdminApiError && e.status === 404 && typeof detail === 'string' && detail.startsWith('no route')) {
      throw new Error(
        'the gateway runs in production mode: there is no sandbox. Pay as the provider instead: --provider-key with --provider-secret or --provider-private-key',
      );
    }
    throw e;
  }
}

/** Runs the provider's calls with a one-off SNAP client and prints every answer; fails unless all are 2xx. */
async function asProvider(ctx: Ctx, work: (client: SnapClient) => Promise<SnapAnswer[]>): Promise<void> {
  const client = createSnapClient({ clock: systemClock, timeoutMs: 10_000 });
  try {
    const answers = await work(client);
    for (const a of answers) printRecord(ctx.o, a.body);
    const last = answers.at(-1);
    if (last?.httpStatus !== 200) throw new Error(`refused: ${last?.raw ?? 'no answer'}`);
  } catch (e) {
    // A provider registered with an RSA public key signs its token request with its private key only.
    const hint =
      e instanceof SnapCallFailed &&
      e.message.startsWith('token refused') &&
      readFlagFile(ctx.values, 'provider-private-key') === undefined
        ? ' (a provider registered with a public key signs its token request with its private key: --provider-private-key)'
        : '';
    if (e instanceof SnapCallFailed || e instanceof SnapCallTimeout) throw new Error(`${e.message}${hint}`);
    throw e;
  } finally {
    await client.close();
  }
}

export const simulateCommands: CommandSpec[] = [
  {
    path: 'simulate qris',
    description: 'pay a QRIS, by its referenceNo or its scanned --qr-content',
    args: ['[referenceNo]'],
    flags: [
      flag('--qr-content <qr>', 'the QRIS text, instead of a referenceNo'),
      flag('--status <status>', 'the SNAP status to report: 00 paid, 01, 02, 03 or 06 (default: 00)'),
      flag('--amount <amount>', 'the amount, like 10000.00 (with --provider-key and a referenceNo: required)'),
      ...PAYER_FLAGS,
      ...PROVIDER_FLAGS,
    ],
    async run(ctx) {
      const body = payerBody(ctx.values);
      if (typeof ctx.values.status === 'string') body.status = ctx.values.status;
      const qrContent = ctx.values['qr-content'];
      if (typeof qrContent === 'string' && ctx.positionals.length > 0) {
        throw new UsageError('give a referenceNo or --qr-content, not both');
      }
      const acquirer = providerTarget(ctx);
      if (acquirer) {
        const scanned = typeof qrContent === 'string' ? parseQrisContent(qrContent) : undefined;
        if (typeof qrContent === 'string' && !scanned) throw new UsageError('--qr-content is not a valid QRIS');
        const referenceNo = scanned?.referenceNo ?? onePositional(ctx, 'referenceNo');
        const amount = typeof ctx.values.amount === 'string' ? ctx.values.amount : scanned?.amount;
        if (amount === undefined)
          throw new UsageError('--amount is required with a referenceNo (an acquirer knows it)');
        const status = (body.status ?? '00') as TransactionStatus;
        if (!isTransactionStatus(status)) throw new UsageError('--status must be a SNAP status like 00');
        await asProvider(ctx, async (client) => [
          await notifyQrisAsAcquirer(client, acquirer, { referenceNo, amount, status, payer: payerOf(ctx.values) }),
        ]);
        return;
      }
      let path: string;
      if (typeof qrContent === 'string') {
        body.qrContent = qrContent;
        path = '/sandbox/qris/pay';
      } else {
        path = `/sandbox/qris/${enc(onePositional(ctx, 'referenceNo'))}/pay`;
      }
      const t = await sandboxCall(ctx, path, body);
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
  {
    path: 'simulate va',
    description: 'pay a virtual account',
    args: ['<virtualAccountNo>'],
    flags: [
      flag('--amount <amount>', 'the amount paid, like 10000.00 (default: the amount due)'),
      ...PAYER_FLAGS,
      ...PROVIDER_FLAGS,
    ],
    async run(ctx) {
      const body = payerBody(ctx.values);
      if (typeof ctx.values.amount === 'string') body.amount = ctx.values.amount;
      const vaNo = onePositional(ctx, 'virtualAccountNo');
      const bank = providerTarget(ctx);
      if (bank) {
        const amount = typeof ctx.values.amount === 'string' ? ctx.values.amount : undefined;
        await asProvider(ctx, async (client) => {
          const r = await payVaAsBank(client, bank, vaNo, { amount, payer: payerOf(ctx.values) });
          return r.payment ? [r.inquiry, r.payment] : [r.inquiry];
        });
        return;
      }
      const t = await sandboxCall(ctx, `/sandbox/va/${enc(vaNo)}/pay`, body);
      printRecord(ctx.o, ctx.o.json ? t : pickFields(t));
    },
  },
];

// ── notifications ───────────────────────────────────────────────────────────────────────────

import {
  bodyOf,
  type CommandSpec,
  clientCommands,
  enc,
  type FlagSpec,
  flag,
  onePositional,
  PAGE_FLAGS,
  type Page,
  query,
  readFlagFile,
  UsageError,
  type Values,
} from '../command-kit.ts';
import { printRecord, printTable } from '../output.ts';

const providerFields: Record<string, string> = {
  name: 'name',
  kind: 'kind',
  'bank-code': 'bankCode',
  'pay-option': 'payOption',
};
const outboundFields: Record<string, string> = {
  'outbound-base-url': 'baseUrl',
  'outbound-client-key': 'clientKey',
  'outbound-client-secret': 'clientSecret',
  'outbound-partner-id': 'partnerId',
  'outbound-channel-id': 'channelId',
  'outbound-token-path': 'tokenPath',
  'outbound-path-prefix': 'pathPrefix',
};
const providerFlags = (creating: boolean): FlagSpec[] => {
  const req = creating ? ' (required)' : '';
  return [
    flag('--name <name>', `the provider's name, 1 to 100 characters${req}`),
    ...(creating
      ? [
          flag('--kind <kind>', `bank, acquirer or ewallet${req}`),
          flag('--pay-option <wallet>', 'e-wallets: the wallet it serves, e.g. DANA (required for an e-wallet)'),
        ]
      : []),
    flag(
      '--bank-code <code>',
      `banks and acquirers: 3 digits; one active bank per code${req ? ' (required for them)' : ''}`,
    ),
    flag('--public-key-file <file>', 'a PEM RSA public key (2048 bits or more) for its token signatures'),
    flag(
      '--acquires-gateway-qris <yes|no>',
      'acquirers: yes if it acquires the QRIS the gateway issues itself (merchants without a qris provider; one acquirer at most)',
    ),
    flag('--outbound-base-url <url>', "acquirers and e-wallets: the provider's origin the gateway calls"),
    flag('--outbound-client-key <key>', 'acquirers and e-wallets: the client key the gateway holds there'),
    flag('--outbound-client-secret <secret>', 'acquirers and e-wallets: the client secret the gateway holds there'),
    flag('--outbound-partner-id <id>', 'acquirers and e-wallets: the partner id the gateway uses there'),
    flag(
      '--outbound-private-key-file <file>',
      'acquirers and e-wallets: sign token requests SHA256withRSA with this PEM key',
    ),
    flag('--outbound-channel-id <id>', 'acquirers and e-wallets: CHANNEL-ID, at most 5 characters (default: 95221)'),
    flag(
      '--outbound-token-path <path>',
      'acquirers and e-wallets: token path (default: /api/snap/v1.0/access-token/b2b)',
    ),
    flag(
      '--outbound-path-prefix <path>',
      'acquirers and e-wallets: prefix of the SNAP paths (default: /api/snap/v1.0)',
    ),
    flag(
      '--payouts-source-account <number>',
      `banks: makes it the payout bank (with its --outbound-… settings), paying out from this account${creating ? '' : '; "none" to stop (its outbound settings go too)'}`,
    ),
  ];
};

function providerBody(values: Values): Record<string, unknown> {
  const body = bodyOf(values, providerFields);
  const acquires = values['acquires-gateway-qris'];
  if (typeof acquires === 'string') {
    if (acquires !== 'yes' && acquires !== 'no') throw new UsageError('--acquires-gateway-qris: yes or no');
    body.acquiresGatewayQris = acquires === 'yes';
  }
  const pem = readFlagFile(values, 'public-key-file');
  if (pem !== undefined) body.publicKeyPem = pem;
  const outbound = bodyOf(values, outboundFields);
  const privateKeyPem = readFlagFile(values, 'outbound-private-key-file');
  if (privateKeyPem !== undefined) outbound.privateKeyPem = privateKeyPem;
  if (Object.keys(outbound).length > 0) body.outbound = outbound;
  const source = values['payouts-source-account'];
  if (typeof source === 'string') body.payouts = source === 'none' ? null : { sourceAccountNo: source };
  // A bank is called only as the payout bank: when it stops, its outbound settings go with it.
  if (source === 'none' && body.outbound === undefined) body.outbound = null;
  return body;
}

/** What names a provider of each kind: a bank and an acquirer their bank code, an e-wallet its wallet. */
const IDENTITY: Record<string, string> = { bank: 'bank-code', acquirer: 'bank-code', ewallet: 'pay-option' };

const PROVIDER_COLUMNS = ['id', 'name', 'kind', 'bankCode', 'payOption', 'clientKey', 'status', 'isSandbox'];

export const providerCommands: CommandSpec[] = [
  {
    path: 'provider create',
    description: 'register a bank, an acquirer or an e-wallet (its client secret is shown once)',
    flags: providerFlags(true),
    async run(ctx) {
      const body = providerBody(ctx.values);
      for (const name of ['name', 'kind', IDENTITY[String(ctx.values.kind)] ?? 'bank-code']) {
        if (typeof ctx.values[name] !== 'string') throw new UsageError(`--${name} is required`);
      }
      printRecord(ctx.o, await ctx.admin.call('POST', '/providers', body));
      if (!ctx.o.json) ctx.o.err('The client secret is shown once: give it to the provider now.');
    },
  },
  ...clientCommands({
    noun: 'provider',
    collection: '/providers',
    columns: PROVIDER_COLUMNS,
    updateFlags: providerFlags(false),
    bodyOf: providerBody,
  }),
  {
    path: 'provider inbound',
    description: "the log of the provider's calls to the gateway",
    args: ['<providerId>'],
    flags: PAGE_FLAGS,
    async run(ctx) {
      const id = onePositional(ctx, 'provider id');
      const page = await ctx.admin.call<Page>(
        'GET',
        `/providers/${enc(id)}/inbound${query(ctx.values, { limit: 'limit', cursor: 'cursor' })}`,
      );
      printTable(ctx.o, page, ['at', 'path', 'httpStatus', 'responseCode', 'durationMs']);
    },
  },
];

// ── transactions ────────────────────────────────────────────────────────────────────────────

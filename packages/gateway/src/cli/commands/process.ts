import { writeFileSync } from 'node:fs';
import { type CommandSpec, enc, flag, readFlagFile, UsageError } from '../command-kit.ts';

export const processCommands: CommandSpec[] = [
  {
    path: 'serve',
    description: 'start the gateway (settings from SNAPGATE_* variables)',
    async run() {
      const { serve } = await import('../../main.ts');
      await serve();
      await new Promise(() => undefined); // runs until a signal stops it
    },
  },
  {
    path: 'certify',
    description:
      "webhook certification (sandbox): a merchant's callback endpoint must acknowledge true notifications and refuse forged ones; exit 1 if any fails",
    flags: [
      flag('--merchant <id>', 'the merchant to certify'),
      flag('--qris <referenceNos>', 'two unpaid QRIS referenceNos, comma-separated (default: its newest two)'),
      flag('--va <number>', 'an unpaid VA: its number or referenceNo (default: its newest)'),
      flag('--create', 'create the transactions itself (its system will not know those orders)'),
      flag('--junit <file>', 'also write a JUnit XML report to this file'),
    ],
    async run(ctx) {
      const { values, o } = ctx;
      const { formatJson, formatJunit, formatText } = await import('../../certification/index.ts');
      const merchantId = values.merchant;
      if (typeof merchantId !== 'string') throw new UsageError('--merchant is required');
      const body: Record<string, unknown> = {};
      if (typeof values.qris === 'string') {
        body.qris = values.qris
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
      }
      if (typeof values.va === 'string') body.va = values.va;
      if (values.create === true) body.create = true;
      const report = await ctx.admin.call<import('../../certification/index.ts').CertificationReport>(
        'POST',
        `/merchants/${enc(merchantId)}/certifications`,
        body,
      );
      if (typeof values.junit === 'string') writeFileSync(values.junit, formatJunit(report));
      o.out((o.json ? formatJson(report) : formatText(report)).trimEnd());
      if (!report.ok) throw new Error(`${report.failed} of ${report.total} scenarios failed`);
    },
  },
  {
    path: 'conformance',
    description:
      'check a SNAP server (this gateway or a sandbox) with positive and negative scenarios; exit 1 if any fails',
    flags: [
      flag('--client-key <key>', 'the client key to take tokens with (X-CLIENT-KEY)'),
      flag(
        '--client-secret <secret>',
        'the client secret: signs the token (HMAC-SHA256) and every payment call (HMAC-SHA512)',
      ),
      flag('--private-key <file>', 'a PEM private key: sign the token request SHA256withRSA instead'),
      flag('--partner-id <id>', 'X-PARTNER-ID of payment calls'),
      flag('--channel-id <id>', 'CHANNEL-ID of payment calls', '95221'),
      flag('--junit <file>', 'also write a JUnit XML report to this file'),
    ],
    async run({ values, url, o }) {
      const { formatJson, formatJunit, formatText, runConformance } = await import('../../conformance/index.ts');
      const clientKey = values['client-key'];
      const partnerId = values['partner-id'];
      const secret = values['client-secret'];
      const privateKeyPem = readFlagFile(values, 'private-key');
      if (typeof clientKey !== 'string' || typeof partnerId !== 'string') {
        throw new UsageError('--client-key and --partner-id are required');
      }
      if (typeof secret !== 'string' && privateKeyPem === undefined) {
        throw new UsageError('give --client-secret (and --private-key to sign the token request with RSA)');
      }
      const report = await runConformance({
        url,
        clientKey,
        partnerId,
        channelId: String(values['channel-id'] ?? '95221'),
        ...(typeof secret === 'string' ? { clientSecret: secret } : {}),
        ...(privateKeyPem ? { privateKeyPem } : {}),
      });
      if (typeof values.junit === 'string') writeFileSync(values.junit, formatJunit(report));
      o.out((o.json ? formatJson(report) : formatText(report)).trimEnd());
      if (!report.ok) throw new Error(`${report.failed} of ${report.total} scenarios failed`);
    },
  },
  {
    path: 'demo',
    description: 'a sandbox gateway and the example merchant, a QRIS order paid end to end',
    async run(ctx) {
      const { runDemo } = await import('../demo.ts');
      const code = await runDemo({ out: ctx.o.out, err: ctx.o.err });
      if (code !== 0) throw new Error('the demo order did not become PAID');
    },
  },
];

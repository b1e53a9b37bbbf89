// A payment method is one module (src/methods/), and forgetting one is a type error. This compiles
// with TypeScript's own checker the methods' registry and a `switch` ending in assertNever, as they
// are (no error), then the whole source tree with one more kind of transaction added to records.ts in
// memory, as the next method's first step would: the registry, the switch, and every place of the
// gateway that branches on the method fail, and no other. Nothing is written: the added kind and
// the switch exist only in the compiler's host.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const GATEWAY = join(ROOT, 'packages/gateway');
const RECORDS = join(GATEWAY, 'src/records/records.ts');
const REGISTRY = join(GATEWAY, 'src/methods/index.ts');
/** Where a page or a door branches on the method: never on disk. */
const SWITCH = join(GATEWAY, 'test/methods/switch-fixture.ts');
const SWITCH_TEXT = `import { assertNever } from '../../src/methods/index.ts';
import type { TransactionRecord } from '../../src/records/records.ts';

export function shown(t: TransactionRecord): string {
  switch (t.kind) {
    case 'qris':
      return t.details.qrContent;
    case 'va':
      return t.virtualAccountNo ?? '';
    case 'ewallet':
      return t.details.payOption;
    default:
      return assertNever(t, 'payment method');
  }
}
`;

/** What the next method's first step adds to records.ts: its transaction, in the union. */
function withNextKind(records: string): string {
  const union = 'export type TransactionRecord = QrisTransaction | VaTransaction | EwalletTransaction;';
  assert.ok(records.includes(union), 'records.ts declares the union this test widens');
  return records.replace(
    union,
    `export interface CardTransaction extends TransactionBase {
  kind: 'card';
  details: { payer?: Payer; additionalInfo?: Record<string, unknown>; fee?: FeeSnapshot };
}
export type TransactionRecord = QrisTransaction | VaTransaction | EwalletTransaction | CardTransaction;`,
  );
}

/**
 * Where the gateway branches on a transaction's method: each must fail to compile until a new
 * method has its case (a `switch` ending in assertNever, a table typed by every kind).
 */
const BRANCHES = [
  'src/checkout/checkout-page.ts',
  'src/checkout/checkout-routes.ts',
  'src/checkout/checkout-state.ts',
  'src/console/pages/sandbox.ts',
  'src/console/pages/transaction-actions.ts',
  'src/console/payment-actions.ts',
  'src/http/openapi/snap-document.ts',
  'src/methods/index.ts',
  'src/payments/payment-links.ts',
  'src/providers/reported-payment.ts',
  'src/providers/sandbox-rules.ts',
];

/** Every source file of the gateway. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** The type errors of `roots` (and what they import), as `file: message` lines. */
function typeErrors(patch: (records: string) => string, roots = [REGISTRY, SWITCH]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    },
  );
  assert.ok(config);
  const host = ts.createCompilerHost(config.options);
  const read = (file: string): string | undefined => {
    if (resolve(file) === SWITCH) return SWITCH_TEXT;
    if (resolve(file) === RECORDS) return patch(readFileSync(RECORDS, 'utf8'));
    return ts.sys.readFile(file);
  };
  host.readFile = read;
  host.fileExists = (file) => resolve(file) === SWITCH || ts.sys.fileExists(file);
  host.getSourceFile = (file, language) => {
    const text = read(file);
    return text === undefined ? undefined : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram({ rootNames: roots, options: config.options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? d.file.fileName.slice(GATEWAY.length + 1) : '-'}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
}

describe('a payment method without its module or its case', () => {
  it('compiles as the methods are now', () => {
    assert.deepEqual(
      typeErrors((records) => records),
      [],
    );
  });

  it('does not compile once another kind of transaction exists, wherever the method decides', () => {
    const errors = typeErrors(withNextKind, [...sources(join(GATEWAY, 'src')), SWITCH]);
    assert.ok(
      errors.some((e) => e.startsWith('src/methods/index.ts:') && e.includes('card')),
      `the registry names the missing method:\n${errors.join('\n')}`,
    );
    assert.ok(
      errors.some((e) => e.startsWith('test/methods/switch-fixture.ts:') && e.includes('CardTransaction')),
      `the switch names the missing case:\n${errors.join('\n')}`,
    );
    const failing = [...new Set(errors.map((e) => e.slice(0, e.indexOf(':'))))].sort();
    assert.deepEqual(failing, [...BRANCHES, 'test/methods/switch-fixture.ts'].sort(), errors.join('\n'));
  });
});

// The gateway's layering, checked from its own imports on every `npm test` (docs/architecture.md):
// - the domain folders never import the doors (http/, console/, cli/) or the composition root;
// - no import cycles between folders (a top-level file counts as a folder of its own);
// - only the composition root, cli/ and store/ itself reach a concrete store (sqlite/, postgres/);
// - console/ reaches data through the services of the domain folders, never store/ (not even its
//   types);
// - web/ (the page kit: HTML templates and their one escaper, amounts and times as people read them)
//   imports no other folder, so every page (the console, the checkout, the API docs page) can use it;
// - checkout/ (the payer's pages) never imports console/ (the operators'), nor store/: it reads through
//   payments/checkout-reads.ts;
// - records/ (the data every folder shares) imports no other folder;
// - methods/ (a payment method as one module) imports only records/; the rest of the code asks a
//   transaction's method instead of comparing its kind with a string, but for the guards listed
//   (a method's own code narrowing a transaction to its type);
// - no source file over 600 lines.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/**
 * Where a file still compares a transaction's kind with a string, and how often: each narrows a
 * transaction to its own method's type (a QRIS service reading its QR, a bank's door its VA, a
 * wallet's door its payment; a provider's kind is a kind too), or writes a method's own feature (a
 * VA's payment-shaped callback, an e-wallet's debit-notify body). A new method never takes these
 * branches by mistake: each asks for its own kind.
 */
const KIND_GUARDS: Record<string, number> = {
  'checkout/checkout-routes.ts': 2,
  'console/pages/sandbox.ts': 3,
  'console/transaction-views.ts': 1,
  'http/routes/qr-image.ts': 1,
  'payments/ewallet-service.ts': 1,
  'payments/notification-body.ts': 2,
  'payments/qris-service.ts': 2,
  'payments/va-service.ts': 1,
  'providers/inbound-service.ts': 4,
  'providers/sandbox-providers.ts': 3,
};

/** Folders that hold the gateway's domain: they are called by the doors and never call them. */
const DOMAIN = [
  'tokens',
  'merchants',
  'payments',
  'providers',
  'delivery',
  'certification',
  'conformance',
  'store',
  'secrets',
  'operators',
  'books',
  'payouts',
];
/** The doors and the composition root. */
const DOORS = ['http', 'console', 'cli', 'app.ts', 'main.ts', 'bootstrap.ts'];
/** Who may name a concrete store. */
const STORE_BUILDERS = ['main.ts', 'cli', 'store'];
/**
 * console/ files that may import store/: none. The console and the portal reach data through the
 * operator services (domain folders), and take the record types those re-export.
 */
const CONSOLE_STORE_EXCEPTIONS = new Set<string>([]);

interface Edge {
  from: string;
  to: string;
  isTypeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import and re-export of the source tree, as paths relative to src/. */
function importsOf(files: string[]): Edge[] {
  const edges: Edge[] = [];
  const pattern =
    /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[\w*\s{},]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(pattern)) {
      const spec = m[3] ?? m[4];
      if (spec === undefined) continue;
      const target = relative(SRC, resolve(dirname(file), spec));
      if (target.startsWith('..')) continue;
      edges.push({ from: relative(SRC, file), to: target, isTypeOnly: m[2] !== undefined });
    }
  }
  return edges;
}

/** A file's folder under src/, or the file itself when it stands at the top. */
const unitOf = (path: string) => path.split('/')[0] as string;

const edges = importsOf(sourceFiles(SRC));

describe('the layering rule, read from the imports', () => {
  it('reads the imports of the whole source tree', () => {
    assert.ok(edges.length > 300, `${edges.length} imports`);
    assert.ok(edges.some((e) => e.from === 'app.ts' && e.to === 'http/routes/payments.ts'));
    assert.ok(edges.some((e) => e.isTypeOnly));
  });

  it('keeps the domain folders free of http/, console/, cli/ and the composition root', () => {
    const wrong = edges.filter((e) => DOMAIN.includes(unitOf(e.from)) && DOORS.includes(unitOf(e.to)));
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
  });

  it('has no import cycle between folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges) {
      const [a, b] = [unitOf(e.from), unitOf(e.to)];
      if (a === b) continue;
      if (!graph.has(a)) graph.set(a, new Set());
      graph.get(a)?.add(b);
    }
    // Depth-first search; a node met again while on the path closes a cycle.
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const walk = (node: string, path: string[]) => {
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), node, next].join(' → '));
        else if (state.get(next) === undefined) walk(next, [...path, node]);
      }
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (state.get(node) === undefined) walk(node, []);
    assert.deepEqual(cycles, []);
  });

  it('lets only the composition root, cli/ and store/ name a concrete store', () => {
    const wrong = edges.filter(
      (e) => /^store\/(sqlite|postgres)\//.test(e.to) && !STORE_BUILDERS.includes(unitOf(e.from)),
    );
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
  });

  it('keeps web/, the page kit, free of every other folder', () => {
    const wrong = edges.filter((e) => unitOf(e.from) === 'web' && unitOf(e.to) !== 'web');
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
    assert.ok(edges.some((e) => e.from === 'checkout/checkout-page.ts' && e.to === 'web/html.ts'));
    assert.ok(edges.some((e) => e.from === 'http/openapi/docs-page.ts' && e.to === 'web/html.ts'));
  });

  it('keeps records/, the data every folder shares, free of every other folder', () => {
    const wrong = edges.filter((e) => unitOf(e.from) === 'records' && unitOf(e.to) !== 'records');
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
    assert.ok(edges.some((e) => e.from === 'payments/status-change.ts' && e.to === 'records/records.ts'));
  });

  it('keeps methods/, the payment methods, on records/ alone', () => {
    const wrong = edges.filter((e) => unitOf(e.from) === 'methods' && !['methods', 'records'].includes(unitOf(e.to)));
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
    assert.ok(edges.some((e) => e.from === 'delivery/callback-signing.ts' && e.to === 'methods/index.ts'));
  });

  it('asks the payment method instead of comparing kinds, but for the guards listed', () => {
    // `t.kind === 'qris'` and the like, outside a `switch` (which assertNever makes exhaustive).
    const comparison = /\bkind\s*[!=]==\s*'(?:qris|va|ewallet)'|'(?:qris|va|ewallet)'\s*[!=]==\s*\w*\.?kind\b/g;
    const found = new Map<string, number>();
    for (const f of sourceFiles(SRC)) {
      const file = relative(SRC, f).split(sep).join('/');
      if (file.startsWith('methods/')) continue;
      const n = readFileSync(f, 'utf8').match(comparison)?.length ?? 0;
      if (n > 0) found.set(file, n);
    }
    assert.deepEqual(
      Object.fromEntries([...found].sort()),
      KIND_GUARDS,
      'a new comparison of a kind: ask methodOf(kind) / methodOfTxn(t), or switch with assertNever',
    );
  });

  it("keeps checkout/, the payer's pages, off console/, the operators'", () => {
    const wrong = edges.filter((e) => unitOf(e.from) === 'checkout' && unitOf(e.to) === 'console');
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
  });

  it('lets checkout/ read only through its domain service, never the store', () => {
    const wrong = edges.filter((e) => unitOf(e.from) === 'checkout' && unitOf(e.to) === 'store');
    assert.deepEqual(
      wrong.map((e) => `${e.from} → ${e.to}`),
      [],
    );
    assert.ok(edges.some((e) => e.from === 'checkout/checkout-state.ts' && e.to === 'payments/checkout-reads.ts'));
  });

  it('keeps every source file under 600 lines (a longer one is usually two concepts)', () => {
    const long = sourceFiles(SRC)
      .map((f) => [relative(SRC, f), readFileSync(f, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 600);
    assert.deepEqual(long, []);
  });

  it('keeps console/ off store/, but for the files still listed, and keeps that list true', () => {
    const importing = new Set(
      edges.filter((e) => e.from.startsWith('console/') && unitOf(e.to) === 'store').map((e) => e.from),
    );
    assert.deepEqual(
      [...importing].filter((f) => !CONSOLE_STORE_EXCEPTIONS.has(f)),
      [],
      'a console file imports store/: reach the data through a service',
    );
    assert.deepEqual(
      [...CONSOLE_STORE_EXCEPTIONS].filter((f) => !importing.has(f)),
      [],
      'a listed console file no longer imports store/: take it off CONSOLE_STORE_EXCEPTIONS',
    );
  });
});

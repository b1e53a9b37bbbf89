// The gateway's two OpenAPI documents as it serves them, in each mode, for a fixed public URL, and
// their fingerprint: a SHA-256 of each part (each operation of each path, each component, each
// webhook, each other top-level field) over its JSON with keys sorted, and of the order of the
// paths and of each path's methods. test/http/openapi-parts.json
// holds the fingerprint of the documents as they are meant to be; test/http/openapi-parts.test.ts
// compares, naming every part that changed, and `npm run openapi:parts` writes it again after a
// change to the documents that is meant.
import { createHash } from 'node:crypto';
import { startGateway } from './gateway.ts';

/** The public URL every fingerprint is taken with (the documents name it). */
const PUBLIC_URL = 'https://pay.example.test';

/** Each document of each mode, as served, by name (`snap.sandbox`, `admin.production`, …). */
export async function servedDocuments(): Promise<Record<string, Record<string, unknown>>> {
  const documents: Record<string, Record<string, unknown>> = {};
  for (const mode of ['sandbox', 'production'] as const) {
    const gw = await startGateway({ env: { SNAPGATE_MODE: mode, SNAPGATE_PUBLIC_URL: PUBLIC_URL } });
    try {
      for (const api of ['snap', 'admin'] as const) {
        const res = await fetch(`${gw.url}/openapi/${api}.json`);
        if (res.status !== 200) throw new Error(`GET /openapi/${api}.json answered ${res.status}`);
        documents[`${api}.${mode}`] = (await res.json()) as Record<string, unknown>;
      }
    } finally {
      await gw.close();
    }
  }
  return documents;
}

/** JSON with every object's keys sorted: the same for documents that say the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (value: unknown) => createHash('sha256').update(canonical(value)).digest('hex');

/** Where a part of a document is split further: by path and method, by component, by webhook. */
const SPLIT: Record<string, number> = { paths: 2, webhooks: 2, components: 2 };

/** Each part of a document and the SHA-256 of what it says: `paths /admin/v1/merchants post` → hash. */
export function fingerprint(document: Record<string, unknown>): Record<string, string> {
  const parts: Record<string, string> = {};
  const walk = (value: unknown, name: string[], depth: number) => {
    if (depth > 0 && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, [...name, k], depth - 1);
    } else parts[name.join(' ')] = sha256(value);
  };
  for (const [key, value] of Object.entries(document)) walk(value, [key], SPLIT[key] ?? 0);
  // The order the paths are listed in, and each path's methods (the docs page shows them so).
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  parts['order of paths and methods'] = sha256(Object.entries(paths).map(([path, item]) => [path, Object.keys(item)]));
  return Object.fromEntries(Object.entries(parts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

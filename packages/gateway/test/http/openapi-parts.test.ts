// The OpenAPI documents say what they said: every part of each document (each operation of each
// path, each component, each webhook, each other top-level field), in both modes, against the
// fingerprint in openapi-parts.json. A change to the documents that is meant is written there with
// `npm run openapi:parts -w @snapgate/gateway`, and the diff names the parts it changed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fingerprint, servedDocuments } from '../helpers/openapi-documents.ts';

const expected = JSON.parse(readFileSync(new URL('./openapi-parts.json', import.meta.url), 'utf8')) as Record<
  string,
  Record<string, string>
>;

describe('the OpenAPI documents, part by part', { timeout: 60_000 }, () => {
  it('say what openapi-parts.json says they say, in sandbox and production mode', async () => {
    const documents = await servedDocuments();
    assert.deepEqual(Object.keys(documents).sort(), Object.keys(expected).sort());
    const changed: string[] = [];
    for (const [name, document] of Object.entries(documents)) {
      const now = fingerprint(document);
      const then = expected[name] ?? {};
      for (const part of new Set([...Object.keys(now), ...Object.keys(then)])) {
        if (now[part] !== then[part]) {
          changed.push(
            `${name}: ${part} ${then[part] === undefined ? 'added' : now[part] === undefined ? 'gone' : 'changed'}`,
          );
        }
      }
    }
    assert.deepEqual(
      changed,
      [],
      'if this change to the documents is meant: npm run openapi:parts -w @snapgate/gateway',
    );
    assert.ok(Object.keys(expected['admin.sandbox'] ?? {}).some((p) => p.startsWith('paths /admin/v1/merchants ')));
  });
});

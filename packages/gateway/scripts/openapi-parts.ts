// Writes test/http/openapi-parts.json, the fingerprint of the OpenAPI documents the gateway serves
// now (test/helpers/openapi-documents.ts). Run it when a change to the documents is meant:
//   npm run openapi:parts -w @snapgate/gateway
import { writeFileSync } from 'node:fs';
import { fingerprint, servedDocuments } from '../test/helpers/openapi-documents.ts';

const documents = await servedDocuments();
const parts = Object.fromEntries(Object.entries(documents).map(([name, doc]) => [name, fingerprint(doc)]));
writeFileSync(new URL('../test/http/openapi-parts.json', import.meta.url), `${JSON.stringify(parts, null, 2)}\n`);
const count = Object.values(parts).reduce((n, p) => n + Object.keys(p).length, 0);
process.stdout.write(`wrote test/http/openapi-parts.json: ${count} parts of ${Object.keys(parts).length} documents\n`);

#!/usr/bin/env node
// The snapgate CLI. In a checkout with its development dependencies it runs the TypeScript sources
// through tsx, so it always runs what is checked out. Installed for production (`npm run build -w
// @snapgate/gateway`, then `npm prune --omit=dev`) there is no tsx: it runs the compiled
// dist/cli/main.js, like the gateway's own `node dist/main.js`.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** tsx's loader API, or undefined when the development dependencies are not installed. */
async function tsxIfInstalled() {
  try {
    return await import('tsx/esm/api');
  } catch (e) {
    if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes("'tsx'")) return undefined;
    throw e;
  }
}

async function loadCli() {
  const tsx = await tsxIfInstalled();
  if (tsx) {
    tsx.register();
    return import('../src/cli/main.ts');
  }
  const compiled = new URL('../dist/cli/main.js', import.meta.url);
  if (!existsSync(fileURLToPath(compiled))) {
    process.stderr.write(
      'snapgate: the CLI is not built and tsx is not installed: run `npm run build -w @snapgate/gateway` ' +
        '(or `npm install` in a checkout, for the development dependencies)\n',
    );
    process.exit(1);
  }
  return import(compiled.href);
}

const { main } = await loadCli();
process.exitCode = await main(process.argv.slice(2));

import { main } from '../../src/cli/main.ts';
import { ADMIN_TOKEN } from './gateway.ts';

/** Runs the snapgate CLI in-process against a test gateway, collecting what it prints. */
export async function runCli(gw: { url: string }, ...args: string[]) {
  return runCliWithEnv({ SNAPGATE_URL: gw.url, SNAPGATE_ADMIN_TOKEN: ADMIN_TOKEN }, ...args);
}

/** Runs the snapgate CLI in-process with exactly these environment variables. */
export async function runCliWithEnv(env: Record<string, string | undefined>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (s) => out.push(s), err: (s) => err.push(s), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

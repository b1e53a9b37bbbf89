import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const GATEWAY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts `src/main.ts` as a real process and waits until it prints its address. */
export async function spawnGateway(env: Record<string, string>, timeoutMs = 20_000): Promise<GatewayProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: GATEWAY_ROOT,
    env: { PATH: process.env.PATH ?? '', SNAPGATE_PORT: '0', SNAPGATE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c) => {
    out += String(c);
  });
  child.stderr?.on('data', (c) => {
    err += String(c);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  while (!/gateway on (https?:\/\/\S+)/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start: ${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = (/gateway on (https?:\/\/\S+)/.exec(out) as RegExpExecArray)[1] as string;
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

/** The admin API of gateway processes started with this admin token. */
export function adminApiOf(adminToken: string) {
  return async (gw: { url: string }, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gw.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

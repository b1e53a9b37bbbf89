import { Agent } from 'undici';
// The CLI's only way into a running gateway: its admin API.
export class AdminApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    const b = body as { title?: string; detail?: string; errors?: string[]; responseCode?: string } | undefined;
    const errors = b?.errors?.length ? `\n  - ${b.errors.join('\n  - ')}` : '';
    const code = b?.responseCode ? ` (${b.responseCode})` : '';
    super(
      `${status} ${b?.title ?? 'error'}${b?.detail && b.detail !== b.title ? `: ${b.detail}` : ''}${code}${errors}`,
    );
    this.name = 'AdminApiError';
    this.status = status;
    this.body = body;
  }
}

export interface AdminClient {
  /** A JSON body (when given); the answer parsed as JSON, or its text when it is not JSON. */
  call<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** A body sent as it is, of this content type (a provider's CSV report). */
  send<T = unknown>(method: string, path: string, text: string, contentType: string): Promise<T>;
}

/**
 * The CLI's client of a gateway's admin API. `ca`: the CAs to trust instead of Node's alone
 * (`--ca-file`, for a gateway with a private or self-signed certificate).
 */
export function createAdminClient(baseUrl: string, adminToken: string | undefined, ca?: string[]): AdminClient {
  const dispatcher = ca === undefined ? undefined : new Agent({ connect: { ca } });
  async function exchange(method: string, path: string, body: string | undefined, contentType: string) {
    let res: Response;
    try {
      res = await fetch(`${baseUrl}/admin/v1${path}`, {
        ...(dispatcher ? ({ dispatcher } as object) : {}),
        method,
        headers: {
          ...(adminToken ? { authorization: `Bearer ${adminToken}` } : {}),
          ...(body === undefined ? {} : { 'content-type': contentType }),
        },
        body,
      });
    } catch (e) {
      throw new Error(`cannot reach the gateway at ${baseUrl}: ${(e as Error).cause ?? (e as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new AdminApiError(res.status, parsed);
    return parsed as never;
  }
  return {
    call: (method, path, body) =>
      exchange(method, path, body === undefined ? undefined : JSON.stringify(body), 'application/json'),
    send: (method, path, text, contentType) => exchange(method, path, text, contentType),
  };
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { merchantView } from '../merchants/merchant-service.ts';
import { providerView } from '../providers/provider-service.ts';
import type { Store } from '../store/store.ts';
import { adminCallerOf } from './admin-auth.ts';
import { rawBodyOf } from './raw-body.ts';

/** Fields whose values never reach the audit log. */
const SECRET_FIELDS = new Set(['clientSecret', 'previousSecret', 'privateKeyPem', 'key', 'token', 'accessToken']);

/** A copy of a JSON value with every secret field's value replaced by `<redacted>`. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    out[k] = SECRET_FIELDS.has(k) && v !== null ? '<redacted>' : redactSecrets(v);
  return out;
}

const json = (text: string | undefined): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const stored = (v: unknown) => (v === undefined ? null : JSON.stringify(redactSecrets(v)));

const BEFORE = Symbol('snapgate.auditBefore');
type WithBefore = FastifyRequest & { [BEFORE]?: unknown };

const paramsOf = (request: FastifyRequest) => (request.params ?? {}) as Record<string, string | undefined>;

/**
 * Every state-changing admin action (any method but GET) by an authenticated key goes to the
 * append-only audit log before its answer leaves: who (the key's name), from which address, what
 * (the route, the request, the resource before and the answer after, secrets redacted), when, and
 * how it ended.
 */
export function registerAudit(admin: FastifyInstance, deps: { store: Store; clock: Clock }): void {
  const { store } = deps;
  /** The resource a route changes, as the admin API shows it, before the change. */
  async function before(request: FastifyRequest): Promise<unknown> {
    const route = request.routeOptions.url ?? '';
    const id = paramsOf(request).id;
    if (id === undefined) return undefined;
    if (route.startsWith('/admin/v1/merchants/:id')) {
      const m = await store.findMerchantById(id);
      return m && merchantView(m);
    }
    if (route.startsWith('/admin/v1/providers/:id')) {
      const p = await store.findProviderById(id);
      return p && providerView(p);
    }
    return undefined;
  }

  admin.addHook('preHandler', async (request) => {
    if (request.method === 'GET' || request.method === 'HEAD' || !adminCallerOf(request)) return;
    (request as WithBefore)[BEFORE] = await before(request);
  });

  admin.addHook('onSend', async (request, reply, payload) => {
    const caller = adminCallerOf(request);
    if (request.method === 'GET' || request.method === 'HEAD' || !caller) return payload;
    const after = json(typeof payload === 'string' ? payload : undefined);
    const params = paramsOf(request);
    const target =
      params.id ??
      params.referenceNo ??
      params.virtualAccountNo ??
      (typeof (after as { id?: unknown } | undefined)?.id === 'string' ? (after as { id: string }).id : null);
    await store.appendAudit({
      at: deps.clock.now(),
      keyId: caller.id,
      keyName: caller.name,
      address: request.ip,
      method: request.method,
      path: request.url,
      action: `${request.method} ${request.routeOptions.url ?? request.url}`,
      target,
      httpStatus: reply.statusCode,
      request: stored(json(rawBodyOf(request).toString('utf8'))),
      before: stored((request as WithBefore)[BEFORE]),
      after: stored(after),
    });
    return payload;
  });
}

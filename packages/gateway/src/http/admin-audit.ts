import { MAX_JSON_DEPTH, parseJsonBody } from '@snapgate/snap';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '../logger.ts';
import { type MerchantService, merchantView } from '../merchants/merchant-service.ts';
import type { AuditLog } from '../operators/audit-log.ts';
import { operatorCaller } from '../operators/caller.ts';
import { type ProviderService, providerView } from '../providers/provider-service.ts';
import { isBadText, storableText } from '../text.ts';
import { adminCallerOf } from './admin-auth.ts';
import { BODY_LIMIT_BYTES, rawBodyOf } from './raw-body.ts';

/**
 * Field names whose values never reach the audit log, in any spelling (`clientSecret`,
 * `client_secret`, `privateKeyPem`, `password`, an admin `key`): redaction goes by what a name
 * could mean, not only by the names the API defines, because refused requests are recorded too.
 */
const SECRET_FIELD = /secret|private|password|passphrase|token|^key$|apikey|api_key|credential/i;
/** A URL that carries credentials: `https://user:password@host`. */
const URL_WITH_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*@/i;

/** A private key, wherever it was pasted (a careless `publicKeyPem`). */
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Where redaction stops walking: no admin body, view or answer is this deep. */
const MAX_REDACTED_DEPTH = MAX_JSON_DEPTH;

/** A copy of a JSON value with every secret-looking value replaced by `<redacted>`. */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return URL_WITH_CREDENTIALS.test(value) || PRIVATE_KEY.test(value) ? '<redacted>' : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  // Deeper than anything the gateway accepts or answers: kept out, not walked (no stack to spare).
  if (depth >= MAX_REDACTED_DEPTH) return '<too deep>';
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    // A URL field (callbackTokenUrl) names where, not a secret; its value is judged as a URL.
    out[k] = SECRET_FIELD.test(k) && !/url$/i.test(k) && v !== null ? '<redacted>' : redactSecrets(v, depth + 1);
  }
  return out;
}

/** A body as the audit log keeps it: parsed JSON (at most MAX_JSON_DEPTH deep), or undefined. */
const json = (raw: Uint8Array | undefined): unknown => (raw === undefined ? undefined : parseJsonBody(raw));
/** A value as the audit log stores it: JSON with every secret redacted, or null. */
export const auditValue = (v: unknown) => (v === undefined ? null : JSON.stringify(redactSecrets(v)));

/**
 * The request as the audit log keeps it. A body over 64 KiB (a provider's report for reconciliation)
 * is named by its size only; a body that is not JSON (a CSV report) is null.
 */
function auditedRequest(raw: Buffer): string | null {
  if (raw.length > BODY_LIMIT_BYTES) return auditValue({ omitted: 'a body over 64 KiB', bytes: raw.length });
  return auditValue(json(raw));
}

/** An answer with the fields a route names as credentials replaced by `<redacted>`. */
function withRedacted(answer: unknown, fields: readonly string[] | undefined): unknown {
  if (fields === undefined || typeof answer !== 'object' || answer === null || Array.isArray(answer)) return answer;
  const out: Record<string, unknown> = { ...answer };
  for (const f of fields) if (f in out) out[f] = '<redacted>';
  return out;
}

const BEFORE = Symbol('snapgate.auditBefore');
const AUDIT_ID = Symbol('snapgate.auditId');
/** The row written before the handler ran: its id, and the target it already named. */
type WithBefore = FastifyRequest & { [BEFORE]?: unknown; [AUDIT_ID]?: { id: number; target: string | null } };

const paramsOf = (request: FastifyRequest) => (request.params ?? {}) as Record<string, string | undefined>;

/**
 * Every state-changing admin action (any method but GET) by an authenticated key goes to the
 * append-only audit log before its answer leaves: who (the key's name), from which address, what
 * (the route, the request, the resource before and the answer after, secrets redacted), when, and
 * how it ended.
 */
export interface AuditDeps {
  audit: AuditLog;
  merchants: Pick<MerchantService, 'find'>;
  providers: Pick<ProviderService, 'find'>;
  logger: Logger;
}

export function registerAudit(admin: FastifyInstance, deps: AuditDeps): void {
  /** The resource a route changes, as the admin API shows it, before the change. */
  async function before(request: FastifyRequest): Promise<unknown> {
    const route = request.routeOptions.url ?? '';
    const id = paramsOf(request).id;
    if (id === undefined) return undefined;
    if (route.startsWith('/admin/v1/merchants/:id')) {
      const m = await deps.merchants.find(id);
      return m && merchantView(m);
    }
    if (route.startsWith('/admin/v1/providers/:id')) {
      const p = await deps.providers.find(id);
      return p && providerView(p);
    }
    return undefined;
  }

  /** What the row of this request says before the answer: who, from where, what, the resource before. */
  function intentOf(request: FastifyRequest) {
    const params = paramsOf(request);
    // A path refused for its text is recorded without it: the store could not even hold it.
    const clean = (v: string | undefined) => (v === undefined || isBadText(v) ? undefined : v);
    return {
      address: request.ip,
      method: request.method,
      path: storableText(request.url),
      action: `${request.method} ${request.routeOptions.url ?? request.url}`,
      target: clean(params.id) ?? clean(params.referenceNo) ?? clean(params.virtualAccountNo) ?? null,
      request: auditedRequest(rawBodyOf(request)),
      before: auditValue((request as WithBefore)[BEFORE]),
    };
  }

  // The row is written before the handler runs: the action cannot happen without it. If it cannot
  // be written, the action does not run (500).
  admin.addHook('preHandler', async (request) => {
    const caller = adminCallerOf(request);
    if (request.method === 'GET' || request.method === 'HEAD' || !caller) return;
    (request as WithBefore)[BEFORE] = await before(request);
    const intent = intentOf(request);
    const id = await deps.audit.begin(operatorCaller(caller), intent);
    (request as WithBefore)[AUDIT_ID] = { id, target: intent.target };
  });

  admin.addHook('onSend', async (request, reply, payload) => {
    const caller = adminCallerOf(request);
    if (request.method === 'GET' || request.method === 'HEAD' || !caller) return payload;
    const answer = json(typeof payload === 'string' ? Buffer.from(payload) : undefined);
    const after = auditValue(withRedacted(answer, request.routeOptions.config?.auditRedacts));
    const createdId = (answer as { id?: unknown } | undefined)?.id;
    const written = (request as WithBefore)[AUDIT_ID];
    try {
      if (written !== undefined) {
        await deps.audit.finish(written.id, {
          httpStatus: reply.statusCode,
          target: written.target === null && typeof createdId === 'string' ? createdId : null,
          after,
        });
      } else {
        // Refused before any handler ran (its body, its path): recorded whole, as answered.
        const intent = intentOf(request);
        const target = intent.target ?? (typeof createdId === 'string' ? createdId : null);
        await deps.audit.record(operatorCaller(caller), { ...intent, target, httpStatus: reply.statusCode, after });
      }
    } catch (e) {
      deps.logger.error({ reqId: request.id, err: e, route: request.routeOptions.url }, 'audit log write failed');
      // The action's row was written before it ran; only how it ended is missing: the answer stands.
      if (written !== undefined) return payload;
      // Not answered as done when it was not recorded; and never with the database's own words.
      reply.code(500).type('application/problem+json');
      return JSON.stringify({
        type: 'about:blank',
        title: 'Internal Server Error',
        status: 500,
        detail: 'the action could not be written to the audit log',
      });
    }
    return payload;
  });
}

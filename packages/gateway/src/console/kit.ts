import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain-error.ts';
import { auditValue, redactSecrets } from '../http/admin-audit.ts';
import { ProblemError } from '../http/problem.ts';
import { headerValue, rawBodyOf } from '../http/raw-body.ts';
import type { AuditLog } from '../operators/audit-log.ts';
import type { Caller } from '../operators/caller.ts';
import type { MacChecker } from '../operators/sessions.ts';
import { firstBadTextField } from '../text.ts';
import { type Html, html } from '../web/html.ts';
import { leaveNotice } from './session.ts';
import { type Flash, layout } from './views.ts';

/** Sent with every console answer: no inline script, nothing from elsewhere, never framed. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export function securityHeaders(scope: FastifyInstance): void {
  scope.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    if (!reply.getHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}

/** An error shown as a page, with where to go back to. */
export class ConsoleError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: string[] = [],
  ) {
    super(message);
    this.name = 'ConsoleError';
  }
}

export function asConsoleError(e: unknown): ConsoleError | undefined {
  if (e instanceof ConsoleError) return e;
  if (e instanceof ProblemError) return new ConsoleError(e.status, e.message, e.errors ?? []);
  if (e instanceof DomainError) {
    // `forbidden`: this caller may not, whatever its scope (the key that asked for a payout deciding it).
    const status = e.kind === 'invalid' ? 400 : e.kind === 'not-found' ? 404 : e.kind === 'forbidden' ? 403 : 409;
    return new ConsoleError(status, e.message, e.problems ?? []);
  }
  const status = (e as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new ConsoleError(status === 413 ? 413 : 400, 'the request was refused');
  return undefined;
}

/** A download: `content-disposition: attachment` with a file name. */
/** A download: text at once, or text as it is made (a report read a page at a time). */
export function sendAttachment(
  reply: FastifyReply,
  type: string,
  filename: string,
  body: string | AsyncIterable<string>,
): FastifyReply {
  return reply
    .code(200)
    .type(type)
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(typeof body === 'string' ? body : Readable.from(body));
}

export function sendHtml(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

const ERROR_TITLES: Record<number, string> = {
  400: 'Not accepted',
  401: 'Please log in',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Conflict',
  413: 'Too large',
  415: 'Not accepted',
};

export const errorTitle = (status: number) => ERROR_TITLES[status] ?? 'Something went wrong';

/** What an error page says, with a way back (`data-back`: the previous page, when there is one). */
export function errorBody(e: ConsoleError, back: string): Html {
  return html`<section class="card" role="alert"><h1>${errorTitle(e.status)}</h1>
<p>${e.message}</p>
${e.problems.length ? html`<ul>${e.problems.map((p) => html`<li>${p}</li>`)}</ul>` : ''}
<p><a class="button" href="${back}" data-back>Go back</a></p></section>`;
}

/** An error page without the menu (nobody is signed in, or the session is not known). */
export function errorPage(e: ConsoleError, back: string): string {
  return layout({ title: e.status >= 500 ? 'Error' : errorTitle(e.status), area: 'none' }, errorBody(e, back));
}

/**
 * The console's answer to a failure: a refusal (4xx) says why, anything else is logged and answered
 * 500. `framed` puts it in the signed-in frame (the menu stays) when the request has a session.
 */
export function sendError(
  error: unknown,
  request: FastifyRequest,
  reply: FastifyReply,
  framed?: (title: string, body: Html, status: number) => FastifyReply | undefined,
): FastifyReply {
  let e = asConsoleError(error);
  if (!e) {
    request.log.error({ err: error }, 'console request failed');
    e = new ConsoleError(500, 'the gateway failed to answer; see its log');
  }
  const home = ['/console/portal', '/merchant'].find((area) => request.url.startsWith(area)) ?? '/console';
  const body = errorBody(e, home);
  return (
    framed?.(e.status >= 500 ? 'Error' : errorTitle(e.status), body, e.status) ??
    sendHtml(reply, errorPage(e, home), e.status)
  );
}

/** An urlencoded form body, every field a string (the last of repeated names wins). */
export function formOf(request: FastifyRequest): Record<string, string> {
  const type = headerValue(request, 'content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new ConsoleError(415, 'forms are sent as application/x-www-form-urlencoded');
  }
  const fields: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(rawBodyOf(request).toString('utf8'))) fields[k] = v;
  const bad = firstBadTextField(fields);
  if (bad !== undefined) throw new ConsoleError(400, `the field ${bad || 'form'} holds a control character`);
  return fields;
}

/**
 * A state-changing request must come from a console page: an Origin (when the browser sends one)
 * of this very host, and the CSRF token of the session (`csrfText`: what it is the MAC of).
 */
export function checkCsrf(
  request: FastifyRequest,
  signer: Pick<MacChecker, 'checkMac'>,
  csrfText: string,
  fields: Record<string, string>,
): void {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null' && origin !== `${request.protocol}://${request.host}`) {
    throw new ConsoleError(403, 'this request came from another site');
  }
  if (!signer.checkMac(csrfText, fields._csrf)) {
    throw new ConsoleError(403, 'the form is missing its security token (or it expired): reload the page and retry');
  }
}

/** Fields as the audit log keeps them: the CSRF token dropped, secrets redacted. */
export const auditFields = (fields: Record<string, string>) => {
  const { _csrf: _, ...rest } = fields;
  return JSON.stringify(redactSecrets(rest));
};

const AUDIT_ID = Symbol('snapgate.consoleAuditId');
type WithAudit = FastifyRequest & { [AUDIT_ID]?: { id: number; action: string; finished: boolean } };

/**
 * A console or portal form about to act, recorded before it does (no action without its audit row;
 * if the row cannot be written, the action does not run): who, from where, the route and the fields.
 * `audit` then adds what the action was and how it ended, `refuseTo` that it was refused and
 * why; `finishAudit` closes a form that ended without either (an error page).
 */
export async function beginAudit(log: AuditLog, request: FastifyRequest, caller: Caller, door: string): Promise<void> {
  const action = `${door}: ${request.method} ${request.routeOptions.url ?? request.url}`;
  const id = await log.begin(caller, {
    address: request.ip,
    method: request.method,
    path: request.url,
    action,
    target: null,
    request: auditFields(formOf(request)),
    before: null,
  });
  (request as WithAudit)[AUDIT_ID] = { id, action, finished: false };
}

/** The word an audit row gets after its action when the form did not act. */
const ENDED: Array<[number, string]> = [
  [500, 'failed'],
  [400, 'refused'],
];
const endedAs = (action: string, httpStatus: number) => {
  const word = ENDED.find(([from]) => httpStatus >= from)?.[1];
  return word ? `${action} (${word})` : action;
};

/**
 * How a form `beginAudit` recorded ended, when neither `audit` nor `refuseTo` said: its
 * answer's status (an error page: 4xx refused, 5xx failed, said after the route).
 */
async function finishAudit(log: AuditLog, request: FastifyRequest, httpStatus: number): Promise<void> {
  const intent = (request as WithAudit)[AUDIT_ID];
  if (!intent || intent.finished) return;
  intent.finished = true;
  const action = httpStatus >= 400 ? endedAs(intent.action, httpStatus) : null;
  await log.finish(intent.id, { httpStatus, target: null, action, after: null });
}

/**
 * A form refused without acting: 400 for what was typed, 409 for the state of what it is about,
 * 403 for who asks (the key that asked for a payout may not decide it).
 */
export interface Refusal {
  status: 400 | 403 | 409;
  /** What the form would have done, as its audit row names it when it acts (`console: …`). */
  action: string;
  /** What it was about, when known. */
  target?: string | null;
}

/**
 * A form refused without acting and shown again with what was typed (400), or refused for the
 * state of what it is about (409): its audit row names the action `(refused)` and says why.
 */
export function auditRefusedForm(
  log: AuditLog,
  request: FastifyRequest,
  caller: Caller,
  refusal: Refusal,
  problems: readonly string[],
): Promise<void> {
  return audit(log, request, caller, {
    action: endedAs(refusal.action, refusal.status),
    target: refusal.target ?? null,
    httpStatus: refusal.status,
    after: { refused: problems },
  });
}

/** A schema's issues as the admin API lists them (`field: message`); `label` renames a field. */
export function issuesOf(
  issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>,
  label: (path: string) => string = (path) => path,
): string[] {
  return issues.map((i) => {
    const path = i.path.map(String).join('.');
    return path ? `${label(path)}: ${i.message}` : i.message;
  });
}

/**
 * Why a service refused a form (invalid input 400, a state or a clash 409), as the form shows it
 * again; anything else is no form problem and is thrown on.
 */
export function serviceRefusal(e: unknown): { status: 400 | 409; problems: string[] } {
  const r = asConsoleError(e);
  if (!r || (r.status !== 400 && r.status !== 409)) throw e;
  return { status: r.status, problems: r.problems.length > 0 ? r.problems : [r.message] };
}

/**
 * A refused form, alike in the console and the portal (Post/Redirect/Get): recorded in the audit log
 * with the status the refusal stands for (the answer itself is a redirect), the action marked
 * `(refused)`, and why, in the words the page shows; then back to the page at `path` (no query),
 * which shows `why` once, instead of an error page a reload would post again.
 */
export async function refuseTo(
  deps: { audit: AuditLog; sessions: { mac(text: string): string } },
  request: FastifyRequest,
  reply: FastifyReply,
  caller: Caller,
  path: string,
  why: string,
  refusal: Refusal,
): Promise<FastifyReply> {
  await audit(deps.audit, request, caller, {
    action: endedAs(refusal.action, refusal.status),
    target: refusal.target ?? null,
    httpStatus: refusal.status,
    after: { refused: why },
  });
  leaveNotice(request, reply, deps.sessions, path, { kind: 'error', text: why });
  return reply.redirect(path, 303);
}

/**
 * A state-changing console or portal request, alike: it must carry its session's CSRF token, and is
 * written to the audit log before it acts (`beginAudit`). GET and HEAD pass.
 */
export async function acceptForm(
  request: FastifyRequest,
  deps: { audit: AuditLog; sessions: MacChecker },
  csrfText: string,
  caller: Caller,
  door: string,
): Promise<void> {
  if (request.method === 'GET' || request.method === 'HEAD') return;
  checkCsrf(request, deps.sessions, csrfText, formOf(request));
  await beginAudit(deps.audit, request, caller, door);
}

/** Closes the audit row of a form that ended without saying how (an error page): its answer's status. */
export function closeFormAudits(scope: FastifyInstance, log: AuditLog): void {
  scope.addHook('onSend', async (request, reply, payload) => {
    await finishAudit(log, request, reply.statusCode).catch(() => undefined);
    return payload;
  });
}

/** Records a console or portal action in the audit log, with the request it came in. */
export async function audit(
  log: AuditLog,
  request: FastifyRequest,
  caller: Caller,
  entry: {
    action: string;
    target: string | null;
    httpStatus: number;
    fields?: Record<string, string>;
    before?: unknown;
    after?: unknown;
  },
): Promise<void> {
  const intent = (request as WithAudit)[AUDIT_ID];
  if (intent && !intent.finished) {
    intent.finished = true;
    await log.finish(intent.id, {
      httpStatus: entry.httpStatus,
      target: entry.target,
      action: entry.action,
      before: auditValue(entry.before),
      after: auditValue(entry.after),
    });
    return;
  }
  await log.record(caller, {
    address: request.ip,
    method: request.method,
    path: request.url,
    action: entry.action,
    target: entry.target,
    httpStatus: entry.httpStatus,
    request: entry.fields ? auditFields(entry.fields) : null,
    before: auditValue(entry.before),
    after: auditValue(entry.after),
  });
}

const FLASH: Record<string, string> = {
  replayed: 'The notification is queued for delivery again.',
  saved: 'Saved.',
  disabled: 'The merchant is disabled: its tokens stopped working.',
  enabled: 'The merchant is active again.',
  paid: 'The sandbox acquirer or bank reported the payment.',
  pending: 'The pending status was notified again.',
  failed: 'The sandbox acquirer reported a failed payment.',
  'test-sent': 'A test callback is on its way: your latest notification is being delivered again.',
  'paid-out': 'The settlement is recorded as paid out.',
  reconciled: 'The report was reconciled: every line is matched or listed as a problem below.',
  applied: 'The payment was applied: the transaction is paid (00) and its merchant is notified.',
};

/** A fixed message by its code (never text from the URL). */
export function flashOf(query: unknown): Flash | undefined {
  const code = (query as Record<string, unknown> | undefined)?.ok;
  if (typeof code !== 'string') return undefined;
  const text = FLASH[code];
  return text ? { kind: 'ok', text } : undefined;
}

/** Where this process itself answers (the sandbox bank and acquirer call it there). */
export function selfUrlOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new TypeError('the gateway is not listening');
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** Rows on a page of a console list. */
export const PAGE = 50;

/** A form value trimmed, or undefined when it is empty. */
export const blank = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

/** A query value as a string (at most `max` characters: longer is cut), or undefined. */
export const q = (query: unknown, name: string, max = 200): string | undefined => {
  const v = (query as Record<string, unknown> | undefined)?.[name];
  return typeof v === 'string' && v !== '' ? v.slice(0, max) : undefined;
};

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { adminKeyCreateSchema } from '../../http/routes/admin-access.ts';
import { type AdminKeyRecord, adminKeyView } from '../../operators/admin-keys.ts';
import { html } from '../../web/html.ts';
import { ACCESS_HREF, accessTabs, createdKeyPage, keyHref, keyTable, newKeyForm } from '../access-views.ts';
import { asConsoleError, blank, ConsoleError, formOf, issuesOf } from '../kit.ts';
import { secretField } from '../merchant-views.ts';
import { config, type OperatorPages } from '../operator.ts';
import { leaveNotice, OPERATOR_COOKIE, setCookie } from '../session.ts';
import { formProblems } from '../views.ts';
import { auditPages } from './access-audit.ts';
import { masterKeyPages } from './access-master-key.ts';

const LIST = '/admin/v1/admin-keys';
const REVOKE = '/admin/v1/admin-keys/:id/revoke';
const MASTER_KEYS = '/admin/v1/keys';

/**
 * Access: the admin keys (list, create with the key shown once, revoke), the audit log and the
 * master keys, each gated by the scope of its admin API route and calling the same services.
 */
export function accessPages(op: FastifyInstance, pages: OperatorPages): void {
  const { adminKeys } = pages.deps;

  /** The admin keys and, for a key that may create one, the form (as a refused one was typed). */
  async function keysPage(
    request: FastifyRequest,
    reply: FastifyReply,
    refused?: { typed: Record<string, string>; problems: string[] },
    status = 200,
  ) {
    pages.need(request, 'GET', LIST);
    const { key, csrf } = pages.operatorOf(request);
    const keys = await adminKeys.list();
    const canCreate = pages.can(request, 'POST', LIST);
    return pages.page(
      request,
      reply,
      'Admin keys',
      'access',
      html`<h1>Access</h1>
${accessTabs('keys', pages.can(request, 'GET', MASTER_KEYS))}
${canCreate ? newKeyForm(csrf, refused?.typed, refused && formProblems('The admin key was not created:', refused.problems)) : ''}
<section class="card"><h2>Admin keys</h2>
<p class="muted">Each key has a scope: <strong>read</strong> looks, <strong>operate</strong> also replays, recovers and uses the sandbox, <strong>admin</strong> does everything; <strong>approve</strong> only approves or rejects the payouts another key asked for. A revoked key is refused at once by every instance; the last admin-scope key cannot be revoked.</p>
${keyTable(keys, { ownKeyId: key.id, csrf, canRevoke: pages.can(request, 'POST', REVOKE) })}</section>`,
      status,
    );
  }

  op.get('/access', { config }, (request, reply) => keysPage(request, reply));

  op.post('/access/keys', { config }, async (request, reply) => {
    pages.need(request, 'POST', LIST);
    const fields = formOf(request);
    const scope = blank(fields.scope);
    // The admin API's own schema; a name is checked as typed, but for spaces around it.
    const parsed = adminKeyCreateSchema.safeParse({ name: (fields.name ?? '').trim(), ...(scope ? { scope } : {}) });
    const refused = async (problems: string[], status: 400 | 409) => {
      await pages.refusedForm(request, { action: 'console: create admin key', status }, problems);
      return keysPage(request, reply, { typed: fields, problems }, status);
    };
    if (!parsed.success) return refused(issuesOf(parsed.error.issues), 400);
    let made: Awaited<ReturnType<typeof adminKeys.create>>;
    try {
      made = await adminKeys.create(parsed.data);
    } catch (e) {
      // A name taken: said on the form, as typed.
      const r = asConsoleError(e);
      if (r?.status !== 409) throw e;
      return refused([r.message], 409);
    }
    await pages.audit(request, {
      action: 'console: create admin key',
      target: made.record.id,
      httpStatus: 201,
      fields,
      after: adminKeyView(made.record),
    });
    return pages.showOnce(request, reply, `${keyHref(made.record.id)}/created`, { key: made.key });
  });

  op.get<{ Params: { id: string } }>('/access/keys/:id/created', { config }, async (request, reply) => {
    pages.need(request, 'POST', LIST);
    const k = await found(request.params.id);
    const key = pages.takeOnce(request, reply)?.key;
    return pages.page(
      request,
      reply,
      'Admin key created',
      'access',
      createdKeyPage(k, key, key === undefined ? undefined : secretField('admin-key', 'Admin key', key)),
    );
  });

  op.post<{ Params: { id: string } }>('/access/keys/:id/revoke', { config }, async (request, reply) => {
    pages.need(request, 'POST', REVOKE);
    const before = await found(request.params.id);
    const action = 'console: revoke admin key';
    if (before.revokedAt !== null) {
      return pages.refused(request, reply, ACCESS_HREF, `The key ${before.name} was already revoked.`, {
        status: 409,
        action,
        target: before.id,
      });
    }
    let after: AdminKeyRecord;
    try {
      after = await adminKeys.revoke(before.id);
    } catch (e) {
      if (asConsoleError(e)?.status !== 409) throw e;
      return pages.refused(
        request,
        reply,
        ACCESS_HREF,
        `The key ${before.name} was not revoked: it is the last admin-scope key, and the gateway would have none left. Create another admin key first.`,
        { status: 409, action, target: before.id },
      );
    }
    await pages.audit(request, {
      action,
      target: before.id,
      httpStatus: 200,
      before: adminKeyView(before),
      after: adminKeyView(after),
    });
    if (after.id !== pages.operatorOf(request).key.id) {
      return pages.done(
        request,
        reply,
        ACCESS_HREF,
        `The key ${after.name} is revoked: the admin API and the console refuse it from now on, on every instance.`,
      );
    }
    // The key of this very session: it ended with the key, so the next page is the log-in page.
    setCookie(request, reply, OPERATOR_COOKIE, '', 0);
    leaveNotice(request, reply, pages.deps.sessions, '/console/login', {
      kind: 'ok',
      text: `The key ${after.name} is revoked. You were signed in with it, so you are signed out, in this browser and every other one that used it: log in with another key.`,
    });
    return reply.redirect('/console/login', 303);
  });

  /** An admin key by its id, revoked or not; a page that does not exist otherwise. */
  async function found(id: string): Promise<AdminKeyRecord> {
    const k = await adminKeys.find(id);
    if (!k) throw new ConsoleError(404, `there is no admin key ${id}`);
    return k;
  }

  auditPages(op, pages);
  masterKeyPages(op, pages);
}

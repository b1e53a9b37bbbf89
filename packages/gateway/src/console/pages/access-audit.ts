import type { FastifyInstance } from 'fastify';
import { auditQuery } from '../../http/routes/admin-access.ts';
import { html } from '../../web/html.ts';
import { AUDIT_HREF, accessTabs, auditFilters, auditTable } from '../access-views.ts';
import { asConsoleError, blank, issuesOf, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { formProblems } from '../views.ts';

/** The query names of GET /admin/v1/audit, which this page takes alike. */
const QUERY_NAMES = ['target', 'limit', 'cursor'] as const;

/**
 * The audit log, newest first, with the admin API's filters and paging (its query names and its
 * schema); each row opens to its request, before and after, redacted when the row was written.
 */
export function auditPages(op: FastifyInstance, pages: OperatorPages): void {
  const { audit } = pages.deps;

  op.get('/access/audit', { config }, async (request, reply) => {
    pages.need(request, 'GET', '/admin/v1/audit');
    const typed: Record<string, string | undefined> = {};
    // Longer than any rule allows, so that the rule, not a cut, says what is wrong.
    for (const name of QUERY_NAMES) typed[name] = blank(q(request.query, name, 2000));
    const frame = (status: number, body: ReturnType<typeof html>) =>
      pages.page(
        request,
        reply,
        'Audit log',
        'access',
        html`<h1>Access</h1>
${accessTabs('audit', pages.can(request, 'GET', '/admin/v1/keys'))}
<p class="muted">Every action that changed something, by the admin API, the console, the portal or the CLI, newest first: who (the admin key), from where, what, about what, how it ended, and the request, the resource before and after. Secrets are redacted when the row is written.</p>
${auditFilters(typed)}
${body}`,
        status,
      );
    const refused = (problems: string[]) =>
      frame(400, formProblems('The audit log was not read with these filters:', problems));

    const defined = Object.fromEntries(Object.entries(typed).filter(([, v]) => v !== undefined));
    const parsed = auditQuery.safeParse(defined);
    if (!parsed.success) return refused(issuesOf(parsed.error.issues));
    const { limit, cursor, target } = parsed.data;
    let list: Awaited<ReturnType<typeof audit.list>>;
    try {
      list = await audit.list({ limit, cursor }, target ? { target } : {});
    } catch (e) {
      // A cursor this gateway did not issue.
      const r = asConsoleError(e);
      if (r?.status !== 400) throw e;
      return refused(r.problems.length > 0 ? r.problems : [r.message]);
    }
    const link = (query: Record<string, string | undefined>) => {
      const kept = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
      return kept.length > 0 ? `${AUDIT_HREF}?${new URLSearchParams(kept)}` : AUDIT_HREF;
    };
    const own = { target, limit: typed.limit };
    return frame(
      200,
      html`${auditTable(list.items, (t) => link({ target: t, limit: typed.limit }))}
<nav class="pager" aria-label="Pages">${cursor ? html`<a href="${link(own)}" id="newest">← Newest</a>` : ''}${
        list.nextCursor ? html`<a href="${link({ ...own, cursor: list.nextCursor })}" id="older">Older →</a>` : ''
      }</nav>`,
    );
  });
}

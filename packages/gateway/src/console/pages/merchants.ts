import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  merchantCreateSchema as createSchema,
  merchantPatchSchema as patchSchema,
} from '../../merchants/merchant-fields.ts';
import { type MerchantRecord, merchantView } from '../../merchants/merchant-service.ts';
import { jakartaTime } from '../format.ts';
import { html } from '../html.ts';
import { asConsoleError, blank, ConsoleError, formOf, q } from '../kit.ts';
import { formValues, MERCHANT_FORM_FIELDS, merchantHref, merchantPage, newMerchantForm } from '../merchant-views.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, empty, formProblems } from '../views.ts';
import { credentialPages } from './merchant-credentials.ts';

type Issues = ReadonlyArray<{ path: PropertyKey[]; message: string }>;
const listed = (issues: Issues) => issues.map((i) => `${i.path.join('.')}: ${i.message}`);

/**
 * Why the service refused a form (invalid settings, a partner id taken), as the form shows it
 * again; anything else is no form problem and is thrown on.
 */
function serviceRefusal(e: unknown): { status: number; problems: string[] } {
  const r = asConsoleError(e);
  if (!r || (r.status !== 400 && r.status !== 409)) throw e;
  return { status: r.status, problems: r.problems.length > 0 ? r.problems : [r.message] };
}

/**
 * Merchants: the list, a new merchant, one merchant's page, editing it and its status. A refused
 * form is shown again, as it was typed, with its problems (400): nothing changed, so nothing
 * redirects; every form that changes something redirects (Post/Redirect/Get).
 */
export function merchantPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants } = pages.deps;
  const csrfOf = (request: FastifyRequest) => pages.operatorOf(request).csrf;

  op.get('/merchants', { config }, async (request, reply) => {
    const term = q(request.query, 'q')?.toLowerCase();
    const list = await merchants.search(term);
    return pages.page(
      request,
      reply,
      'Merchants',
      'merchants',
      html`<h1>Merchants</h1>
<div class="actions">
<form class="filters" method="get" action="/console/merchants" role="search">
<label>Search<input name="q" type="search" value="${term ?? ''}" placeholder="name, id, client key"></label>
<button type="submit" class="secondary">Search</button></form>
${pages.can(request, 'POST', '/admin/v1/merchants') ? html`<a class="button" href="/console/merchants/new">New merchant</a>` : ''}
</div>
${
  list.length === 0
    ? empty(term ? 'No merchant matches this search.' : 'No merchant yet: create the first one.')
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Client key</th><th class="hide-narrow">Partner id</th><th>Status</th><th class="hide-narrow">Created</th></tr></thead><tbody>${list.map(
        (m) =>
          html`<tr><td><a href="/console/merchants/${encodeURIComponent(m.id)}">${m.name}</a></td><td>${m.clientKey}</td><td class="hide-narrow">${m.partnerId}</td><td>${badge(m.status, m.status)}</td><td class="hide-narrow">${jakartaTime(m.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
}`,
    );
  });

  op.get('/merchants/new', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants');
    return pages.page(request, reply, 'New merchant', 'merchants', newMerchantForm(csrfOf(request)));
  });

  op.post('/merchants', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants');
    const fields = formOf(request);
    const again = (problems: string[], status = 400) =>
      pages.page(
        request,
        reply,
        'New merchant',
        'merchants',
        newMerchantForm(
          csrfOf(request),
          formValues(undefined, fields),
          formProblems('The merchant was not created:', problems),
        ),
        status,
      );
    const input: Record<string, string> = {};
    for (const f of MERCHANT_FORM_FIELDS) {
      const v = blank(fields[f]);
      if (v !== undefined) input[f] = v;
    }
    const parsed = createSchema.safeParse(input);
    if (!parsed.success) return again(listed(parsed.error.issues));
    let made: Awaited<ReturnType<typeof merchants.create>>;
    try {
      made = await merchants.create(parsed.data);
    } catch (e) {
      const r = serviceRefusal(e);
      return again(r.problems, r.status);
    }
    const { merchant, clientSecret } = made;
    await pages.audit(request, {
      action: 'console: create merchant',
      target: merchant.id,
      httpStatus: 201,
      fields,
      after: merchantView(merchant),
    });
    return pages.showOnce(request, reply, `${merchantHref(merchant.id)}/created`, { clientSecret });
  });

  const show = (
    request: FastifyRequest,
    reply: FastifyReply,
    m: MerchantRecord,
    edit?: { typed: Record<string, string>; problems: string[] },
    status = 200,
  ) =>
    pages.page(
      request,
      reply,
      m.name,
      'merchants',
      merchantPage(m, csrfOf(request), {
        canEdit: pages.can(request, 'PATCH', '/admin/v1/merchants/:id'),
        canRecover: pages.can(request, 'POST', '/admin/v1/merchants/:id/recover'),
        edit: edit && {
          values: formValues(m, edit.typed),
          problems: formProblems('Nothing was saved:', edit.problems),
        },
      }),
      status,
    );

  op.get<{ Params: { id: string } }>('/merchants/:id', { config }, async (request, reply) =>
    show(request, reply, await merchants.get(request.params.id)),
  );

  op.post<{ Params: { id: string } }>('/merchants/:id', { config }, async (request, reply) => {
    pages.need(request, 'PATCH', '/admin/v1/merchants/:id');
    const fields = formOf(request);
    const before = await merchants.get(request.params.id);
    const patch: Record<string, string | null> = {};
    const name = blank(fields.name);
    if (name !== undefined) patch.name = name;
    for (const f of ['callbackBaseUrl', 'qrisCallbackUrl', 'vaCallbackUrl', 'callbackTokenUrl']) {
      if (f in fields) patch[f] = blank(fields[f]) ?? null;
    }
    for (const f of ['callbackSignature', 'callbackJson', 'callbackVaBody', 'callbackAck', 'tokenSignature']) {
      const v = blank(fields[f]);
      if (v !== undefined) patch[f] = v;
    }
    const parsed = patchSchema.safeParse(patch);
    if (!parsed.success)
      return show(request, reply, before, { typed: fields, problems: listed(parsed.error.issues) }, 400);
    let after: MerchantRecord;
    try {
      after = await merchants.update(before.id, parsed.data, pages.callerOf(request));
    } catch (e) {
      const r = serviceRefusal(e);
      return show(request, reply, before, { typed: fields, problems: r.problems }, r.status);
    }
    await pages.audit(request, {
      action: 'console: edit merchant',
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: merchantView(after),
    });
    return reply.redirect(`${merchantHref(before.id)}?ok=saved`, 303);
  });

  op.post<{ Params: { id: string } }>('/merchants/:id/status', { config }, async (request, reply) => {
    pages.need(request, 'PATCH', '/admin/v1/merchants/:id');
    const fields = formOf(request);
    const status = fields.status === 'disabled' ? 'disabled' : fields.status === 'active' ? 'active' : undefined;
    if (!status) throw new ConsoleError(400, 'status must be active or disabled');
    const before = await merchants.get(request.params.id);
    const after = await merchants.update(before.id, { status }, pages.callerOf(request));
    await pages.audit(request, {
      action: status === 'disabled' ? 'console: disable merchant' : 'console: enable merchant',
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: merchantView(after),
    });
    return reply.redirect(`${merchantHref(before.id)}?ok=${status === 'disabled' ? 'disabled' : 'enabled'}`, 303);
  });

  credentialPages(op, pages);
}

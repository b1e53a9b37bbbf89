import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  merchantCreateSchema as createSchema,
  merchantPatchSchema as patchSchema,
} from '../../merchants/merchant-fields.ts';
import { type MerchantRecord, merchantView } from '../../merchants/merchant-service.ts';
import { jakartaTime } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { ConsoleError, formOf, q, serviceRefusal } from '../kit.ts';
import {
  type Acquirer,
  createInput,
  invalidFields,
  type MerchantFormValues,
  patchInput,
  problemsOf,
  shownValues,
} from '../merchant-form.ts';
import { merchantHref, merchantPage, newMerchantForm, type TypedForm } from '../merchant-views.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, empty, formProblems } from '../views.ts';
import { credentialPages } from './merchant-credentials.ts';
import { consoleUserPages } from './merchant-users.ts';

/** A refused form as it is shown again: what was typed, why not, the fields at fault. */
const typedForm = (what: string, values: MerchantFormValues, problems: string[]): TypedForm => ({
  values,
  problems: formProblems(what, problems),
  invalid: invalidFields(problems),
});

/**
 * Merchants: the list, a new merchant, one merchant's page, editing it and its status. A refused
 * form is shown again, as it was typed, with its problems (400): nothing changed, so nothing
 * redirects; every form that changes something redirects (Post/Redirect/Get).
 */
export function merchantPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, providers } = pages.deps;
  const csrfOf = (request: FastifyRequest) => pages.operatorOf(request).csrf;
  /** The acquirers a merchant's QRIS may come from (there are few). */
  const acquirers = async (): Promise<Acquirer[]> =>
    (await providers.list({ limit: 500 })).items.filter((p) => p.kind === 'acquirer');

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
    : html`<div class="table-wrap"><table class="stack"><thead><tr><th>Name</th><th>Client key</th><th class="hide-narrow">Partner id</th><th>Status</th><th class="hide-narrow">Created</th></tr></thead><tbody>${list.map(
        (m) =>
          html`<tr><td data-label="Name"><a href="/console/merchants/${encodeURIComponent(m.id)}">${m.name}</a></td><td data-label="Client key">${m.clientKey}</td><td data-label="Partner id" class="hide-narrow">${m.partnerId}</td><td data-label="Status">${badge(m.status, m.status)}</td><td data-label="Created" class="hide-narrow">${jakartaTime(m.createdAt)}</td></tr>`,
      )}</tbody></table></div>`
}`,
    );
  });

  op.get('/merchants/new', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants');
    return pages.page(request, reply, 'New merchant', 'merchants', newMerchantForm(csrfOf(request), await acquirers()));
  });

  op.post('/merchants', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants');
    const fields = formOf(request);
    const again = async (problems: string[], status: 400 | 409 = 400) => {
      await pages.refusedForm(request, { action: 'console: create merchant', status }, problems);
      return pages.page(
        request,
        reply,
        'New merchant',
        'merchants',
        newMerchantForm(
          csrfOf(request),
          await acquirers(),
          typedForm('The merchant was not created:', fields, problems),
        ),
        status,
      );
    };
    const parsed = createSchema.safeParse(createInput(fields));
    if (!parsed.success) return again(problemsOf(parsed.error.issues));
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

  /** A merchant's page; after a refused edit, its form as typed, with the problems (`status` 4xx). */
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    m: MerchantRecord,
    edit?: { typed: MerchantFormValues; problems: string[] },
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
        acquirers: await acquirers(),
        values: { ...shownValues(m), ...edit?.typed },
        edit: edit && typedForm('Nothing was saved:', edit.typed, edit.problems),
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
    const patch = patchInput(before, fields);
    if (Object.keys(patch).length === 0) {
      await pages.audit(request, {
        action: 'console: edit merchant (nothing changed)',
        target: before.id,
        httpStatus: 200,
        fields,
      });
      return pages.done(request, reply, merchantHref(before.id), 'Nothing to save: every setting is as it was.');
    }
    const refused = async (problems: string[], status: 400 | 409) => {
      await pages.refusedForm(request, { action: 'console: edit merchant', target: before.id, status }, problems);
      return show(request, reply, before, { typed: fields, problems }, status);
    };
    const parsed = patchSchema.safeParse(patch);
    if (!parsed.success) return refused(problemsOf(parsed.error.issues), 400);
    let after: MerchantRecord;
    try {
      after = await merchants.update(before.id, parsed.data, pages.callerOf(request));
    } catch (e) {
      const r = serviceRefusal(e);
      return refused(r.problems, r.status);
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
  consoleUserPages(op, pages);
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { providerCreateSchema, providerPatchSchema } from '../../providers/provider-fields.ts';
import { type ProviderRecord, providerView } from '../../providers/provider-service.ts';
import { html } from '../../web/html.ts';
import { formOf, PAGE, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import {
  newProviderForm,
  type ProviderPageOptions,
  providerHref,
  providerPage,
  providerTable,
  typedValues,
  valuesOf,
} from '../provider-views.ts';
import { formProblems } from '../views.ts';
import { providerCredentialPages } from './provider-credentials.ts';
import { createBody, invalidOf, patchBody, problemsOf, serviceRefusal } from './provider-form.ts';

/** The admin API routes whose scope each form needs. */
export const PROVIDER_ROUTES = {
  create: '/admin/v1/providers',
  patch: '/admin/v1/providers/:id',
  rotate: '/admin/v1/providers/:id/rotate-secret',
} as const;

/** What a re-shown provider page carries besides the provider: a refused edit or rotation. */
export type ProviderPageRefusal = Pick<ProviderPageOptions, 'edit' | 'rotate'>;

/**
 * Providers (banks and acquirers): the list with their calls of the last day, a new provider, one
 * provider's page with its settings, editing them, disabling and enabling it, and its inbound log.
 * A refused form is shown again as it was typed (but its secrets), with its problems (400, or 409
 * for what it clashes with): nothing changed, so nothing redirects; every form that changes
 * something redirects (Post/Redirect/Get). Each is validated by the admin API route's own schema.
 */
export function providerPages(op: FastifyInstance, pages: OperatorPages): void {
  const { clock, providers } = pages.deps;
  const csrfOf = (request: FastifyRequest) => pages.operatorOf(request).csrf;
  op.get('/providers', { config }, async (request, reply) => {
    const [list, calls] = await Promise.all([
      providers.list({ limit: 500 }),
      providers.inboundCounts(clock.now() - 86_400_000),
    ]);
    return pages.page(
      request,
      reply,
      'Providers',
      'providers',
      html`<h1>Providers</h1>
${pages.can(request, 'POST', PROVIDER_ROUTES.create) ? html`<div class="actions"><a class="button" href="/console/providers/new">New provider</a></div>` : ''}
${providerTable(list.items, calls)}`,
    );
  });

  op.get('/providers/new', { config }, async (request, reply) => {
    pages.need(request, 'POST', PROVIDER_ROUTES.create);
    return pages.page(request, reply, 'New provider', 'providers', newProviderForm(csrfOf(request)));
  });

  op.post('/providers', { config }, async (request, reply) => {
    pages.need(request, 'POST', PROVIDER_ROUTES.create);
    const fields = formOf(request);
    const again = async (problems: string[], status: 400 | 409 = 400) => {
      await pages.refusedForm(request, { action: 'console: create provider', status }, problems);
      const shown = newProviderForm(csrfOf(request), typedValues(fields), {
        problems: formProblems('The provider was not created:', problems),
        invalid: invalidOf(problems),
      });
      return pages.page(request, reply, 'New provider', 'providers', shown, status);
    };
    const parsed = providerCreateSchema.safeParse(createBody(fields));
    if (!parsed.success) return again(problemsOf(parsed.error.issues));
    let made: Awaited<ReturnType<typeof providers.create>>;
    try {
      made = await providers.create(parsed.data);
    } catch (e) {
      const r = await serviceRefusal(e, providers, parsed.data);
      return again(r.problems, r.status);
    }
    const { provider, clientSecret } = made;
    await pages.audit(request, {
      action: 'console: create provider',
      target: provider.id,
      httpStatus: 201,
      fields,
      after: providerView(provider),
    });
    return pages.showOnce(request, reply, `${providerHref(provider.id)}/created`, { clientSecret });
  });

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    p: ProviderRecord,
    refusal: ProviderPageRefusal = {},
    status = 200,
  ) => {
    const calls = await providers.inbound(p.id, { limit: PAGE, cursor: q(request.query, 'cursor') });
    const body = providerPage(p, {
      csrf: csrfOf(request),
      now: clock.now(),
      canEdit: pages.can(request, 'PATCH', PROVIDER_ROUTES.patch),
      canRotate: pages.can(request, 'POST', PROVIDER_ROUTES.rotate),
      calls: calls.items,
      olderHref: calls.nextCursor ? `${providerHref(p.id)}?cursor=${encodeURIComponent(calls.nextCursor)}` : undefined,
      ...refusal,
    });
    return pages.page(request, reply, p.name, 'providers', body, status);
  };

  op.get<{ Params: { id: string } }>('/providers/:id', { config }, async (request, reply) =>
    show(request, reply, await providers.get(request.params.id)),
  );

  op.post<{ Params: { id: string } }>('/providers/:id', { config }, async (request, reply) => {
    pages.need(request, 'PATCH', PROVIDER_ROUTES.patch);
    const fields = formOf(request);
    const before = await providers.get(request.params.id);
    const again = async (problems: string[], status: 400 | 409 = 400) => {
      await pages.refusedForm(request, { action: 'console: edit provider', target: before.id, status }, problems);
      const edit = {
        values: typedValues(fields, valuesOf(before)),
        problems: formProblems('Nothing was saved:', problems),
        invalid: invalidOf(problems),
      };
      return show(request, reply, before, { edit }, status);
    };
    const parsed = providerPatchSchema.safeParse(patchBody(fields, before));
    if (!parsed.success) return again(problemsOf(parsed.error.issues));
    let after: ProviderRecord;
    try {
      after = await providers.update(before.id, parsed.data);
    } catch (e) {
      const r = await serviceRefusal(e, providers, {
        id: before.id,
        kind: before.kind,
        bankCode: parsed.data.bankCode ?? before.bankCode,
      });
      return again(r.problems, r.status);
    }
    await pages.audit(request, {
      action: 'console: edit provider',
      target: before.id,
      httpStatus: 200,
      fields,
      before: providerView(before),
      after: providerView(after),
    });
    return pages.done(request, reply, providerHref(before.id), `Saved: the settings of ${after.name} are changed.`);
  });

  op.post<{ Params: { id: string } }>('/providers/:id/status', { config }, async (request, reply) => {
    pages.need(request, 'PATCH', PROVIDER_ROUTES.patch);
    const fields = formOf(request);
    const before = await providers.get(request.params.id);
    const path = providerHref(before.id);
    const disabling = fields.status === 'disabled';
    const action = disabling ? 'console: disable provider' : 'console: enable provider';
    const parsed = providerPatchSchema.safeParse({ status: fields.status });
    if (!parsed.success) {
      const why = `Nothing changed: ${problemsOf(parsed.error.issues).join('; ')}.`;
      return pages.refused(request, reply, path, why, {
        status: 400,
        action: 'console: change provider status',
        target: before.id,
      });
    }
    let after: ProviderRecord;
    try {
      after = await providers.update(before.id, parsed.data);
    } catch (e) {
      const r = await serviceRefusal(e, providers, before);
      const why = `The provider was not ${disabling ? 'disabled' : 'enabled'}. ${r.problems.join(' ')}`;
      return pages.refused(request, reply, path, why, { status: r.status, action, target: before.id });
    }
    await pages.audit(request, {
      action,
      target: before.id,
      httpStatus: 200,
      fields,
      before: providerView(before),
      after: providerView(after),
    });
    return pages.done(
      request,
      reply,
      path,
      disabling
        ? `${after.name} is disabled: its tokens stopped working at once, and its calls are refused until it is enabled again.`
        : `${after.name} is active again: it takes a new token to call the gateway (its tokens from before it was disabled stay dead).`,
    );
  });

  providerCredentialPages(op, pages, show);
}

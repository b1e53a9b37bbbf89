import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rotateSchema } from '../../http/admin-body.ts';
import { type ProviderRecord, providerView } from '../../providers/provider-service.ts';
import { formOf } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { createdView, providerHref, rotatedView } from '../provider-views.ts';
import { formProblems } from '../views.ts';
import type { ProviderPageRefusal } from './providers.ts';

const CREATE = '/admin/v1/providers';
const ROTATE = '/admin/v1/providers/:id/rotate-secret';

/** The provider's page, shown again with a refused form (providers.ts). */
type Show = (
  request: FastifyRequest,
  reply: FastifyReply,
  p: ProviderRecord,
  refusal: ProviderPageRefusal,
  status: number,
) => Promise<FastifyReply>;

/**
 * What is shown once: a new provider's client secret, a rotated one. The form acts, then redirects
 * (Post/Redirect/Get) to a page of its own, which shows the value left for it in a sealed one-time
 * cookie (OperatorPages.showOnce) and deletes it: a reload repeats nothing and shows nothing again,
 * only how to get a new one. Never in a URL, a log or the audit log.
 */
export function providerCredentialPages(op: FastifyInstance, pages: OperatorPages, show: Show): void {
  const { clock, providers } = pages.deps;

  op.get<{ Params: { id: string } }>('/providers/:id/created', { config }, async (request, reply) => {
    pages.need(request, 'POST', CREATE);
    const p = await providers.get(request.params.id);
    const secret = pages.takeOnce(request, reply)?.clientSecret;
    return pages.page(request, reply, 'Provider created', 'providers', createdView(p, secret));
  });

  op.post<{ Params: { id: string } }>('/providers/:id/rotate-secret', { config }, async (request, reply) => {
    pages.need(request, 'POST', ROTATE);
    const fields = formOf(request);
    const before = await providers.get(request.params.id);
    // The admin API's body: an empty overlap takes its default; a number is read as one.
    const typed = fields.overlapSec?.trim() ?? '';
    const parsed = rotateSchema.safeParse(
      typed === '' ? {} : { overlapSec: /^-?\d+(\.\d+)?$/.test(typed) ? Number(typed) : typed },
    );
    if (!parsed.success) {
      const why = 'The secret was not rotated: the overlap is a whole number of seconds, from 0 to 30 days (2592000).';
      await pages.audit(request, {
        action: 'console: rotate provider secret (refused)',
        target: before.id,
        httpStatus: 400,
        after: { refused: [why] },
      });
      const rotate = { overlapSec: fields.overlapSec ?? '', problems: formProblems(why, []) };
      return show(request, reply, before, { rotate }, 400);
    }
    const r = await providers.rotateSecret(before.id, parsed.data.overlapSec ?? 86_400);
    await pages.audit(request, {
      action: 'console: rotate provider secret',
      target: before.id,
      httpStatus: 200,
      fields,
      before: providerView(before),
      after: { clientSecret: '<redacted>', previousValidUntil: new Date(r.previousValidUntil).toISOString() },
    });
    return pages.showOnce(request, reply, `${providerHref(before.id)}/secret`, {
      clientSecret: r.clientSecret,
      previousValidUntil: String(r.previousValidUntil),
    });
  });

  op.get<{ Params: { id: string } }>('/providers/:id/secret', { config }, async (request, reply) => {
    pages.need(request, 'POST', ROTATE);
    const p = await providers.get(request.params.id);
    const shown = pages.takeOnce(request, reply);
    const value = shown?.clientSecret
      ? { clientSecret: shown.clientSecret, until: Number(shown.previousValidUntil) }
      : undefined;
    return pages.page(request, reply, 'Secret rotated', 'providers', rotatedView(p, value, clock.now()));
  });
}

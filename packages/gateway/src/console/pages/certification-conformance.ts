import type { FastifyInstance } from 'fastify';
import type { MerchantRecord } from '../../merchants/merchant-service.ts';
import { certificationsHref, conformanceHref, reportPage } from '../certification-views.ts';
import { ConsoleError } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';

/** The scope a run needs: the admin route that certifies a merchant (a conformance run has none of its own). */
export const RUN_ROUTE = '/admin/v1/merchants/:id/certifications';
const ACTION = 'console: conformance run';

/** Why a conformance run cannot take this merchant's part, in plain words; undefined when it can. */
export function conformanceBlocked(m: MerchantRecord): string | undefined {
  if (m.status !== 'active')
    return 'The merchant is disabled, so the gateway refuses its tokens: enable it first to run conformance.';
  if (m.tokenSignature === 'rsa-sha256')
    return 'This merchant takes access tokens signed with RSA only (tokenSignature rsa-sha256), and the gateway holds only its public key: run `snapgate conformance --private-key <file>` where its private key is.';
  return undefined;
}

/**
 * The SNAP conformance run against this gateway itself, as one merchant's client (its client key
 * and secret). Sandbox mode only: it creates, cancels and deletes transactions through the payment
 * API, which in production would reach real acquirers and banks. Post/Redirect/Get: the report is
 * stored (the certifications table, suite snap-server-conformance) and shown on a page of its own,
 * so a reload runs nothing.
 */
export function conformancePages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants } = pages.deps;

  op.post<{ Params: { id: string } }>('/merchants/:id/conformance', { config }, async (request, reply) => {
    pages.need(request, 'POST', RUN_ROUTE);
    const m = await merchants.get(request.params.id);
    const refuse = (why: string) =>
      pages.refused(request, reply, certificationsHref(m.id), `Nothing was run: ${why}`, {
        status: 409,
        action: ACTION,
        target: m.id,
      });
    if (!pages.sandbox)
      return refuse(
        'a conformance run creates, cancels and deletes transactions through the payment API; in production mode they would reach real acquirers and banks, so it runs only in sandbox mode.',
      );
    const blocked = conformanceBlocked(m);
    if (blocked) return refuse(blocked);
    const run = await pages.deps.certifications.conformance(m, pages.deps.selfUrl());
    const { ok, total, passed, failed } = run;
    await pages.audit(request, {
      action: ACTION,
      target: m.id,
      httpStatus: 201,
      after: { run: run.id, ok, total, passed, failed },
    });
    return pages.done(
      request,
      reply,
      conformanceHref(m.id, run.id),
      `Conformance run: ${passed} of ${total} scenarios passed${failed > 0 ? `, ${failed} failed` : ''}.`,
    );
  });

  op.get<{ Params: { id: string; run: string } }>(
    '/merchants/:id/conformance/:run',
    { config },
    async (request, reply) => {
      const m = await merchants.get(request.params.id);
      const found = await pages.deps.certifications.conformanceRun(m.id, request.params.run);
      if (!found) throw new ConsoleError(404, `there is no conformance run ${request.params.run} of this merchant`);
      return pages.page(
        request,
        reply,
        'Conformance run',
        'merchants',
        reportPage({ title: `SNAP conformance run for ${m.name}`, merchant: m, report: found }),
      );
    },
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CertificationRefused, type CertificationReport, reportOf } from '../../certification/certify.ts';
import { callbackUrlOf } from '../../delivery/callback-signing.ts';
import { certifyBody } from '../../http/routes/admin-certifications.ts';
import type { MerchantRecord } from '../../merchants/merchant-service.ts';
import {
  CERTIFY_LABELS,
  type CertifyTyped,
  certificationHref,
  certificationsHref,
  certificationsPage,
  conformanceHref,
  reportPage,
  summaryOf,
} from '../certification-views.ts';
import { blank, ConsoleError, formOf, issuesOf } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { formProblems } from '../views.ts';
import { conformanceBlocked, conformancePages, RUN_ROUTE } from './certification-conformance.ts';

const ACTION = 'console: certify merchant';
const PRODUCTION =
  'Nothing was run: webhook certification runs only in sandbox mode, because it pays and fails transactions.';

const listed = (issues: Parameters<typeof issuesOf>[0]) => issuesOf(issues, (path) => CERTIFY_LABELS[path] ?? path);

/**
 * The certification form as the admin API's body (certifyBody judges it): the two QRIS inputs are
 * `qris` (both empty: the newest two), the box `create` (a value other than a box's is left for the
 * schema to refuse).
 */
function certifyInput(fields: Record<string, string>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const paid = blank(fields['qris.0']);
  const failed = blank(fields['qris.1']);
  if (paid !== undefined || failed !== undefined) input.qris = [paid ?? '', failed ?? ''];
  const va = blank(fields.va);
  if (va !== undefined) input.va = va;
  if (fields.create !== undefined) input.create = fields.create === 'on' || fields.create === 'true' || fields.create;
  return input;
}

/** A refusal of the certification service, in the console's words. */
function refusalText(e: CertificationRefused): string {
  if (e.problem === 'production') return PRODUCTION;
  if (e.problem === 'no-callback-url') {
    const kind = /has no (QRIS|VA) callback URL/.exec(e.message)?.[1] ?? 'QRIS or VA';
    return `Nothing was run: the merchant has no ${kind} callback URL. Set its callback base URL (or its QRIS and VA callback URLs) on the merchant’s page first.`;
  }
  if (e.problem === 'no-transactions') {
    const missing = / lacks (.+?): /.exec(e.message)?.[1] ?? 'unpaid transactions';
    return `Nothing was run: the merchant lacks ${missing}. Create two QRIS and one VA from the merchant’s own system first (so that it knows the orders), or tick “Create the transactions” to let the certification make its own.`;
  }
  return `Nothing was run: ${e.message}.`;
}

/**
 * A merchant's webhook certification runs (sandbox mode only) and its SNAP conformance runs: the
 * list with the forms that run them, and each run's report on a page of its own. A run redirects
 * to its report (Post/Redirect/Get): a reload shows the stored run and runs nothing. What was
 * typed wrong (a reference) shows the form again (400); what the state forbids is refused (409).
 */
export function certificationPages(op: FastifyInstance, pages: OperatorPages): void {
  const { certifications, merchants } = pages.deps;

  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    m: MerchantRecord,
    refused?: { typed: CertifyTyped; problems: string[] },
    status = 200,
  ) => {
    const [runs, conformance] = await Promise.all([certifications.list(m.id), certifications.conformanceRuns(m.id)]);
    return pages.page(
      request,
      reply,
      `Certification of ${m.name}`,
      'merchants',
      certificationsPage({
        merchant: m,
        qrisCallbackUrl: callbackUrlOf(m, 'qris'),
        vaCallbackUrl: callbackUrlOf(m, 'va'),
        sandbox: pages.sandbox && certifications.mode === 'sandbox',
        canRun: pages.can(request, 'POST', RUN_ROUTE),
        conformanceBlocked: conformanceBlocked(m),
        csrf: pages.operatorOf(request).csrf,
        certifications: runs.map((r) => summaryOf(certificationHref(r.id), reportOf(r))),
        conformance: conformance.map((r) => summaryOf(conformanceHref(m.id, r.id), r)),
        refused: refused && {
          typed: refused.typed,
          problems: formProblems('Nothing was run:', refused.problems),
        },
      }),
      status,
    );
  };

  op.get<{ Params: { id: string } }>('/merchants/:id/certifications', { config }, async (request, reply) =>
    show(request, reply, await merchants.get(request.params.id)),
  );

  op.post<{ Params: { id: string } }>('/merchants/:id/certifications', { config }, async (request, reply) => {
    pages.need(request, 'POST', RUN_ROUTE);
    const fields = formOf(request);
    const m = await merchants.get(request.params.id);
    const refuse = (why: string) =>
      pages.refused(request, reply, certificationsHref(m.id), why, { status: 409, action: ACTION, target: m.id });
    const again = async (problems: string[]) => {
      await pages.refusedForm(request, { action: ACTION, target: m.id, status: 400 }, problems);
      return show(request, reply, m, { typed: fields, problems }, 400);
    };
    if (certifications.mode !== 'sandbox') return refuse(PRODUCTION);
    const parsed = certifyBody.safeParse(certifyInput(fields));
    if (!parsed.success) return again(listed(parsed.error.issues));
    let report: CertificationReport;
    try {
      report = await certifications.run({ merchantId: m.id, ...parsed.data, requestId: request.id });
    } catch (e) {
      if (!(e instanceof CertificationRefused)) throw e;
      if (e.problem === 'not-found') throw new ConsoleError(404, `there is no merchant ${m.id}`);
      // A reference typed wrong; a transaction it could not create is the state's doing.
      if (e.problem === 'bad-transaction' && !parsed.data.create) return again([e.message]);
      return refuse(refusalText(e));
    }
    const { ok, total, passed, failed } = report;
    await pages.audit(request, {
      action: ACTION,
      target: m.id,
      httpStatus: 201,
      after: { certification: report.id, ok, total, passed, failed },
    });
    return pages.done(
      request,
      reply,
      certificationHref(report.id),
      `Certification run: ${passed} of ${total} scenarios passed${failed > 0 ? `, ${failed} failed` : ''}.`,
    );
  });

  op.get<{ Params: { id: string } }>('/certifications/:id', { config }, async (request, reply) => {
    const found = await certifications.get(request.params.id);
    if (!found) throw new ConsoleError(404, `there is no certification run ${request.params.id}`);
    const m = await merchants.get(found.record.merchantId);
    return pages.page(
      request,
      reply,
      'Certification run',
      'merchants',
      reportPage({
        title: `Webhook certification of ${m.name}`,
        merchant: m,
        report: found.report,
        transactions: found.report.transactions,
      }),
    );
  });

  conformancePages(op, pages);
}

import type { KeyObject } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CertificationRefused, certifyMerchant, reportOf } from '../../certification/certify.ts';
import type { Clock } from '../../clock.ts';
import type { QrisService } from '../../payments/qris-service.ts';
import type { StatusChanger } from '../../payments/status-change.ts';
import type { VaService } from '../../payments/va-service.ts';
import type { CertificationRecord, Store } from '../../store/store.ts';
import { idParams, parseAdminBody, parseWith } from '../admin-body.ts';
import { conflict, notFound, ProblemError } from '../problem.ts';

export const certifyBody = z.strictObject({
  qris: z.array(z.string().min(1).max(64)).length(2).optional(),
  va: z.string().min(1).max(64).optional(),
  create: z.boolean().optional(),
});

export interface AdminCertificationDeps {
  store: Store;
  clock: Clock;
  mode: 'sandbox' | 'production';
  callbackTimeoutMs: number;
  gatewayPrivateKey: KeyObject;
  changer: StatusChanger;
  qris: QrisService;
  va: VaService;
}

/** A stored run without its report (the list). */
const summaryOf = (r: CertificationRecord) => ({
  id: r.id,
  merchantId: r.merchantId,
  startedAt: new Date(r.startedAt).toISOString(),
  finishedAt: new Date(r.finishedAt).toISOString(),
  passed: r.passed,
});

/** Webhook certification of a merchant's callback endpoint (sandbox mode only). */
export function adminCertificationRoutes(app: FastifyInstance, deps: AdminCertificationDeps) {
  const { store } = deps;
  const config = { api: 'admin' as const };

  app.post('/merchants/:id/certifications', { config }, async (request, reply) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const b = parseAdminBody(request, certifyBody, true);
    if (deps.mode !== 'sandbox')
      throw conflict('webhook certification runs only in sandbox mode: it pays and fails transactions');
    try {
      const report = await certifyMerchant(deps, {
        merchantId: id,
        qris: b.qris,
        va: b.va,
        create: b.create,
        requestId: request.id,
      });
      return reply.code(201).send(report);
    } catch (e) {
      if (!(e instanceof CertificationRefused)) throw e;
      if (e.problem === 'not-found') throw notFound('merchant');
      if (e.problem === 'production') throw conflict(e.message);
      throw new ProblemError(422, 'Unprocessable Content', e.message);
    }
  });

  app.get('/merchants/:id/certifications', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    if (!(await store.findMerchantById(id))) throw notFound('merchant');
    return { items: (await store.listCertifications(id)).map(summaryOf) };
  });

  app.get('/certifications/:id', { config }, async (request) => {
    const { id } = parseWith(idParams, request.params, 'invalid path');
    const found = await store.findCertification(id);
    if (!found) throw notFound('certification');
    return { ...summaryOf(found), report: reportOf(found) };
  });
}

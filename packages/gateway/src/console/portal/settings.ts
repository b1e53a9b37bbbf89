import type { FastifyInstance } from 'fastify';
import { ReplayRefused } from '../../delivery/notification-operations.ts';
import { merchantPatchSchema as patchSchema } from '../../merchants/merchant-fields.ts';
import { MERCHANT_EDITABLE, merchantView } from '../../merchants/merchant-service.ts';
import { html } from '../html.ts';
import { ConsoleError, formOf } from '../kit.ts';
import { config } from '../operator.ts';
import { csrfField } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** The merchant's callback URLs, and a test callback to them. */
export function settingsPages(p: FastifyInstance, pages: PortalPages): void {
  const { merchants, notifications } = pages.deps;

  p.get('/settings', { config }, async (request, reply) => {
    const { merchant: m, csrf } = pages.sessionOf(request);
    return pages.page(
      request,
      reply,
      'Callback settings',
      'portal/settings',
      html`<h1>Callback settings</h1>
<section class="card"><form method="post" action="/console/portal/settings">${csrfField(csrf)}<div class="form-grid">
<label>Callback base URL<input name="callbackBaseUrl" type="url" value="${m.callbackBaseUrl ?? ''}"></label>
<label>QRIS callback URL<input name="qrisCallbackUrl" type="url" value="${m.qrisCallbackUrl ?? ''}"></label>
<label>VA callback URL<input name="vaCallbackUrl" type="url" value="${m.vaCallbackUrl ?? ''}"></label></div>
<button type="submit">Save</button></form></section>
<section class="card"><h2>Test callback</h2><p>Delivers your latest notification again (the newest transaction that has one), signed exactly as before, to the URLs above. Watch it under Deliveries.</p>
<form method="post" action="/console/portal/test-callback">${csrfField(csrf)}<button type="submit">Send a test callback</button></form></section>`,
    );
  });

  p.post('/settings', { config }, async (request, reply) => {
    const before = pages.sessionOf(request).merchant;
    const fields = formOf(request);
    const patch: Record<string, string | null> = {};
    for (const f of MERCHANT_EDITABLE) {
      if (f in fields) patch[f] = fields[f]?.trim() || null;
    }
    const parsed = patchSchema.safeParse(patch);
    if (!parsed.success)
      throw new ConsoleError(
        400,
        'nothing was saved',
        parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
      );
    const after = await merchants.update(before.id, parsed.data, pages.callerOf(request));
    await pages.audit(request, {
      action: 'portal: edit callback URLs',
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: merchantView(after),
    });
    return reply.redirect('/console/portal/settings?ok=saved', 303);
  });

  p.post('/test-callback', { config }, async (request, reply) => {
    const m = pages.sessionOf(request).merchant;
    const action = 'portal: test callback';
    const n = await notifications.replayLatest(pages.callerOf(request), m.id).catch(async (e: unknown) => {
      if (e instanceof ReplayRefused) await pages.audit(request, { action, target: e.notificationId, httpStatus: 409 });
      throw e;
    });
    await pages.audit(request, { action, target: n.id, httpStatus: 202 });
    return reply.redirect('/console/portal/deliveries?ok=test-sent', 303);
  });
}

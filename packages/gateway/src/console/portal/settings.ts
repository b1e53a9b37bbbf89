import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain-error.ts';
import { merchantPatchSchema as patchSchema } from '../../merchants/merchant-fields.ts';
import { MERCHANT_EDITABLE, type MerchantRecord, merchantView } from '../../merchants/merchant-service.ts';
import { type Html, html } from '../../web/html.ts';
import { asConsoleError, formOf, issuesOf } from '../kit.ts';
import { config } from '../operator.ts';
import { csrfField, formProblems } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** The portal's fields, each shown when the merchant may change it (MERCHANT_EDITABLE) and it applies. */
const PORTAL_FIELDS: ReadonlyArray<{
  name: string;
  label: string;
  help?: string;
  applies?: (m: MerchantRecord) => boolean;
}> = [
  { name: 'callbackBaseUrl', label: 'Callback base URL' },
  { name: 'qrisCallbackUrl', label: 'QRIS callback URL' },
  { name: 'vaCallbackUrl', label: 'VA callback URL' },
  {
    name: 'callbackTokenUrl',
    label: 'Callback token URL',
    help: 'Your callbacks are signed with a SNAP B2B token: the gateway asks for it here before it sends them. Empty: the callback base URL + /api/snap/v1.0/access-token/b2b.',
    applies: (m) => m.callbackSignature === 'snap-b2b',
  },
];

const SIGNED_WITH: Record<string, string> = {
  'hmac-sha512': 'HMAC-SHA512 with your client secret',
  'rsa-sha256': 'RSA-SHA256 with the gateway’s key',
  'snap-b2b': 'a SNAP B2B token the gateway takes from you, and HMAC-SHA512',
};

/** What the merchant's portal lets it change, now. */
const portalFields = (m: MerchantRecord) =>
  PORTAL_FIELDS.filter((f) => (MERCHANT_EDITABLE as readonly string[]).includes(f.name) && (f.applies?.(m) ?? true));

/**
 * The merchant's callback URLs, and a test callback to them. A refused save shows the form again as
 * it was typed, with its problems (400, nothing changed); a save and a test callback redirect
 * (Post/Redirect/Get), a refused test callback says why on this page.
 */
export function settingsPages(p: FastifyInstance, pages: PortalPages): void {
  const { merchants, notifications } = pages.deps;
  const SETTINGS = `${pages.base}/settings`;

  const settingsPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    values: Readonly<Record<string, unknown>>,
    problems?: Html,
    status = 200,
  ) => {
    const { csrf, merchant } = pages.sessionOf(request);
    // A role that may not change them reads them (docs/merchant-users.md#roles).
    const canEdit = pages.mayPost(request, SETTINGS);
    return pages.page(
      request,
      reply,
      'Callback settings',
      'settings',
      html`<h1>Callback settings</h1>
<p class="muted" id="signed-with">Your callbacks are signed with ${SIGNED_WITH[merchant.callbackSignature] ?? merchant.callbackSignature}; your gateway operator chooses how.</p>
<section class="card">${problems ?? ''}<form method="post" action="${SETTINGS}">${csrfField(csrf)}<fieldset class="plain"${canEdit ? '' : html` disabled`}><div class="form-grid">
${portalFields(merchant).map(
  (f) =>
    html`<label>${f.label}<input name="${f.name}" type="url" value="${values[f.name] ?? ''}"${f.help ? html` aria-describedby="hint-${f.name}"` : ''}>${f.help ? html`<span class="muted hint" id="hint-${f.name}">${f.help}</span>` : ''}</label>`,
)}</div></fieldset>
${canEdit ? html`<button type="submit">Save</button>` : html`<p class="muted" id="settings-not-yours">A developer or an owner of your merchant changes these.</p>`}</form></section>
${
  canEdit
    ? html`<section class="card"><h2>Test callback</h2><p>Delivers your latest notification again (the newest transaction that has one), signed exactly as before, to the URLs above. Watch it under Deliveries.</p>
<form method="post" action="${pages.base}/test-callback">${csrfField(csrf)}<button type="submit">Send a test callback</button></form></section>`
    : ''
}`,
      status,
    );
  };

  p.get('/settings', { config }, async (request, reply) =>
    settingsPage(request, reply, { ...pages.sessionOf(request).merchant }),
  );

  p.post('/settings', { config }, async (request, reply) => {
    const before = pages.sessionOf(request).merchant;
    const fields = formOf(request);
    const patch: Record<string, string | null> = {};
    for (const { name } of portalFields(before)) {
      if (name in fields) patch[name] = fields[name]?.trim() || null;
    }
    const again = (problems: string[], status: number) =>
      settingsPage(request, reply, { ...before, ...fields }, formProblems('Nothing was saved:', problems), status);
    const parsed = patchSchema.safeParse(patch);
    if (!parsed.success) return again(issuesOf(parsed.error.issues), 400);
    let after: Awaited<ReturnType<typeof merchants.update>>;
    try {
      after = await merchants.update(before.id, parsed.data, pages.callerOf(request));
    } catch (e) {
      const r = asConsoleError(e);
      if (!r || (r.status !== 400 && r.status !== 409)) throw e;
      return again(r.problems.length > 0 ? r.problems : [r.message], r.status);
    }
    await pages.audit(request, {
      action: `${pages.actor}: edit callback URLs`,
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: merchantView(after),
    });
    return reply.redirect(`${SETTINGS}?ok=saved`, 303);
  });

  p.post('/test-callback', { config }, async (request, reply) => {
    const m = pages.sessionOf(request).merchant;
    const action = `${pages.actor}: test callback`;
    let n: Awaited<ReturnType<typeof notifications.replayLatest>>;
    try {
      n = await notifications.replayLatest(pages.callerOf(request), m.id);
    } catch (e) {
      if (!(e instanceof DomainError) || e.kind !== 'conflict') throw e;
      const target = (e as { notificationId?: string }).notificationId ?? null;
      return pages.refused(request, reply, SETTINGS, `No test callback was sent: ${e.message}.`, {
        status: 409,
        action,
        target,
      });
    }
    await pages.audit(request, { action, target: n.id, httpStatus: 202 });
    return reply.redirect(`${pages.base}/deliveries?ok=test-sent`, 303);
  });
}

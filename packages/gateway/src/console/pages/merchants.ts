import type { FastifyInstance } from 'fastify';
import {
  merchantCreateSchema as createSchema,
  merchantPatchSchema as patchSchema,
} from '../../merchants/merchant-fields.ts';
import { type MerchantRecord, merchantView } from '../../merchants/merchant-service.ts';
import { jakartaTime } from '../format.ts';
import { type Html, html } from '../html.ts';
import { blank, ConsoleError, formOf, q } from '../kit.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, csrfField, empty } from '../views.ts';

/** A form's refusal by a schema, every problem listed. */
const refused = (what: string, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) =>
  new ConsoleError(
    400,
    what,
    issues.map((i) => `${i.path.join('.')}: ${i.message}`),
  );

/** Merchants: the list, a new merchant, one merchant's page and its actions. */
export function merchantPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, sessions } = pages.deps;

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
    return pages.page(
      request,
      reply,
      'New merchant',
      'merchants',
      html`<h1>New merchant</h1>
<form method="post" action="/console/merchants" class="card">${csrfField(pages.operatorOf(request).csrf)}
<div class="form-grid">${merchantFields(undefined)}</div>
<button type="submit">Create merchant</button></form>`,
    );
  });

  op.post('/merchants', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants');
    const fields = formOf(request);
    const input: Record<string, string> = {};
    for (const f of [
      'name',
      'callbackBaseUrl',
      'qrisCallbackUrl',
      'vaCallbackUrl',
      'callbackSignature',
      'callbackJson',
      'callbackVaBody',
      'callbackAck',
    ]) {
      const v = blank(fields[f]);
      if (v !== undefined) input[f] = v;
    }
    const parsed = createSchema.safeParse(input);
    if (!parsed.success) throw refused('the merchant was not created', parsed.error.issues);
    const { merchant, clientSecret } = await merchants.create(parsed.data);
    await pages.audit(request, {
      action: 'console: create merchant',
      target: merchant.id,
      httpStatus: 201,
      fields,
      after: merchantView(merchant),
    });
    reply.header('cache-control', 'no-store');
    return pages.page(
      request,
      reply,
      'Merchant created',
      'merchants',
      html`<h1>Merchant ${merchant.name} created</h1>
<section class="card"><h2>Credentials</h2>
<p><strong>The client secret is shown this once.</strong> Copy it now and give it to the merchant; the gateway keeps it sealed and never shows it again (rotate it to get a new one).</p>
<dl class="kv"><dt>Merchant id</dt><dd id="merchant-id">${merchant.id}</dd><dt>Client key</dt><dd id="client-key">${merchant.clientKey}</dd><dt>Partner id</dt><dd>${merchant.partnerId}</dd></dl>
${secretField('client-secret', 'Client secret', clientSecret)}
<p><a class="button secondary" href="/console/merchants/${encodeURIComponent(merchant.id)}">Open the merchant</a></p></section>`,
      201,
    );
  });

  op.get<{ Params: { id: string } }>('/merchants/:id', { config }, async (request, reply) => {
    const m = await merchants.get(request.params.id);
    return pages.page(
      request,
      reply,
      m.name,
      'merchants',
      merchantPage(m, pages.operatorOf(request).csrf, {
        canEdit: pages.can(request, 'PATCH', '/admin/v1/merchants/:id'),
        canRecover: pages.can(request, 'POST', '/admin/v1/merchants/:id/recover'),
      }),
    );
  });

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
    if (!parsed.success) throw refused('nothing was saved', parsed.error.issues);
    const after = await merchants.update(before.id, parsed.data, pages.callerOf(request));
    await pages.audit(request, {
      action: 'console: edit merchant',
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: merchantView(after),
    });
    return reply.redirect(`/console/merchants/${encodeURIComponent(before.id)}?ok=saved`, 303);
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
    return reply.redirect(
      `/console/merchants/${encodeURIComponent(before.id)}?ok=${status === 'disabled' ? 'disabled' : 'enabled'}`,
      303,
    );
  });

  op.post<{ Params: { id: string } }>('/merchants/:id/rotate-secret', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants/:id/rotate-secret');
    const fields = formOf(request);
    const overlapSec = Number(fields.overlapSec ?? 86_400);
    if (!Number.isInteger(overlapSec) || overlapSec < 0 || overlapSec > 30 * 86_400) {
      throw new ConsoleError(400, 'the overlap is a whole number of seconds, at most 30 days');
    }
    const before = await merchants.get(request.params.id);
    const r = await merchants.rotateSecret(before.id, overlapSec);
    await pages.audit(request, {
      action: 'console: rotate merchant secret',
      target: before.id,
      httpStatus: 200,
      fields,
      before: merchantView(before),
      after: { clientSecret: '<redacted>', previousValidUntil: new Date(r.previousValidUntil).toISOString() },
    });
    return pages.page(
      request,
      reply,
      'Secret rotated',
      'merchants',
      html`<h1>New secret for ${before.name}</h1><section class="card">
<p><strong>Shown this once.</strong> The previous secret keeps working until ${jakartaTime(r.previousValidUntil)}.</p>
${secretField('client-secret', 'New client secret', r.clientSecret)}
<p><a class="button secondary" href="/console/merchants/${encodeURIComponent(before.id)}">Back to the merchant</a></p></section>`,
    );
  });

  op.post<{ Params: { id: string } }>('/merchants/:id/portal-link', { config }, async (request, reply) => {
    pages.need(request, 'POST', '/admin/v1/merchants/:id/portal-link');
    const { merchant: m, ...link } = await sessions.portalLink(request.params.id);
    await pages.audit(request, {
      action: 'console: create portal link',
      target: m.id,
      httpStatus: 201,
      after: { url: '<redacted>', expiresAt: link.expiresAt },
    });
    return pages.page(
      request,
      reply,
      'Portal link',
      'merchants',
      html`<h1>Portal link for ${m.name}</h1><section class="card">
<p>Send this link to the merchant over a channel you trust. It signs them in to their own portal and works until ${jakartaTime(Date.parse(link.expiresAt))}. Anyone holding it can sign in as this merchant until then.</p>
${secretField('portal-link', 'Sign-in link', link.url)}
<p><a class="button secondary" href="/console/merchants/${encodeURIComponent(m.id)}">Back to the merchant</a></p></section>`,
      201,
    );
  });
}

/** One merchant: its settings, and the actions the operator's scope allows. */
function merchantPage(m: MerchantRecord, csrf: string, o: { canEdit: boolean; canRecover: boolean }): Html {
  const base = `/console/merchants/${encodeURIComponent(m.id)}`;
  return html`<h1>${m.name} ${badge(m.status, m.status)}</h1>
<div class="grid">
<section class="card"><h2>Merchant</h2><dl class="kv">
<dt>Id</dt><dd>${m.id}</dd><dt>Client key</dt><dd>${m.clientKey}</dd><dt>Partner id</dt><dd>${m.partnerId}</dd>
<dt>QRIS name</dt><dd>${m.merchantName}, ${m.merchantCity}</dd><dt>NMID</dt><dd>${m.nmid}</dd>
<dt>Secret version</dt><dd>${m.secretVersion}${m.previousValidUntil ? html` <span class="muted">(previous secret valid until ${jakartaTime(m.previousValidUntil)})</span>` : ''}</dd>
<dt>Created</dt><dd>${jakartaTime(m.createdAt)}</dd></dl>
<p><a href="/console/transactions?merchant=${encodeURIComponent(m.id)}">Transactions</a> · <a href="/console/notifications?state=dead&amp;merchant=${encodeURIComponent(m.id)}">Dead notifications</a></p></section>
${
  o.canEdit
    ? html`<section class="card"><h2>Actions</h2>
<div class="actions">
<form method="post" action="${base}/status" data-confirm="${m.status === 'active' ? 'Disable this merchant? Its tokens stop working at once.' : 'Enable this merchant?'}">${csrfField(csrf)}
<input type="hidden" name="status" value="${m.status === 'active' ? 'disabled' : 'active'}">
<button type="submit" class="${m.status === 'active' ? 'danger' : ''}">${m.status === 'active' ? 'Disable merchant' : 'Enable merchant'}</button></form>
${m.status === 'active' ? html`<form method="post" action="${base}/portal-link">${csrfField(csrf)}<button type="submit" class="secondary">Create portal link</button></form>` : ''}
</div>
<form method="post" action="${base}/rotate-secret" class="filters" data-confirm="Rotate the client secret? The old one keeps working for the overlap only.">${csrfField(csrf)}
<label>Overlap (seconds)<input name="overlapSec" type="number" min="0" max="2592000" value="86400"></label>
<button type="submit" class="secondary">Rotate secret</button></form></section>`
    : ''
}
</div>
${
  o.canEdit
    ? html`<section class="card"><h2>Callbacks and signatures</h2>
<form method="post" action="${base}">${csrfField(csrf)}<div class="form-grid">${merchantFields(m)}</div>
<button type="submit">Save</button></form></section>`
    : html`<section class="card"><h2>Callbacks and signatures</h2><dl class="kv">
<dt>Callback base URL</dt><dd>${m.callbackBaseUrl ?? '—'}</dd><dt>QRIS callback URL</dt><dd>${m.qrisCallbackUrl ?? '—'}</dd>
<dt>VA callback URL</dt><dd>${m.vaCallbackUrl ?? '—'}</dd><dt>Callback signature</dt><dd>${m.callbackSignature}</dd><dt>Callback JSON</dt><dd>${m.callbackJson}</dd><dt>VA callback body</dt><dd>${m.callbackVaBody}</dd><dt>Acknowledged by</dt><dd>${m.callbackAck}</dd></dl></section>`
}
${
  o.canRecover
    ? html`<section class="card"><h2>Recover dead notifications</h2>
<form method="post" action="${base}/recover" class="filters">${csrfField(csrf)}
<label>Created since (WIB)<input name="since" type="datetime-local" required></label>
<button type="submit">Recover</button></form></section>`
    : ''
}`;
}

function secretField(id: string, label: string, value: string): Html {
  return html`<div class="secret"><label for="${id}">${label}</label>
<input id="${id}" readonly value="${value}">
<button type="button" data-copy="${id}">Copy</button><span id="${id}-status" role="status" class="muted"></span></div>`;
}

function merchantFields(
  m:
    | {
        name: string;
        callbackBaseUrl: string | null;
        qrisCallbackUrl: string | null;
        vaCallbackUrl: string | null;
        callbackSignature: string;
        callbackJson: string;
        callbackVaBody: string;
        callbackAck: string;
      }
    | undefined,
): Html {
  const opt = (value: string, current: string | undefined, label = value) =>
    html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<label>Name<input name="name" required maxlength="100" class="wide" value="${m?.name ?? ''}"></label>
<label>Callback base URL<input name="callbackBaseUrl" type="url" value="${m?.callbackBaseUrl ?? ''}" placeholder="https://merchant.example"></label>
<label>QRIS callback URL<input name="qrisCallbackUrl" type="url" value="${m?.qrisCallbackUrl ?? ''}"></label>
<label>VA callback URL<input name="vaCallbackUrl" type="url" value="${m?.vaCallbackUrl ?? ''}"></label>
<label>Callback signature<select name="callbackSignature">${opt('hmac-sha512', m?.callbackSignature, 'HMAC-SHA512 (merchant secret)')}${opt('rsa-sha256', m?.callbackSignature, 'RSA-SHA256 (gateway key)')}${opt('snap-b2b', m?.callbackSignature, 'SNAP B2B token')}</select></label>
<label>Callback JSON<select name="callbackJson">${opt('standard', m?.callbackJson)}${opt('php', m?.callbackJson, 'php (json_encode bytes)')}${opt('php-laravel', m?.callbackJson, 'php-laravel (json_encode, empty strings as null)')}</select></label>
<label>VA callback body<select name="callbackVaBody">${opt('standard', m?.callbackVaBody, 'standard (as QRIS)')}${opt('snap-payment', m?.callbackVaBody, 'snap-payment (SNAP VA payment shape)')}</select></label>
<label>Acknowledged by<select name="callbackAck">${opt('strict', m?.callbackAck, 'strict (2002600)')}${opt('any-200', m?.callbackAck, 'any-200 (any 200xxxx code)')}</select></label>`;
}

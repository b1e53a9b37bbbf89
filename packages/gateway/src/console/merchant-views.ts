import type { MerchantRecord } from '../merchants/merchant-service.ts';
import { jakartaTime } from './format.ts';
import { type Html, html } from './html.ts';
import { badge, csrfField } from './views.ts';

/** What the merchant forms show: a merchant's settings, or what was typed into a refused form. */
export interface MerchantFormValues {
  name?: string | null | undefined;
  callbackBaseUrl?: string | null | undefined;
  qrisCallbackUrl?: string | null | undefined;
  vaCallbackUrl?: string | null | undefined;
  callbackSignature?: string | undefined;
  callbackJson?: string | undefined;
  callbackVaBody?: string | undefined;
  callbackAck?: string | undefined;
}

/** The fields the console's create and edit forms send. */
export const MERCHANT_FORM_FIELDS = [
  'name',
  'callbackBaseUrl',
  'qrisCallbackUrl',
  'vaCallbackUrl',
  'callbackSignature',
  'callbackJson',
  'callbackVaBody',
  'callbackAck',
] as const;

export const merchantHref = (id: string) => `/console/merchants/${encodeURIComponent(id)}`;

/** A merchant's settings with what a refused form typed over them (`typed` absent: as they are). */
export function formValues(m: MerchantFormValues | undefined, typed?: Record<string, string>): MerchantFormValues {
  const out: Record<string, string | null | undefined> = { ...m };
  for (const f of MERCHANT_FORM_FIELDS) if (typed && f in typed) out[f] = typed[f];
  return out as MerchantFormValues;
}

export function merchantFields(m: MerchantFormValues | undefined): Html {
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

/** The new merchant form, empty or as a refused one was typed (`problems` says why). */
export function newMerchantForm(csrf: string, values?: MerchantFormValues, problems?: Html): Html {
  return html`<h1>New merchant</h1>
<form method="post" action="/console/merchants" class="card">${csrfField(csrf)}
${problems ?? ''}
<div class="form-grid">${merchantFields(values)}</div>
<button type="submit">Create merchant</button></form>`;
}

export interface MerchantPageOptions {
  canEdit: boolean;
  canRecover: boolean;
  /** A refused edit: what was typed, and why it was refused. */
  edit?: { values: MerchantFormValues; problems: Html };
}

/** One merchant: its settings, and the actions the operator's scope allows. */
export function merchantPage(m: MerchantRecord, csrf: string, o: MerchantPageOptions): Html {
  const base = merchantHref(m.id);
  return html`<h1>${m.name} ${badge(m.status, m.status)}</h1>
<div class="grid">
<section class="card"><h2>Merchant</h2><dl class="kv">
<dt>Id</dt><dd>${m.id}</dd><dt>Client key</dt><dd>${m.clientKey}</dd><dt>Partner id</dt><dd>${m.partnerId}</dd>
<dt>QRIS name</dt><dd>${m.merchantName}, ${m.merchantCity}</dd><dt>NMID</dt><dd>${m.nmid}</dd>
<dt>Secret version</dt><dd id="secret-version">${m.secretVersion}${m.previousValidUntil ? html` <span class="muted">(previous secret valid until ${jakartaTime(m.previousValidUntil)})</span>` : ''}</dd>
<dt>Created</dt><dd>${jakartaTime(m.createdAt)}</dd></dl>
<p><a href="/console/transactions?merchant=${encodeURIComponent(m.id)}">Transactions</a> · <a href="/console/notifications?state=dead&amp;merchant=${encodeURIComponent(m.id)}">Dead notifications</a></p></section>
${
  o.canEdit
    ? html`<section class="card"><h2>Actions</h2>
<div class="actions">
<form method="post" action="${base}/status" data-confirm="${m.status === 'active' ? 'Disable this merchant? Its tokens stop working at once.' : 'Enable this merchant?'}">${csrfField(csrf)}
<input type="hidden" name="status" value="${m.status === 'active' ? 'disabled' : 'active'}">
<button type="submit" class="${m.status === 'active' ? 'danger' : ''}">${m.status === 'active' ? 'Disable merchant' : 'Enable merchant'}</button></form>
${m.status === 'active' ? portalLinkForm(m.id, csrf) : ''}
</div>
<form method="post" action="${base}/rotate-secret" class="filters" data-confirm="Rotate the client secret? The old one keeps working for the overlap only.">${csrfField(csrf)}
<label>Overlap (seconds)<input name="overlapSec" type="number" min="0" max="2592000" value="86400"></label>
<button type="submit" class="secondary">Rotate secret</button></form></section>`
    : ''
}
</div>
${
  o.canEdit
    ? html`<section class="card" id="callbacks"><h2>Callbacks and signatures</h2>
${o.edit?.problems ?? ''}
<form method="post" action="${base}">${csrfField(csrf)}<div class="form-grid">${merchantFields(o.edit?.values ?? m)}</div>
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

export function portalLinkForm(merchantId: string, csrf: string): Html {
  return html`<form method="post" action="${merchantHref(merchantId)}/portal-link">${csrfField(csrf)}<button type="submit" class="secondary">Create portal link</button></form>`;
}

/** A value shown once, with a Copy button. */
export function secretField(id: string, label: string, value: string): Html {
  return html`<div class="secret"><label for="${id}">${label}</label>
<input id="${id}" readonly value="${value}" autocomplete="off" spellcheck="false">
<button type="button" data-copy="${id}">Copy</button><span id="${id}-status" role="status" class="muted"></span></div>`;
}

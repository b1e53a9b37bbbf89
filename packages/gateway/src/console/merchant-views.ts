import type { MerchantRecord } from '../merchants/merchant-service.ts';
import { jakartaTime } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { type Acquirer, type MerchantFormValues, merchantFields, settingsSummary } from './merchant-form.ts';
import { badge, csrfField } from './views.ts';

/** A merchant form as a refused one was typed: the values, the problems, the fields they name. */
export interface TypedForm {
  values: MerchantFormValues;
  problems: Html;
  invalid: ReadonlySet<string>;
}

export const merchantHref = (id: string) => `/console/merchants/${encodeURIComponent(id)}`;

/** The new merchant form, empty or as a refused one was typed (`typed.problems` says why). */
export function newMerchantForm(csrf: string, acquirers: readonly Acquirer[], typed?: TypedForm): Html {
  return html`<h1>New merchant</h1>
<form method="post" action="/console/merchants" class="card">${csrfField(csrf)}
${typed?.problems ?? ''}
<p class="muted">Only the name is needed: an empty field takes the gateway’s default, said in it. Every setting can be changed later on the merchant’s page.</p>
${merchantFields({ values: typed?.values ?? {}, acquirers, isNew: true, invalid: typed?.invalid })}
<button type="submit">Create merchant</button></form>`;
}

export interface MerchantPageOptions {
  canEdit: boolean;
  canRecover: boolean;
  /** The acquirers that may issue a merchant's QRIS. */
  acquirers: readonly Acquirer[];
  /** The edit form's values: the merchant's settings, or what a refused edit typed over them. */
  values: MerchantFormValues;
  /** A refused edit: why, and the fields it got wrong. */
  edit?: TypedForm;
}

/** One merchant: its settings, and the actions the operator's scope allows. */
export function merchantPage(m: MerchantRecord, csrf: string, o: MerchantPageOptions): Html {
  const base = merchantHref(m.id);
  return html`<h1>${m.name} ${badge(m.status, m.status)}</h1>
${o.edit?.problems ?? ''}
<div class="grid">
<section class="card"><h2>Merchant</h2><dl class="kv">
<dt>Id</dt><dd>${m.id}</dd><dt>Client key</dt><dd>${m.clientKey}</dd><dt>Partner id</dt><dd>${m.partnerId}</dd>
<dt>Secret version</dt><dd id="secret-version">${m.secretVersion}${m.previousValidUntil ? html` <span class="muted">(previous secret valid until ${jakartaTime(m.previousValidUntil)})</span>` : ''}</dd>
<dt>Created</dt><dd>${jakartaTime(m.createdAt)}</dd></dl>
<p><a href="/console/transactions?merchant=${encodeURIComponent(m.id)}">Transactions</a> · <a href="/console/notifications?state=dead&amp;merchant=${encodeURIComponent(m.id)}">Dead notifications</a> · <a href="${base}/certifications" id="certifications">Certification runs</a> · <a href="${base}/users" id="merchant-users">Users</a></p></section>
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
${settingsSummary(m, o.acquirers)}
${
  o.canEdit
    ? html`<section class="card" id="callbacks"><h2>Edit settings</h2>
<p class="muted">An emptied field goes back to the gateway’s default where it has one. Only what you change is saved.</p>
<form method="post" action="${base}">${csrfField(csrf)}${merchantFields({ values: o.values, acquirers: o.acquirers, isNew: false, invalid: o.edit?.invalid })}
<button type="submit">Save</button></form></section>`
    : ''
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

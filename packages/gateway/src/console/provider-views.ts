import type { ProviderRecord, StoredInboundCall } from '../providers/provider-service.ts';
import { jakartaTime } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { secretField } from './merchant-views.ts';
import { badge, csrfField, empty } from './views.ts';

type ProviderOutbound = NonNullable<ProviderRecord['outbound']>;

export const providerHref = (id: string) => `/console/providers/${encodeURIComponent(id)}`;

/** What a provider form shows, by field name (`outbound.baseUrl` for the nested ones). */
export type ProviderFormValues = Readonly<Record<string, string | null | undefined>>;

/** Never written back into a page: a refused form asks for them again. */
const SECRET_INPUTS = ['_csrf', 'outbound.clientSecret', 'outbound.privateKeyPem'];

/** A provider's settings as its edit form shows them (its secrets never). */
export function valuesOf(p: ProviderRecord): ProviderFormValues {
  const o = p.outbound;
  return {
    name: p.name,
    kind: p.kind,
    bankCode: p.bankCode,
    payOption: p.payOption,
    publicKeyPem: p.publicKeyPem,
    acquiresGatewayQris: String(p.acquiresGatewayQris),
    'outbound.baseUrl': o?.baseUrl,
    'outbound.clientKey': o?.clientKey,
    'outbound.partnerId': o?.partnerId,
    'outbound.channelId': o?.channelId,
    'outbound.tokenPath': o?.tokenPath,
    'outbound.pathPrefix': o?.pathPrefix,
  };
}

/** What a refused form had typed (over `base`), but its secrets. */
export function typedValues(typed: Record<string, string>, base: ProviderFormValues = {}): ProviderFormValues {
  const out: Record<string, string | null | undefined> = { ...base, ...typed };
  for (const f of SECRET_INPUTS) delete out[f];
  return out;
}

const opt = (value: string, current: string | null | undefined, label: string) =>
  html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
const checked = (v: string | null | undefined) => (v === 'yes' ? html` checked` : '');
/** The fields a refused form's problems are about (aria-invalid). */
export type Invalid = ReadonlySet<string>;
const NONE: Invalid = new Set();
const mark = (invalid: Invalid, name: string) => (invalid.has(name) ? html` aria-invalid="true"` : '');

function identityFields(v: ProviderFormValues, creating: boolean, bad: Invalid): Html {
  const acquirer = creating || v.kind === 'acquirer';
  // An e-wallet has a payOption, set when it is made, and no bank code.
  const wallet = !creating && v.payOption;
  return html`<label>Name<input name="name"${mark(bad, 'name')} required maxlength="100" class="wide" value="${v.name ?? ''}"></label>
${
  creating
    ? html`<label>Kind<select name="kind"${mark(bad, 'kind')}>${opt('bank', v.kind, 'bank: owns the virtual accounts of its bank code')}${opt('acquirer', v.kind, 'acquirer: notifies QRIS payments')}${opt('ewallet', v.kind, 'e-wallet: takes the payments of its wallet')}</select></label>`
    : ''
}
${wallet ? '' : html`<label>Bank code<input name="bankCode"${mark(bad, 'bankCode')}${creating ? '' : html` required`} inputmode="numeric" pattern="[0-9]{3}" maxlength="3" value="${v.bankCode ?? ''}" placeholder="014"></label>`}
${
  creating
    ? html`<div><label>Wallet (payOption)<input name="payOption"${mark(bad, 'payOption')} maxlength="32" pattern="[A-Z0-9_]{1,32}" value="${v.payOption ?? ''}" placeholder="DANA" autocapitalize="characters"></label>
<p class="muted">A bank or an acquirer has a bank code; an e-wallet has none, but the wallet it serves, as merchants name it (<code>DANA</code>, <code>OVO</code>, <code>SHOPEEPAY</code>…), and outbound settings.</p></div>`
    : ''
}
${
  acquirer
    ? html`<div><label>Acquires snapgate’s own QRIS<select name="acquiresGatewayQris"${mark(bad, 'acquiresGatewayQris')}>${opt('false', v.acquiresGatewayQris, 'No')}${opt('true', v.acquiresGatewayQris, 'Yes (one acquirer at most)')}</select></label>
<p class="muted">The QRIS snapgate issues itself, for merchants without an acquirer of their own: only this acquirer may notify them.</p></div>`
    : ''
}`;
}

function publicKeyField(v: ProviderFormValues, creating: boolean, bad: Invalid): Html {
  return html`<label>Public key (PEM)<textarea name="publicKeyPem"${mark(bad, 'publicKeyPem')} class="report" rows="5" spellcheck="false" placeholder="-----BEGIN PUBLIC KEY-----">${v.publicKeyPem ?? ''}</textarea></label>
<p class="muted">Verifies the provider’s token requests (SHA256withRSA, RSA of 2048 bits or more). ${creating ? 'Left empty' : 'Emptied'}, the provider signs them HMAC-SHA256 with its client secret, which only sandbox mode accepts.</p>`;
}

/** The outbound settings of an acquirer (`current`: those set now, whose secrets an empty field keeps). */
function outboundFields(v: ProviderFormValues, current: ProviderOutbound | null, bad: Invalid): Html {
  const keep = 'set: leave empty to keep it';
  return html`<fieldset class="group" id="outbound-fields"${mark(bad, 'outbound')}><legend>Outbound: snapgate calls this provider</legend>
<p class="muted">For an acquirer that issues the QRIS of the merchants naming it (docs/upstream.md), and for every e-wallet (docs/ewallets.md#connecting-a-wallet): the SNAP client credentials snapgate holds there.${current ? '' : ' Leave them all empty for an acquirer snapgate does not call.'} The secrets are never shown.</p>
<div class="form-grid">
<label>Base URL (origin only)<input name="outbound.baseUrl"${mark(bad, 'outbound.baseUrl')} type="url" value="${v['outbound.baseUrl'] ?? ''}" placeholder="https://api.acquirer.example"></label>
<label>Client key<input name="outbound.clientKey"${mark(bad, 'outbound.clientKey')} class="wide" maxlength="128" value="${v['outbound.clientKey'] ?? ''}" autocomplete="off"></label>
<label>Client secret<input name="outbound.clientSecret"${mark(bad, 'outbound.clientSecret')} class="wide" type="password" maxlength="512" autocomplete="new-password" placeholder="${current ? keep : ''}"></label>
<label>Partner id<input name="outbound.partnerId"${mark(bad, 'outbound.partnerId')} class="wide" maxlength="64" value="${v['outbound.partnerId'] ?? ''}"></label>
<label>Channel id<input name="outbound.channelId"${mark(bad, 'outbound.channelId')} class="wide" maxlength="5" value="${v['outbound.channelId'] ?? ''}" placeholder="95221"></label>
<label>Token path<input name="outbound.tokenPath"${mark(bad, 'outbound.tokenPath')} class="wide" value="${v['outbound.tokenPath'] ?? ''}" placeholder="/api/snap/v1.0/access-token/b2b"></label>
<label>Path prefix<input name="outbound.pathPrefix"${mark(bad, 'outbound.pathPrefix')} class="wide" value="${v['outbound.pathPrefix'] ?? ''}" placeholder="/api/snap/v1.0"></label>
</div>
<label>Private key (PEM)<textarea name="outbound.privateKeyPem"${mark(bad, 'outbound.privateKeyPem')} class="report" rows="4" spellcheck="false" autocomplete="off" placeholder="${current?.privateKeyPem ? keep : '-----BEGIN PRIVATE KEY-----'}"></textarea></label>
<p class="muted">Signs snapgate’s token request at the acquirer (SHA256withRSA); without one, HMAC-SHA256 with the client secret.</p>
${current?.privateKeyPem ? html`<label class="check"><input type="checkbox" name="clearPrivateKey" value="yes"${checked(v.clearPrivateKey)}> Remove the private key (sign the token request HMAC-SHA256)</label>` : ''}
${current && !v.payOption ? html`<label class="check"><input type="checkbox" name="clearOutbound" value="yes"${checked(v.clearOutbound)}> Remove the outbound settings: snapgate stops calling this acquirer</label>` : ''}
</fieldset>`;
}

/** The new provider form, empty or as a refused one was typed (`problems` says why). */
export function newProviderForm(
  csrf: string,
  values: ProviderFormValues = {},
  refused?: { problems: Html; invalid: Invalid },
): Html {
  const bad = refused?.invalid ?? NONE;
  return html`<h1>New provider</h1>
<p>A <strong>bank</strong> owns the virtual accounts of its bank code and calls snapgate when one is paid; an <strong>acquirer</strong> notifies QRIS payments; an <strong>e-wallet</strong> takes the payments of its wallet, which snapgate makes there over SNAP Direct Debit. The provider gets a client key and a client secret, shown once, to take its B2B token.</p>
<form method="post" action="/console/providers" class="card" id="provider-form">${csrfField(csrf)}
${refused?.problems ?? ''}
<div class="form-grid">${identityFields(values, true, bad)}</div>
${publicKeyField(values, true, bad)}
${outboundFields(values, null, bad)}
<p><button type="submit">Create provider</button></p></form>`;
}

/** The providers, with their calls of the last day. */
export function providerTable(items: readonly ProviderRecord[], calls: Record<string, number>): Html {
  if (items.length === 0) return empty('No provider is registered.');
  return html`<div class="table-wrap"><table class="stack" id="providers"><thead><tr><th>Name</th><th>Kind</th><th>Bank code</th><th>Outbound</th><th>Status</th><th class="num">Calls (24 h)</th></tr></thead><tbody>${items.map(
    (p) =>
      html`<tr><td data-label="Name"><a href="${providerHref(p.id)}">${p.name}</a>${p.isSandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td data-label="Kind">${p.kind}</td><td data-label="Bank code">${p.payOption ? '—' : p.bankCode}</td><td data-label="Outbound">${p.outbound?.baseUrl ?? '—'}</td><td data-label="Status" class="status">${badge(p.status, p.status)}</td><td data-label="Calls (24 h)" class="num">${calls[p.id] ?? 0}</td></tr>`,
  )}</tbody></table></div>`;
}

export interface ProviderPageOptions {
  csrf: string;
  now: number;
  canEdit: boolean;
  canRotate: boolean;
  /** A refused edit: what was typed, and why it was refused. */
  edit?: { values: ProviderFormValues; problems: Html; invalid: Invalid };
  /** A refused rotation: the overlap typed, and why. */
  rotate?: { overlapSec: string; problems: Html };
  calls: readonly StoredInboundCall[];
  olderHref?: string | undefined;
}

/** One provider: its settings (no secret), the actions the operator's scope allows, its inbound log. */
export function providerPage(p: ProviderRecord, o: ProviderPageOptions): Html {
  const base = providerHref(p.id);
  const active = p.status === 'active';
  return html`<h1>${p.name} ${badge(p.status, p.status)}${p.isSandbox ? html` <span class="badge">sandbox</span>` : ''}</h1>
<div class="grid">
${detailsCard(p, o.now)}
${outboundCard(p)}
</div>
${
  o.canEdit || o.canRotate
    ? html`<section class="card" id="actions"><h2>Actions</h2>
${
  o.canEdit
    ? html`<div class="actions"><form method="post" action="${base}/status" id="status-form" data-confirm="${active ? 'Disable this provider? Its tokens stop working at once and its calls are refused until it is enabled again.' : 'Enable this provider? It can take a new token and call the gateway again.'}">${csrfField(o.csrf)}
<input type="hidden" name="status" value="${active ? 'disabled' : 'active'}">
<button type="submit" class="${active ? 'danger' : ''}">${active ? 'Disable provider' : 'Enable provider'}</button></form></div>`
    : ''
}
${
  o.canRotate
    ? html`<h3>Rotate the client secret</h3>
${o.rotate?.problems ?? ''}
<form method="post" action="${base}/rotate-secret" id="rotate-form" class="filters" data-confirm="Rotate the client secret? The old one keeps working for the overlap only.">${csrfField(o.csrf)}
<label>Overlap (seconds)<input name="overlapSec"${o.rotate ? html` aria-invalid="true"` : ''} inputmode="numeric" pattern="[0-9]+" value="${o.rotate?.overlapSec ?? '86400'}"></label>
<button type="submit" class="secondary">Rotate secret</button></form>
<p class="muted">The new secret is shown once. The previous one keeps working for the overlap: 0 stops it at once, at most 30 days (2592000).</p>`
    : ''
}</section>`
    : ''
}
${
  o.canEdit
    ? html`<section class="card" id="edit"><h2>Edit settings</h2>
${o.edit?.problems ?? ''}
<form method="post" action="${base}" id="edit-form">${csrfField(o.csrf)}
${editFields(p, o.edit)}
<p><button type="submit">Save</button></p></form></section>`
    : ''
}
${inboundLog(o.calls, o.olderHref)}`;
}

/** How long the secret before the last rotation works (an overlap of 0 stopped it at once). */
function previousSecret(until: number | null, now: number): string {
  if (until === null || !Number.isFinite(until)) return '';
  return until > now
    ? `The previous secret keeps working until ${jakartaTime(until)}.`
    : `The previous secret stopped working at ${jakartaTime(until)}.`;
}

function editFields(p: ProviderRecord, edit: ProviderPageOptions['edit']): Html {
  const v = edit?.values ?? valuesOf(p);
  const bad = edit?.invalid ?? NONE;
  return html`<div class="form-grid">${identityFields(v, false, bad)}</div>
${publicKeyField(v, false, bad)}
${p.kind === 'acquirer' || (p.payOption && !p.isSandbox) ? outboundFields(v, p.outbound, bad) : ''}`;
}

/** What each kind of provider does, in words. */
const KIND_TEXT: Record<ProviderRecord['kind'], string> = {
  bank: 'bank: owns the virtual accounts of its bank code',
  acquirer: 'acquirer: notifies QRIS payments',
  ewallet: 'e-wallet: notifies the e-wallet payments of its wallet',
};

function detailsCard(p: ProviderRecord, now: number): Html {
  return html`<section class="card" id="provider-details"><h2>Provider</h2><dl class="kv">
<dt>Id</dt><dd id="provider-id">${p.id}</dd>
<dt>Kind</dt><dd>${KIND_TEXT[p.kind]}</dd>
${p.payOption ? html`<dt>Wallet</dt><dd id="pay-option">${p.payOption}</dd>` : html`<dt>Bank code</dt><dd id="bank-code">${p.bankCode}</dd>`}
<dt>Client key</dt><dd id="client-key">${p.clientKey}</dd>
<dt>Client secret</dt><dd id="secret-version">version ${p.secretVersion}, never shown${p.previousValidUntil ? html` <span class="muted">${previousSecret(p.previousValidUntil, now)}</span>` : ''}</dd>
<dt>Token requests</dt><dd id="token-signature">${p.publicKeyPem ? 'SHA256withRSA, verified with its public key' : 'HMAC-SHA256 with its client secret (no public key: sandbox mode only)'}</dd>
${p.kind === 'acquirer' ? html`<dt>Acquires snapgate’s own QRIS</dt><dd id="acquires-gateway-qris">${p.acquiresGatewayQris ? 'yes' : 'no'}</dd>` : ''}
${p.kind === 'bank' ? html`<dt>Payout bank</dt><dd id="payout-bank">${p.payouts ? `yes: snapgate pays out through it, from account ${p.payouts.sourceAccountNo}` : 'no'}</dd>` : ''}
<dt>Created</dt><dd>${jakartaTime(p.createdAt)}</dd><dt>Updated</dt><dd>${jakartaTime(p.updatedAt)}</dd></dl>
${p.publicKeyPem ? html`<details><summary>Public key</summary><pre>${p.publicKeyPem}</pre></details>` : ''}</section>`;
}

/** Why a provider has no outbound settings, by its kind. */
function outboundNone(p: ProviderRecord): string {
  if (p.payOption) return 'None: the sandbox wallet is the gateway’s own.';
  return p.kind === 'acquirer'
    ? 'None: snapgate does not call this acquirer.'
    : 'None: a bank calls snapgate; snapgate calls a bank only as its payout bank.';
}

function outboundCard(p: ProviderRecord): Html {
  const o = p.outbound;
  return html`<section class="card" id="outbound"><h2>Outbound settings</h2>${
    o
      ? html`<dl class="kv">
<dt>Base URL</dt><dd id="outbound-base-url">${o.baseUrl}</dd><dt>Client key</dt><dd>${o.clientKey}</dd>
<dt>Client secret</dt><dd>set, never shown</dd><dt>Partner id</dt><dd>${o.partnerId}</dd><dt>Channel id</dt><dd>${o.channelId}</dd>
<dt>Token path</dt><dd>${o.tokenPath}</dd><dt>Path prefix</dt><dd>${o.pathPrefix}</dd>
<dt>Token request</dt><dd id="outbound-signature">${o.privateKeyPem ? 'SHA256withRSA with the private key set here (never shown)' : 'HMAC-SHA256 with the client secret'}</dd></dl>`
      : html`<p id="outbound-none">${outboundNone(p)}</p>`
  }</section>`;
}

function inboundLog(calls: readonly StoredInboundCall[], olderHref: string | undefined): Html {
  return html`<h2>Inbound log</h2>
${
  calls.length === 0
    ? empty('This provider has not called the gateway yet.')
    : calls.map(
        (
          c,
        ) => html`<details><summary>${jakartaTime(c.at)} · ${c.method} ${c.path} · HTTP ${c.httpStatus} ${c.responseCode ?? ''} · ${c.durationMs} ms</summary>
<h4>Request body</h4><pre>${c.requestBody}</pre><h4>Response body</h4><pre>${c.responseBody}</pre></details>`,
      )
}
${olderHref ? html`<nav class="pager"><a href="${olderHref}">Older →</a></nav>` : ''}`;
}

/** After a new provider is created: its credentials, the client secret shown this once. */
export function createdView(p: ProviderRecord, secret: string | undefined): Html {
  return html`<h1>Provider ${p.name} created</h1>
<section class="card"><h2>Credentials</h2>
${
  secret
    ? html`<p id="shown-once"><strong>The client secret is shown this once.</strong> Copy it now and give it, with the client key, to the ${p.kind} over a channel you trust: it takes its B2B token at <code>/api/snap/v1.0/access-token/b2b</code> with them. The gateway keeps the secret sealed: neither reloading nor coming back to this page shows it again.</p>`
    : html`<p id="shown-once" class="flash error"><strong>The client secret was shown once</strong>, right after the provider was created, and is not shown again: the gateway keeps it sealed. To give the provider a new one, rotate the secret on its page (the old one keeps working for the overlap you choose).</p>`
}
<dl class="kv"><dt>Provider id</dt><dd id="provider-id">${p.id}</dd><dt>Kind</dt><dd>${p.kind}</dd>${p.payOption ? html`<dt>Wallet</dt><dd>${p.payOption}</dd>` : html`<dt>Bank code</dt><dd>${p.bankCode}</dd>`}<dt>Client key</dt><dd id="client-key">${p.clientKey}</dd><dt>Created</dt><dd>${jakartaTime(p.createdAt)}</dd></dl>
${secret ? secretField('client-secret', 'Client secret', secret) : ''}
<p><a class="button secondary" href="${providerHref(p.id)}">Open the provider</a></p></section>`;
}

/** After a rotation: the new client secret shown this once. */
export function rotatedView(
  p: ProviderRecord,
  shown: { clientSecret: string; until: number } | undefined,
  now: number,
): Html {
  return html`<h1>New secret for ${p.name}</h1><section class="card">
${
  shown
    ? html`<p id="shown-once"><strong>Shown this once.</strong> Copy it now and give it to the provider: neither reloading nor coming back to this page shows it again. ${previousSecret(shown.until, now)}</p>
${secretField('client-secret', 'New client secret', shown.clientSecret)}`
    : html`<p id="shown-once" class="flash error"><strong>The new client secret was shown once</strong>, right after the rotation, and is not shown again: the gateway keeps it sealed. If it was not copied, rotate the secret again on the provider’s page.</p>`
}
<dl class="kv"><dt>Client key</dt><dd id="client-key">${p.clientKey}</dd><dt>Secret version</dt><dd id="secret-version">${p.secretVersion}</dd></dl>
<p><a class="button secondary" href="${providerHref(p.id)}">Back to the provider</a></p></section>`;
}

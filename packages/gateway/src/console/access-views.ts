import type { AdminKeyRecord } from '../operators/admin-keys.ts';
import type { StoredAuditEntry } from '../operators/audit-log.ts';
import type { MasterKeyStatus } from '../operators/master-keys.ts';
import { jakartaTime, prettyJson } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { badge, csrfField, empty } from './views.ts';

export const ACCESS_HREF = '/console/access';
export const AUDIT_HREF = '/console/access/audit';
export const MASTER_KEY_HREF = '/console/access/master-key';
export const keyHref = (id: string) => `${ACCESS_HREF}/keys/${encodeURIComponent(id)}`;

const TABS: Array<[string, string, string]> = [
  ['keys', 'Admin keys', ACCESS_HREF],
  ['audit', 'Audit log', AUDIT_HREF],
  ['master-key', 'Master keys', MASTER_KEY_HREF],
];

/** The Access area's own navigation; the master keys only for a key that may look at them. */
export function accessTabs(current: string, showMasterKeys: boolean): Html {
  return html`<nav class="tabs" aria-label="Access">${TABS.filter(([k]) => k !== 'master-key' || showMasterKeys).map(
    ([k, label, href]) => html`<a href="${href}"${k === current ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>`;
}

export interface KeyListOptions {
  /** The key the operator is signed in with. */
  ownKeyId: string;
  csrf: string;
  canRevoke: boolean;
}

/** Every admin key, newest first, with Revoke on the active ones when the scope allows it. */
export function keyTable(keys: readonly AdminKeyRecord[], o: KeyListOptions): Html {
  if (keys.length === 0) return empty('No admin key.');
  const revokeForm = (k: AdminKeyRecord) => {
    const own = k.id === o.ownKeyId;
    const question = own
      ? `Revoke ${k.name}? This is the key you are signed in with: revoking it signs you out, here and in every browser using it, and the admin API refuses it from now on.`
      : `Revoke ${k.name}? The admin API and the console refuse it at once, on every instance; this cannot be undone.`;
    return html`<form class="inline" method="post" action="${keyHref(k.id)}/revoke" data-confirm="${question}">${csrfField(o.csrf)}<button type="submit" class="danger">Revoke</button></form>`;
  };
  return html`<div class="table-wrap"><table class="stack" id="admin-keys">
<thead><tr><th>Name</th><th>Scope</th><th>Id</th><th>Created</th><th>Last used</th><th>State</th>${o.canRevoke ? html`<th></th>` : ''}</tr></thead>
<tbody>${[...keys].reverse().map(
    (k) => html`<tr id="key-${k.id}">
<td data-label="Name"><span>${k.name}${k.id === o.ownKeyId ? html` <span class="muted">(you)</span>` : ''}</span></td>
<td data-label="Scope">${k.scope}</td>
<td data-label="Id"><code>${k.id}</code></td>
<td data-label="Created">${jakartaTime(k.createdAt)}</td>
<td data-label="Last used">${k.lastUsedAt === null ? 'never' : jakartaTime(k.lastUsedAt)}</td>
<td data-label="State">${k.revokedAt === null ? badge('active', 'active') : html`<span>${badge('disabled', 'revoked')} <span class="muted">${jakartaTime(k.revokedAt)}</span></span>`}</td>
${o.canRevoke ? html`<td data-label="">${k.revokedAt === null ? revokeForm(k) : ''}</td>` : ''}</tr>`,
  )}</tbody></table></div>`;
}

const SCOPES: Array<[string, string]> = [
  ['read', 'read: every page and GET, nothing changed'],
  ['operate', 'operate: also replays, recovery and the sandbox'],
  ['admin', 'admin: everything, admin keys and master keys too'],
  ['approve', 'approve: approves and rejects payouts, nothing else'],
];

/** The new admin key form, empty or as a refused one was typed (`problems` says why). */
export function newKeyForm(csrf: string, typed?: Record<string, string>, problems?: Html): Html {
  const scope = typed?.scope ?? 'read';
  return html`<section class="card" id="new-key"><h2>New admin key</h2>
${problems ?? ''}
<form method="post" action="${ACCESS_HREF}/keys">${csrfField(csrf)}
<div class="form-grid">
<label>Name<input name="name" required maxlength="64" autocomplete="off" spellcheck="false" value="${typed?.name ?? ''}" aria-describedby="key-name-rule"></label>
<label>Scope<select name="scope">${SCOPES.map(
    ([value, label]) => html`<option value="${value}"${value === scope ? html` selected` : ''}>${label}</option>`,
  )}</select></label>
</div>
<p class="muted" id="key-name-rule">The name is unique, 1 to 64 letters, digits, dot, dash or underscore, starting with a letter or digit; the audit log shows it. The key itself is shown once, on the next page: the gateway keeps only its SHA-256.</p>
<button type="submit">Create admin key</button></form></section>`;
}

/** A new key's page: the key shown once (`key`), or that it was shown already. */
export function createdKeyPage(k: AdminKeyRecord, key: string | undefined, secretField: Html | undefined): Html {
  return html`<h1>Admin key ${k.name} created</h1>
<section class="card">
${
  key
    ? html`<p id="shown-once"><strong>The key is shown this once.</strong> Copy it now: the gateway keeps only its SHA-256, and neither reloading nor coming back to this page shows it again.</p>`
    : html`<p id="shown-once" class="flash error"><strong>The key was shown once</strong>, right after it was created, and is not shown again: the gateway keeps only its SHA-256. If it was not copied, revoke it and create another.</p>`
}
<dl class="kv"><dt>Name</dt><dd id="key-name">${k.name}</dd><dt>Scope</dt><dd id="key-scope">${k.scope}</dd><dt>Id</dt><dd id="key-id"><code>${k.id}</code></dd><dt>Created</dt><dd>${jakartaTime(k.createdAt)}</dd></dl>
${secretField ?? ''}
<p class="muted">Use it as <code>Authorization: Bearer &lt;key&gt;</code> with the admin API, as <code>SNAPGATE_ADMIN_TOKEN</code> for the <code>snapgate</code> CLI, or to log in to this console. It can do what its scope allows, no more.</p>
<p><a class="button secondary" href="${ACCESS_HREF}">Back to the admin keys</a></p></section>`;
}

/** The audit log's filters: the admin API's query names, as typed (a new filter starts at the newest row). */
export function auditFilters(typed: Record<string, string | undefined>): Html {
  return html`<form class="filters card" method="get" action="${AUDIT_HREF}" role="search">
<label>Target (an id: merchant, key, transaction…)<input name="target" value="${typed.target ?? ''}" autocomplete="off" spellcheck="false"></label>
<label>Rows per page (1 to 500)<input name="limit" inputmode="numeric" size="5" value="${typed.limit ?? ''}" placeholder="50"></label>
<button type="submit" class="secondary">Filter</button> <a href="${AUDIT_HREF}">Clear</a></form>`;
}

const outcome = (status: number) =>
  status === 0 ? badge('pending', 'not finished') : badge(status >= 400 ? 'error' : 'ok', String(status));

/**
 * Audit rows, newest first, one `tbody` each: the row, then its request, before and after (redacted
 * when the row was written), folded under it across the whole width.
 */
export function auditTable(rows: readonly StoredAuditEntry[], filterHref: (target: string) => string): Html {
  if (rows.length === 0) return empty('No audit row matches these filters.');
  const block = (cls: string, title: string, text: string | null) =>
    html`<div><h4>${title}</h4><pre class="${cls}">${prettyJson(text, '—')}</pre></div>`;
  return html`<div class="table-wrap"><table class="stack" id="audit">
<thead><tr><th>When</th><th>Key</th><th>Action</th><th>Target</th><th>Status</th><th>From</th></tr></thead>
${rows.map(
  (a) => html`<tbody class="entry" id="audit-${a.id}"><tr>
<td data-label="When">${jakartaTime(a.at)}</td>
<td data-label="Key"><span>${a.keyName} <span class="muted">${a.keyId}</span></span></td>
<td data-label="Action">${a.action}</td>
<td data-label="Target">${a.target === null ? '—' : html`<a href="${filterHref(a.target)}">${a.target}</a>`}</td>
<td data-label="Status">${outcome(a.httpStatus)}</td>
<td data-label="From">${a.address}</td></tr>
<tr class="audit-details"><td colspan="6" data-label=""><details><summary>Row ${a.id}: <code>${a.method} ${a.path}</code>, its request, before and after</summary>
<div class="grid">${block('audit-request', 'Request body', a.request)}${block('audit-before', 'Before', a.before)}${block('audit-after', 'After', a.after)}</div></details></td></tr></tbody>`,
)}</table></div>`;
}

/** The master keys: which seals new secrets, which only open, how many secrets each seals. */
export function masterKeyTable(s: MasterKeyStatus): Html {
  const rows: Array<[string, string, number]> = s.configuredKeyIds.map((id) => [
    id,
    id === s.currentKeyId
      ? 'current: SNAPGATE_MASTER_KEY, seals new secrets'
      : 'previous: SNAPGATE_MASTER_KEY_PREVIOUS, opens but does not seal',
    s.secretsByKeyId[id] ?? 0,
  ]);
  for (const [id, n] of Object.entries(s.secretsByKeyId)) {
    if (s.configuredKeyIds.includes(id)) continue;
    rows.push([id, id === 'clear' ? 'not sealed (stored in clear)' : 'not configured: cannot be opened', n]);
  }
  return html`<div class="table-wrap"><table class="stack" id="master-keys">
<thead><tr><th>Key id</th><th>Role</th><th class="num">Secrets sealed</th></tr></thead>
<tbody>${rows.map(
    ([id, role, n]) => html`<tr id="mk-${id}">
<td data-label="Key id"><code>${id}</code></td>
<td data-label="Role"><span>${id === s.currentKeyId ? html`${badge('active', 'current')} ` : ''}${role}</span></td>
<td data-label="Secrets sealed" class="num">${n}</td></tr>`,
  )}</tbody></table></div>`;
}

/** How many stored secrets are sealed under another key than the current one. */
export const notUnderCurrent = (s: MasterKeyStatus) =>
  Object.entries(s.secretsByKeyId)
    .filter(([id]) => id !== s.currentKeyId)
    .reduce((sum, [, n]) => sum + n, 0);

/** When to re-seal, in plain words, and the button for a key whose scope allows it. */
export function resealSection(s: MasterKeyStatus, csrf: string | undefined): Html {
  const waiting = notUnderCurrent(s);
  return html`<section class="card" id="reseal"><h2>Re-seal every secret under the current key</h2>
<p>The gateway keeps merchants’ and providers’ secrets sealed (AES-256-GCM) under the master key <code>SNAPGATE_MASTER_KEY</code>. To change that key: set the new key as <code>SNAPGATE_MASTER_KEY</code> and keep the old one as <code>SNAPGATE_MASTER_KEY_PREVIOUS</code>, on every instance (a rolling restart, see docs/operations.md, “Rotating the master key”). New secrets are then sealed under the new key, but those stored before stay under the old one, which must stay configured. <strong>Then re-seal</strong>: every stored secret is rewritten under the current key, in one database transaction. The secrets themselves do not change, so no merchant or provider notices. Once the table shows every secret under the current key, restart the instances without <code>SNAPGATE_MASTER_KEY_PREVIOUS</code>.</p>
<p id="reseal-state">${
    waiting === 0
      ? 'Every stored secret is sealed under the current key: there is nothing to re-seal now.'
      : `${waiting} stored ${waiting === 1 ? 'secret is' : 'secrets are'} sealed under another key than the current one.`
  }</p>
${
  csrf === undefined
    ? html`<p class="muted">Re-sealing needs an admin key.</p>`
    : html`<form method="post" action="${MASTER_KEY_HREF}/reseal" data-confirm="Re-seal every stored secret under the current master key ${s.currentKeyId}? Keep SNAPGATE_MASTER_KEY_PREVIOUS configured until this is done on the database every instance uses.">${csrfField(csrf)}<button type="submit">Re-seal every secret under the current key</button></form>`
}</section>`;
}

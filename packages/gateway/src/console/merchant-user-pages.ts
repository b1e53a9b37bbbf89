import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MerchantUserView } from '../merchants/merchant-users.ts';
import { MERCHANT_ROLES } from '../records/merchant-user-records.ts';
import { jakartaTime } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { asConsoleError, type audit, formOf, type Refusal } from './kit.ts';
import { secretField } from './merchant-views.ts';
import { type ConsoleDeps, config } from './operator.ts';
import { badge, csrfField, empty } from './views.ts';

// A merchant's users (docs/merchant-users.md), alike in the operator's console (any merchant's, by
// an admin key that may) and in the merchant dashboard (its own, by an owner): listed with their
// role, status and two-factor sign-in; invited (the invitation link shown once, as a secret is),
// given another role, invited again, their two-factor reset, disabled. The same service and rules
// as the admin API's routes.

/** What a request may be refused: reading the users, or one of the changes. */
export type UserAction = 'list' | 'invite' | 'role' | 'reinvite' | 'reset-two-factor' | 'disable';

/** What the console and the dashboard give these pages. */
export interface UsersHost {
  deps: ConsoleDeps;
  /** The users page's route in the host's scope: `/merchants/:id/users`, `/users`. */
  route: string;
  /** Who acts, as the audit log's actions name it: `console`, `dashboard`. */
  actor: 'console' | 'dashboard';
  /** The merchant a request is about (the console: its path's; the dashboard: the signed-in one), and its users page. */
  merchantOf(request: FastifyRequest): Promise<{ id: string; name: string; href: string }>;
  csrfOf(request: FastifyRequest): string;
  /** Whether the request may change users: its forms are offered only then. */
  canEdit(request: FastifyRequest): boolean;
  /** Refuses (403) what the request may not do. */
  need(request: FastifyRequest, action: UserAction): void;
  /** The signed-in user's own id, if a user: their own row offers nothing (another owner changes it). */
  selfOf(request: FastifyRequest): string | undefined;
  page(request: FastifyRequest, reply: FastifyReply, title: string, body: Html): FastifyReply;
  audit(request: FastifyRequest, entry: Parameters<typeof audit>[3]): Promise<void>;
  refused(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    why: string,
    refusal: Refusal,
  ): Promise<FastifyReply>;
  done(request: FastifyRequest, reply: FastifyReply, path: string, text: string): FastifyReply;
  showOnce(request: FastifyRequest, reply: FastifyReply, path: string, value: Record<string, string>): FastifyReply;
  takeOnce(request: FastifyRequest, reply: FastifyReply): Record<string, string> | undefined;
  /** Below the pages: a way back (the console: to the merchant). */
  back?(merchant: { id: string; href: string }): Html;
}

const roleOptions = (selected: string) =>
  MERCHANT_ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`);

export function merchantUserPages(scope: FastifyInstance, host: UsersHost): void {
  const { users } = host.deps;
  const { route } = host;
  const act = (what: string) => `${host.actor}: ${what}`;
  type Params = { Params: { id?: string; userId: string } };

  /** A refused action: back to the users page, which says why once. */
  async function refusedOr(
    request: FastifyRequest,
    reply: FastifyReply,
    merchant: { id: string; href: string },
    action: string,
    run: () => Promise<unknown>,
  ): Promise<FastifyReply | undefined> {
    try {
      await run();
      return undefined;
    } catch (e) {
      const refusal = asConsoleError(e);
      if (!refusal || refusal.status >= 500 || refusal.status === 404) throw e;
      const why = [refusal.message, ...refusal.problems].join(': ');
      return host.refused(request, reply, merchant.href, `Not done: ${why}`, {
        status: refusal.status === 409 ? 409 : 400,
        action,
        target: merchant.id,
      });
    }
  }

  /** The merchant, and the user named in the path (another merchant's is not found), for a change of it. */
  async function userOf(request: FastifyRequest<Params>, action: UserAction) {
    host.need(request, action);
    const merchant = await host.merchantOf(request);
    const user = await users.get(merchant.id, request.params.userId);
    if (host.selfOf(request) === user.id) {
      return { merchant, user, self: true as const };
    }
    return { merchant, user, self: false as const };
  }

  /** Your own account is changed by another owner (or the operator): no owner locks themselves out. */
  const refuseSelf = (
    request: FastifyRequest,
    reply: FastifyReply,
    merchant: { id: string; href: string },
    action: string,
  ) =>
    host.refused(
      request,
      reply,
      merchant.href,
      'Not done: your own account is changed by another owner, or by your gateway operator.',
      {
        status: 409,
        action,
        target: merchant.id,
      },
    );

  /** A user's row, its forms (with the session's CSRF token) when the request may change users. */
  function userRow(u: MerchantUserView, base: string, csrf: string, canEdit: boolean, self: string | undefined): Html {
    const at = `${base}/${encodeURIComponent(u.id)}`;
    const actions = canEdit && u.status !== 'disabled' && u.id !== self;
    return html`<tr id="user-${u.id}">
<td data-label="Email" class="ids">${u.email}${u.id === self ? html` <span class="muted">(you)</span>` : ''}</td>
<td data-label="Role">${
      actions
        ? html`<form method="post" action="${at}/role" class="inline">${csrfField(csrf)}<select aria-label="Role of ${u.email}" name="role">${roleOptions(u.role)}</select> <button type="submit" class="secondary">Change</button></form>`
        : u.role
    }</td>
<td data-label="Status">${badge(u.status, u.status)}</td>
<td data-label="Two-factor">${u.twoFactor ? 'on' : 'off'}</td>
<td data-label="Last sign-in">${u.lastSignInAt === null ? '–' : jakartaTime(u.lastSignInAt)}</td>
<td data-label="Actions">${
      actions
        ? html`<div class="actions">${
            u.status === 'invited'
              ? html`<form method="post" action="${at}/invitation">${csrfField(csrf)}<button type="submit" class="secondary">Invite again</button></form>`
              : ''
          }${
            u.twoFactor
              ? html`<form method="post" action="${at}/reset-two-factor" data-confirm="Turn two-factor sign-in off for ${u.email}? Their sessions end; they sign in with the password and set it up again.">${csrfField(csrf)}<button type="submit" class="secondary">Reset two-factor</button></form>`
              : ''
          }<form method="post" action="${at}/disable" data-confirm="Disable ${u.email}? Their sessions end at once, for good.">${csrfField(csrf)}<button type="submit" class="danger">Disable</button></form></div>`
        : ''
    }</td></tr>`;
  }

  scope.get(route, { config }, async (request, reply) => {
    host.need(request, 'list');
    const m = await host.merchantOf(request);
    const list = await users.list(m.id);
    const csrf = host.csrfOf(request);
    const canEdit = host.canEdit(request);
    return host.page(
      request,
      reply,
      `Users of ${m.name}`,
      html`<h1>Users of ${m.name}</h1>
<p class="muted">They sign in themselves at <code>/merchant</code>, each with a password, a role and, if they turn it on, a code from an authenticator app.</p>
${
  canEdit
    ? html`<section class="card"><h2>Invite a user</h2>
<form method="post" action="${m.href}" class="filters">${csrfField(csrf)}
<label>Email<input name="email" type="email" maxlength="254" required></label>
<label>Role<select name="role">${roleOptions('viewer')}</select></label>
<button type="submit">Invite</button></form>
<p class="muted">Owner: everything, and the users. Finance: money (refunds). Developer: callback settings, deliveries, replay, the client secret. Viewer: read only.</p></section>`
    : ''
}
<section class="card"><h2>Users</h2>${
        list.length === 0
          ? empty('No users yet.')
          : html`<div class="table-wrap"><table class="stack" id="users">
<thead><tr><th>Email</th><th>Role</th><th>Status</th><th>Two-factor</th><th>Last sign-in</th><th>Actions</th></tr></thead>
<tbody>${list.map((u) => userRow(u, m.href, csrf, canEdit, host.selfOf(request)))}</tbody></table></div>`
      }</section>
${host.back?.(m) ?? ''}`,
    );
  });

  scope.post(route, { config }, async (request, reply) => {
    host.need(request, 'invite');
    const m = await host.merchantOf(request);
    const fields = formOf(request);
    let made: Awaited<ReturnType<typeof users.invite>> | undefined;
    const refused = await refusedOr(request, reply, m, act('invite merchant user'), async () => {
      made = await users.invite(m.id, { email: fields.email, role: fields.role });
    });
    if (refused || !made) return refused;
    await host.audit(request, {
      action: act('invite merchant user'),
      target: made.user.id,
      httpStatus: 201,
      after: { ...made.user, invitationUrl: '<redacted>' },
    });
    return host.showOnce(request, reply, `${m.href}/invited`, { url: made.invitationUrl, email: made.user.email });
  });

  scope.get(`${route}/invited`, { config }, async (request, reply) => {
    host.need(request, 'invite');
    const m = await host.merchantOf(request);
    const shown = host.takeOnce(request, reply);
    return host.page(
      request,
      reply,
      'Invitation link',
      html`<h1>Invitation for ${m.name}</h1><section class="card">
${
  shown?.url
    ? html`<p id="shown-once">Send this link to <strong>${shown.email ?? ''}</strong> over a channel you trust: it sets their password once, within 72 hours. <strong>It is shown this once:</strong> neither reloading nor coming back to this page shows it again.</p>
${secretField('invitation-link', 'Invitation link', shown.url)}`
    : html`<p id="shown-once" class="flash error"><strong>The invitation link was shown once</strong>, right after it was made, and is not shown again. To send a new one, press <em>Invite again</em> on the user’s row.</p>`
}
<p><a class="button secondary" href="${m.href}">Back to the users</a></p></section>`,
    );
  });

  scope.post<Params>(`${route}/:userId/role`, { config }, async (request, reply) => {
    const action = act('change merchant user role');
    const { merchant, user, self } = await userOf(request, 'role');
    if (self) return refuseSelf(request, reply, merchant, action);
    const fields = formOf(request);
    const refused = await refusedOr(request, reply, merchant, action, () =>
      users.changeRole(merchant.id, user.id, fields.role),
    );
    if (refused) return refused;
    await host.audit(request, {
      action,
      target: user.id,
      httpStatus: 200,
      fields,
      before: user,
      after: { role: fields.role },
    });
    return host.done(request, reply, merchant.href, `${user.email} is now ${fields.role}.`);
  });

  scope.post<Params>(`${route}/:userId/invitation`, { config }, async (request, reply) => {
    const action = act('invite merchant user again');
    const { merchant, user, self } = await userOf(request, 'reinvite');
    if (self) return refuseSelf(request, reply, merchant, action);
    let made: Awaited<ReturnType<typeof users.reinvite>> | undefined;
    const refused = await refusedOr(request, reply, merchant, action, async () => {
      made = await users.reinvite(merchant.id, user.id);
    });
    if (refused || !made) return refused;
    await host.audit(request, { action, target: user.id, httpStatus: 201, after: { invitationUrl: '<redacted>' } });
    return host.showOnce(request, reply, `${merchant.href}/invited`, {
      url: made.invitationUrl,
      email: made.user.email,
    });
  });

  scope.post<Params>(`${route}/:userId/reset-two-factor`, { config }, async (request, reply) => {
    const action = act('reset merchant user two-factor');
    const { merchant, user, self } = await userOf(request, 'reset-two-factor');
    if (self) return refuseSelf(request, reply, merchant, action);
    const refused = await refusedOr(request, reply, merchant, action, () => users.resetTwoFactor(merchant.id, user.id));
    if (refused) return refused;
    await host.audit(request, { action, target: user.id, httpStatus: 200, after: { twoFactor: false } });
    return host.done(
      request,
      reply,
      merchant.href,
      `Two-factor sign-in of ${user.email} is off: they sign in with the password.`,
    );
  });

  scope.post<Params>(`${route}/:userId/disable`, { config }, async (request, reply) => {
    const action = act('disable merchant user');
    const { merchant, user, self } = await userOf(request, 'disable');
    if (self) return refuseSelf(request, reply, merchant, action);
    const refused = await refusedOr(request, reply, merchant, action, () => users.disable(merchant.id, user.id));
    if (refused) return refused;
    await host.audit(request, { action, target: user.id, httpStatus: 200, after: { status: 'disabled' } });
    return host.done(request, reply, merchant.href, `${user.email} is disabled: their sessions ended.`);
  });
}

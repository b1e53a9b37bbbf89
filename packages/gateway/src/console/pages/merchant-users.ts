import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { MerchantUserView } from '../../merchants/merchant-users.ts';
import { MERCHANT_ROLES } from '../../records/merchant-user-records.ts';
import { jakartaTime } from '../../web/format.ts';
import { type Html, html } from '../../web/html.ts';
import { asConsoleError, formOf } from '../kit.ts';
import { merchantHref, secretField } from '../merchant-views.ts';
import { config, type OperatorPages } from '../operator.ts';
import { badge, csrfField, empty } from '../views.ts';

const USERS = '/admin/v1/merchants/:id/users';
const USER = '/admin/v1/merchants/:id/users/:userId';

const roleOptions = (selected: string) =>
  MERCHANT_ROLES.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`);

/**
 * A merchant's users in the console (docs/merchant-users.md): listed with their role, status and
 * two-factor sign-in; invited (the invitation link shown once, as a secret is), given another role,
 * invited again, disabled. The same service and rules as the admin API's routes.
 */
export function merchantUserPages(op: FastifyInstance, pages: OperatorPages): void {
  const { merchants, users } = pages.deps;
  const usersHref = (merchantId: string) => `${merchantHref(merchantId)}/users`;

  /** A refused action: back to the users page, which says why once. */
  async function refusedOr(
    request: FastifyRequest,
    reply: FastifyReply,
    merchantId: string,
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
      return pages.refused(request, reply, usersHref(merchantId), `Not done: ${why}`, {
        status: refusal.status === 409 ? 409 : 400,
        action,
        target: merchantId,
      });
    }
  }

  /** A user's row, its forms (with the session's CSRF token) when the key may change users. */
  function userRow(u: MerchantUserView, base: string, csrf: string, canEdit: boolean): Html {
    const at = `${base}/${encodeURIComponent(u.id)}`;
    const actions = canEdit && u.status !== 'disabled';
    return html`<tr id="user-${u.id}">
<td data-label="Email">${u.email}</td>
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

  op.get<{ Params: { id: string } }>('/merchants/:id/users', { config }, async (request, reply) => {
    const m = await merchants.get(request.params.id);
    const list = await users.list(m.id);
    const { csrf } = pages.operatorOf(request);
    const canEdit = pages.can(request, 'POST', USERS);
    const base = usersHref(m.id);
    return pages.page(
      request,
      reply,
      `Users of ${m.name}`,
      'merchants',
      html`<h1>Users of ${m.name}</h1>
<p class="muted">They sign in themselves at <code>/merchant</code>, each with a password, a role and, if they turn it on, a code from an authenticator app.</p>
${
  canEdit
    ? html`<section class="card"><h2>Invite a user</h2>
<form method="post" action="${base}" class="filters">${csrfField(csrf)}
<label>Email<input name="email" type="email" maxlength="254" required></label>
<label>Role<select name="role">${roleOptions('viewer')}</select></label>
<button type="submit">Invite</button></form>
<p class="muted">Owner: everything. Finance: money (refunds, payouts, links). Developer: callback settings, deliveries, replay. Viewer: read only.</p></section>`
    : ''
}
<section class="card"><h2>Users</h2>${
        list.length === 0
          ? empty('No users yet.')
          : html`<div class="table-wrap"><table class="stack" id="users">
<thead><tr><th>Email</th><th>Role</th><th>Status</th><th>Two-factor</th><th>Last sign-in</th><th>Actions</th></tr></thead>
<tbody>${list.map((u) => userRow(u, base, csrf, canEdit))}</tbody></table></div>`
      }</section>
<p><a class="button secondary" href="${merchantHref(m.id)}">Back to the merchant</a></p>`,
    );
  });

  op.post<{ Params: { id: string } }>('/merchants/:id/users', { config }, async (request, reply) => {
    pages.need(request, 'POST', USERS);
    const m = await merchants.get(request.params.id);
    const fields = formOf(request);
    let made: Awaited<ReturnType<typeof users.invite>> | undefined;
    const refused = await refusedOr(request, reply, m.id, 'console: invite merchant user', async () => {
      made = await users.invite(m.id, { email: fields.email, role: fields.role });
    });
    if (refused || !made) return refused;
    await pages.audit(request, {
      action: 'console: invite merchant user',
      target: made.user.id,
      httpStatus: 201,
      after: { ...made.user, invitationUrl: '<redacted>' },
    });
    return pages.showOnce(request, reply, `${usersHref(m.id)}/invited`, {
      url: made.invitationUrl,
      email: made.user.email,
    });
  });

  op.get<{ Params: { id: string } }>('/merchants/:id/users/invited', { config }, async (request, reply) => {
    pages.need(request, 'POST', USERS);
    const m = await merchants.get(request.params.id);
    const shown = pages.takeOnce(request, reply);
    return pages.page(
      request,
      reply,
      'Invitation link',
      'merchants',
      html`<h1>Invitation for ${m.name}</h1><section class="card">
${
  shown?.url
    ? html`<p id="shown-once">Send this link to <strong>${shown.email ?? ''}</strong> over a channel you trust: it sets their password once, within 72 hours. <strong>It is shown this once:</strong> neither reloading nor coming back to this page shows it again.</p>
${secretField('invitation-link', 'Invitation link', shown.url)}`
    : html`<p id="shown-once" class="flash error"><strong>The invitation link was shown once</strong>, right after it was made, and is not shown again. To send a new one, press <em>Invite again</em> on the user’s row.</p>`
}
<p><a class="button secondary" href="${usersHref(m.id)}">Back to the users</a></p></section>`,
    );
  });

  op.post<{ Params: { id: string; userId: string } }>(
    '/merchants/:id/users/:userId/role',
    { config },
    async (request, reply) => {
      pages.need(request, 'PATCH', USER);
      const { id, userId } = request.params;
      const fields = formOf(request);
      const before = await users.get(id, userId);
      const action = 'console: change merchant user role';
      const refused = await refusedOr(request, reply, id, action, () => users.changeRole(id, userId, fields.role));
      if (refused) return refused;
      await pages.audit(request, {
        action,
        target: userId,
        httpStatus: 200,
        fields,
        before,
        after: { role: fields.role },
      });
      return pages.done(request, reply, usersHref(id), `${before.email} is now ${fields.role}.`);
    },
  );

  op.post<{ Params: { id: string; userId: string } }>(
    '/merchants/:id/users/:userId/invitation',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', `${USER}/invitation`);
      const { id, userId } = request.params;
      let made: Awaited<ReturnType<typeof users.reinvite>> | undefined;
      const action = 'console: invite merchant user again';
      const refused = await refusedOr(request, reply, id, action, async () => {
        made = await users.reinvite(id, userId);
      });
      if (refused || !made) return refused;
      await pages.audit(request, { action, target: userId, httpStatus: 201, after: { invitationUrl: '<redacted>' } });
      return pages.showOnce(request, reply, `${usersHref(id)}/invited`, {
        url: made.invitationUrl,
        email: made.user.email,
      });
    },
  );

  op.post<{ Params: { id: string; userId: string } }>(
    '/merchants/:id/users/:userId/reset-two-factor',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', `${USER}/reset-two-factor`);
      const { id, userId } = request.params;
      const action = 'console: reset merchant user two-factor';
      let email = '';
      const refused = await refusedOr(request, reply, id, action, async () => {
        email = (await users.resetTwoFactor(id, userId)).email;
      });
      if (refused) return refused;
      await pages.audit(request, { action, target: userId, httpStatus: 200, after: { twoFactor: false } });
      return pages.done(
        request,
        reply,
        usersHref(id),
        `Two-factor sign-in of ${email} is off: they sign in with the password.`,
      );
    },
  );

  op.post<{ Params: { id: string; userId: string } }>(
    '/merchants/:id/users/:userId/disable',
    { config },
    async (request, reply) => {
      pages.need(request, 'POST', `${USER}/disable`);
      const { id, userId } = request.params;
      const action = 'console: disable merchant user';
      let email = '';
      const refused = await refusedOr(request, reply, id, action, async () => {
        email = (await users.disable(id, userId)).email;
      });
      if (refused) return refused;
      await pages.audit(request, { action, target: userId, httpStatus: 200, after: { status: 'disabled' } });
      return pages.done(request, reply, usersHref(id), `${email} is disabled: their sessions ended.`);
    },
  );
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderQrSvg } from '../../payments/qr-image.ts';
import type { MerchantUser } from '../../records/merchant-user-records.ts';
import { otpauthUri } from '../../secrets/totp.ts';
import { jakartaTime } from '../../web/format.ts';
import { Html, html } from '../../web/html.ts';
import { ConsoleError, formOf } from '../kit.ts';
import { DASHBOARD, TWO_FACTOR_PAGE } from '../merchant-sign-in.ts';
import { config } from '../operator.ts';
import { leaveNotice } from '../session.ts';
import { csrfField } from '../views.ts';
import type { PortalPages } from './portal-gate.ts';

/** The secret as people type it into an app: groups of four. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * `/merchant/two-factor` (docs/merchant-users.md#two-factor-sign-in): a merchant user turns
 * on TOTP sign-in: a new key (a QR code for the authenticator app, and the key as text), then the
 * first code it shows, which turns it on.
 */
export function twoFactorPages(p: FastifyInstance, pages: PortalPages): void {
  const { users } = pages.deps;
  const required = pages.deps.config.merchantTwoFactor === 'required';

  const userOf = (request: FastifyRequest): MerchantUser => {
    const user = pages.sessionOf(request).user;
    if (!user) throw new ConsoleError(404, 'two-factor sign-in is for merchant users, who sign in at /merchant');
    return user;
  };

  async function show(request: FastifyRequest, reply: FastifyReply, problem?: string) {
    const user = userOf(request);
    const { csrf } = pages.sessionOf(request);
    const start = (label: string) =>
      html`<form method="post" action="${TWO_FACTOR_PAGE}/start">${csrfField(csrf)}<button type="submit" id="two-factor-start">${label}</button></form>`;
    let body: Html;
    if (user.totpEnabledAt !== null) {
      body = html`<p id="two-factor-on">Two-factor sign-in is on since ${jakartaTime(user.totpEnabledAt)}: you sign in with your password and a code from your authenticator app.</p>`;
    } else if (user.totpSecret !== null) {
      const uri = otpauthUri({ issuer: 'snapgate', account: user.email, secret: user.totpSecret });
      const qr = new Html(await renderQrSvg(uri));
      body = html`<ol><li>Scan this code with your authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, …), or type the key below into it.</li>
<li>Enter the 6-digit code the app shows.</li></ol>
<figure class="qr" id="two-factor-qr" aria-label="QR code of your two-factor key">${qr}</figure>
<p>Key: <code id="two-factor-key">${grouped(user.totpSecret)}</code></p>
${problem ? html`<div class="flash error" role="alert" id="two-factor-problem">${problem}</div>` : ''}
<form method="post" action="${TWO_FACTOR_PAGE}">${csrfField(csrf)}
<label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required autofocus>
<button type="submit">Turn on two-factor sign-in</button></form>
${start('Start again with a new key')}`;
    } else {
      body = html`<p>With two-factor sign-in, signing in takes your password and a code from an authenticator app on your phone: a stolen password alone does not open your dashboard.</p>
${start('Set up two-factor sign-in')}`;
    }
    return pages.page(
      request,
      reply,
      'Two-factor sign-in',
      'two-factor',
      html`<h1>Two-factor sign-in</h1>
${required && user.totpEnabledAt === null ? html`<div class="flash error" role="alert" id="two-factor-required">Your gateway operator requires two-factor sign-in: turn it on to continue.</div>` : ''}
<section class="card">${body}</section>`,
      problem ? 400 : 200,
    );
  }

  p.get('/two-factor', { config }, async (request, reply) => show(request, reply));

  p.post('/two-factor/start', { config }, async (request, reply) => {
    const user = userOf(request);
    if (user.totpEnabledAt !== null) throw new ConsoleError(409, 'two-factor sign-in is on already');
    await users.startTwoFactor(user.id);
    await pages.audit(request, {
      action: 'merchant user: two-factor set-up started',
      target: user.id,
      httpStatus: 303,
    });
    return reply.redirect(TWO_FACTOR_PAGE, 303);
  });

  p.post('/two-factor', { config }, async (request, reply) => {
    const user = userOf(request);
    const fields = formOf(request);
    if (!(await users.confirmTwoFactor(user.id, (fields.code ?? '').slice(0, 16)))) {
      await pages.audit(request, {
        action: 'merchant user: two-factor sign-in on (refused)',
        target: user.id,
        httpStatus: 400,
      });
      // The page is shown again with the key as it is now.
      pages.sessionOf(request).user = (await users.activeUser(user.id)) ?? user;
      return show(request, reply, 'That code is not right: enter the code your app shows now.');
    }
    await pages.audit(request, { action: 'merchant user: two-factor sign-in on', target: user.id, httpStatus: 303 });
    leaveNotice(request, reply, pages.deps.sessions, DASHBOARD, {
      kind: 'ok',
      text: 'Two-factor sign-in is on: from now on you sign in with your password and a code from your app.',
    });
    return reply.redirect(DASHBOARD, 303);
  });
}

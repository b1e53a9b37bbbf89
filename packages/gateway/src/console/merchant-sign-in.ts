import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignInResult } from '../merchants/merchant-users.ts';
import { merchantCaller } from '../operators/caller.ts';
import { nonce } from '../operators/sessions.ts';
import { PasswordsBusy } from '../secrets/passwords.ts';
import { jakartaTime } from '../web/format.ts';
import { type Html, html } from '../web/html.ts';
import { audit, ConsoleError, checkCsrf, formOf, sendHtml } from './kit.ts';
import { type ConsoleDeps, config } from './operator.ts';
import { cookiesOf, setCookie } from './session.ts';
import { layout } from './views.ts';

/** The signed-in merchant user's session: read by the dashboard's pages, under /merchant. */
export const USER_COOKIE = 'snapgate_user';
/** A right password waiting for its TOTP code, and the sign-in forms' pre-session value: both for /merchant only. */
const CODE_COOKIE = 'snapgate_user_code';
const PRE_COOKIE = 'snapgate_user_pre';
const HERE = '/merchant';
/** The sign-in form (a signed-in user asking for it goes to the dashboard). */
export const SIGN_IN = HERE;
/** Where a signed-in user lands: the merchant's dashboard, and the page that turns on two-factor sign-in. */
export const DASHBOARD = '/merchant/transactions';
export const TWO_FACTOR_PAGE = '/merchant/two-factor';

/**
 * The request as the audit log keeps it: an invitation's path without its token (spent by then,
 * but a credential all the same).
 */
const auditable = (request: FastifyRequest): FastifyRequest =>
  ({
    ip: request.ip,
    method: request.method,
    url: request.url.replace(/^\/merchant\/invitation\/[^/?]+/, '/merchant/invitation/…'),
  }) as FastifyRequest;

/**
 * `/merchant` (docs/merchant-users.md): a merchant user's sign-in (email and password, then the
 * TOTP code when it is on), the invitation page where an invited user sets a password, and where
 * signing out leads. Throttled per account (the service) and per address (ConsoleDeps.merchantSignIns).
 */
export function merchantSignInPages(scope: FastifyInstance, deps: ConsoleDeps): void {
  const { sessions, users } = deps;

  function page(reply: FastifyReply, title: string, body: Html, status = 200) {
    return sendHtml(reply, layout({ title, area: 'none', product: 'merchant dashboard' }, body), status);
  }
  /** A form of these pages: its pre-session CSRF token (login CSRF: no session yet). */
  function preField(request: FastifyRequest, reply: FastifyReply): Html {
    const pre = nonce();
    setCookie(request, reply, PRE_COOKIE, pre, 3600, HERE);
    return html`<input type="hidden" name="_csrf" value="${sessions.mac(`pre.${pre}`)}">`;
  }
  const checkPre = (request: FastifyRequest, fields: Record<string, string>) =>
    checkCsrf(request, sessions, `pre.${cookiesOf(request)[PRE_COOKIE] ?? ''}`, fields);

  function signInForm(
    request: FastifyRequest,
    reply: FastifyReply,
    o: { email?: string; problem?: string; note?: string; status?: number } = {},
  ) {
    return page(
      reply,
      'Sign in',
      html`<section class="card login"><h1>Sign in to your merchant dashboard</h1>
${o.problem ? html`<div class="flash error" role="alert" id="sign-in-problem">${o.problem}</div>` : ''}
${o.note ? html`<div class="flash" role="status" id="sign-in-note">${o.note}</div>` : ''}
<form method="post" action="/merchant/sign-in">${preField(request, reply)}
<label for="email">Email</label><input id="email" name="email" type="email" class="wide" autocomplete="username" value="${o.email ?? ''}" required${o.email ? '' : html` autofocus`}>
<label for="password">Password</label><input id="password" name="password" type="password" class="wide" autocomplete="current-password" required${o.email ? html` autofocus` : ''}>
<button type="submit">Sign in</button></form>
<p class="muted">No account yet? Your gateway operator invites you: the invitation link sets your password.</p></section>`,
      o.status,
    );
  }

  /** Where an ended sign-in leads: signed in (the dashboard, or two-factor set-up first), or the code step. */
  async function after(request: FastifyRequest, reply: FastifyReply, result: SignInResult, email: string) {
    const ip = request.ip;
    switch (result.outcome) {
      case 'locked':
        reply.header('retry-after', String(Math.max(1, Math.ceil((result.until - deps.clock.now()) / 1000))));
        return signInForm(request, reply, {
          email,
          status: 429,
          problem: `Too many wrong passwords or codes for this account: it is locked until ${jakartaTime(result.until)}. Try again then, or ask your owner or gateway operator.`,
        });
      case 'refused':
        return signInForm(request, reply, { email, status: 401, problem: 'The email or the password is not right.' });
      case 'code-needed': {
        // The code step lasts from the password, not from the last wrong code.
        if (!result.wrongCode) {
          const session = await sessions.userSession('code', result.user);
          setCookie(request, reply, CODE_COOKIE, session.token, session.maxAgeSec, HERE);
        }
        return codeForm(request, reply, result.wrongCode ? 'That code is not right (or was used already).' : undefined);
      }
      case 'signed-in': {
        deps.merchantSignIns.forgive(ip);
        const session = await sessions.userSession('user', result.user);
        setCookie(request, reply, USER_COOKIE, session.token, session.maxAgeSec, HERE);
        setCookie(request, reply, CODE_COOKIE, '', 0, HERE);
        const { user } = result;
        await audit(deps.audit, auditable(request), merchantCaller(user.merchantId, user), {
          action: 'merchant user: sign in',
          target: user.id,
          httpStatus: 303,
        });
        return reply.redirect(result.setUpTwoFactor ? TWO_FACTOR_PAGE : DASHBOARD, 303);
      }
    }
  }

  function codeForm(request: FastifyRequest, reply: FastifyReply, problem?: string) {
    return page(
      reply,
      'Your code',
      html`<section class="card login"><h1>Two-factor sign-in</h1>
${problem ? html`<div class="flash error" role="alert" id="code-problem">${problem}</div>` : ''}
<form method="post" action="/merchant/code">${preField(request, reply)}
<label for="code">The 6-digit code from your authenticator app</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" maxlength="7" required autofocus>
<button type="submit">Continue</button></form></section>`,
      problem ? 401 : 200,
    );
  }

  /**
   * Each attempt is counted against its address before a password is tried; past the limit it is
   * refused without trying any. A sign-in that succeeds is taken back (after()).
   */
  function refuseFlood(request: FastifyRequest, reply: FastifyReply): boolean {
    const wait = deps.merchantSignIns.attempt('merchant', request.ip);
    if (wait === undefined) return false;
    reply.header('retry-after', String(wait));
    signInForm(request, reply, {
      status: 429,
      problem: `Too many failed sign-ins from your address: try again in ${wait} s.`,
    });
    return true;
  }

  /** What `run` answers, or null once the busy page is sent (too many passwords hashed at once). */
  async function busyOr<T>(request: FastifyRequest, reply: FastifyReply, run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof PasswordsBusy)) throw e;
      reply.header('retry-after', '1');
      signInForm(request, reply, { status: 503, problem: 'Too many sign-ins at once: try again in a moment.' });
      return null;
    }
  }

  scope.get('/', { config }, async (request, reply) => {
    // Signed in already: the dashboard.
    if (await sessions.userOf('user', cookiesOf(request)[USER_COOKIE])) return reply.redirect(DASHBOARD, 303);
    const ended = (request.query as { ended?: unknown } | undefined)?.ended !== undefined;
    return signInForm(request, reply, ended ? { note: 'You are signed out (the session ended): sign in again.' } : {});
  });
  scope.get('/sign-in', { config }, async (_request, reply) => reply.redirect(HERE, 303));

  scope.post('/sign-in', { config }, async (request, reply) => {
    const fields = formOf(request);
    checkPre(request, fields);
    if (refuseFlood(request, reply)) return reply;
    const email = (fields.email ?? '').slice(0, 254);
    const result = await busyOr(request, reply, () =>
      users.signIn({ email, password: (fields.password ?? '').slice(0, 1024) }),
    );
    return result ? after(request, reply, result, email) : reply;
  });

  scope.post('/code', { config }, async (request, reply) => {
    const fields = formOf(request);
    checkPre(request, fields);
    if (refuseFlood(request, reply)) return reply;
    const pending = await sessions.userOf('code', cookiesOf(request)[CODE_COOKIE]);
    if (!pending?.user) {
      return signInForm(request, reply, {
        status: 401,
        problem: 'The sign-in took too long: enter your password again.',
      });
    }
    const result = await users.signInWithCode(pending.user.id, (fields.code ?? '').slice(0, 16));
    return after(request, reply, result, pending.user.email);
  });

  scope.get<{ Params: { token: string } }>('/invitation/:token', { config }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return invitationPage(request, reply, request.params.token);
  });

  async function invitationPage(
    request: FastifyRequest,
    reply: FastifyReply,
    token: string,
    problem?: string,
    status = 200,
  ) {
    const invitation = await users.invitation(token);
    if (!invitation) {
      throw new ConsoleError(
        404,
        'this invitation link does not work: it was used already, it expired (after 72 hours), or the user was disabled. Ask your gateway operator for a new one.',
      );
    }
    return page(
      reply,
      'Set your password',
      html`<section class="card login"><h1>Welcome to ${invitation.merchantName}</h1>
<p>Set the password you sign in with as <strong id="invited-email">${invitation.email}</strong>.</p>
${problem ? html`<div class="flash error" role="alert" id="password-problem">${problem}</div>` : ''}
<form method="post" action="/merchant/invitation/${token}">${preField(request, reply)}
<input type="hidden" name="username" value="${invitation.email}" autocomplete="username">
<label for="password">New password</label><input id="password" name="password" type="password" class="wide" autocomplete="new-password" minlength="12" maxlength="256" required autofocus>
<label for="again">The same again</label><input id="again" name="again" type="password" class="wide" autocomplete="new-password" required>
<p class="muted">At least 12 characters; a few words you will remember are good. Common passwords are refused.</p>
<button type="submit">Set password and sign in</button></form></section>`,
      status,
    );
  }

  scope.post<{ Params: { token: string } }>('/invitation/:token', { config }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const fields = formOf(request);
    checkPre(request, fields);
    const { token } = request.params;
    const password = fields.password ?? '';
    if (password !== (fields.again ?? '')) {
      return invitationPage(request, reply, token, 'The two passwords are not the same.', 400);
    }
    const accepted = await busyOr(request, reply, () => users.acceptInvitation(token, password));
    if (accepted === null) return reply;
    if (!accepted) return invitationPage(request, reply, token);
    if ('problem' in accepted) {
      return invitationPage(request, reply, token, `This password is not taken: ${accepted.problem}.`, 400);
    }
    const { user } = accepted;
    await audit(deps.audit, auditable(request), merchantCaller(user.merchantId, user), {
      action: 'merchant user: set password (invitation)',
      target: user.id,
      httpStatus: 303,
    });
    return after(request, reply, { outcome: 'signed-in', user, setUpTwoFactor: true }, user.email);
  });

  scope.get('/signed-out', { config }, async (_request, reply) =>
    page(
      reply,
      'Signed out',
      html`<section class="card login"><h1>Signed out</h1><p id="signed-out">You are signed out of the merchant dashboard.</p><p><a class="button" href="/merchant">Sign in again</a></p></section>`,
    ),
  );
}

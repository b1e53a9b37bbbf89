import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_FAILURE_WINDOW_MS } from '../../http/auth-failures.ts';
import { operatorCaller } from '../../operators/caller.ts';
import { nonce } from '../../operators/sessions.ts';
import { jakartaTime } from '../../web/format.ts';
import { html } from '../../web/html.ts';
import { audit, checkCsrf, formOf, q, sendHtml } from '../kit.ts';
import { type ConsoleDeps, config, type OperatorPages } from '../operator.ts';
import { landingOf, loginUrl, safeTarget } from '../return-to.ts';
import { cookiesOf, leaveNotice, OPERATOR_COOKIE, PRE_COOKIE, setCookie, takeNotice } from '../session.ts';
import { type Flash, layout } from '../views.ts';

/** `/console`, the log-in page and the log-in itself: an admin key exchanged for a session cookie. */
export function signInPages(scope: FastifyInstance, deps: ConsoleDeps): void {
  const { sessions } = deps;

  // The limiter is made with this limit and window (app.ts); the page says what they are.
  const limit = deps.config.authFailureLimit;
  const minutes = Math.round(AUTH_FAILURE_WINDOW_MS / 60_000);
  const per = minutes === 1 ? 'minute' : `${minutes} minutes`;

  /** The log-in page; `next` (checked again on the post) is where a successful log-in lands. */
  function loginPage(
    request: FastifyRequest,
    reply: FastifyReply,
    next: string | undefined,
    flash?: Flash,
    status = 200,
  ) {
    const pre = nonce();
    setCookie(request, reply, PRE_COOKIE, pre, 3600);
    return sendHtml(
      reply,
      layout(
        { title: 'Log in', area: 'none', flash },
        html`<section class="card login"><h1>Log in to the snapgate console</h1>
<form method="post" action="/console/login">
<input type="hidden" name="_csrf" value="${sessions.mac(`pre.${pre}`)}"><input type="hidden" name="next" value="${next ?? ''}">
<label for="key">Admin key</label>
<input id="key" name="key" type="password" class="wide" autocomplete="current-password" required autofocus>
<p class="muted">An admin API key (read, operate or admin scope; an approve key sees and decides payouts only): SNAPGATE_ADMIN_TOKEN, or one made with <code>snapgate admin-key create</code>. It is exchanged for a session cookie and never stored in the browser.</p>
${next ? html`<p class="muted" id="login-next">After logging in you go back to <code>${next}</code>.</p>` : ''}
<button type="submit">Log in</button>
</form>
<p class="muted" id="login-limit">At most ${limit} failed log-ins per ${per} from one address, and ${limit} per ${per} with keys that start alike (counted together with the admin API's); past that, this page says when to try again. A valid key is always accepted.</p>
</section>`,
      ),
      status,
    );
  }

  scope.get('/', { config }, async (request, reply) =>
    reply.redirect(
      (await sessions.operatorOf(cookiesOf(request)[OPERATOR_COOKIE])) ? '/console/overview' : '/console/login',
      303,
    ),
  );
  scope.get('/login', { config }, async (request, reply) =>
    loginPage(
      request,
      reply,
      safeTarget(q(request.query, 'next', 1000), 'operator'),
      takeNotice(request, reply, sessions),
    ),
  );
  /** Back to the log-in page (still going to `next`), which says why once (Post/Redirect/Get). */
  const again = (request: FastifyRequest, reply: FastifyReply, next: string | undefined, text: string) => {
    leaveNotice(request, reply, sessions, '/console/login', { kind: 'error', text });
    return reply.redirect(loginUrl(next), 303);
  };
  scope.post('/login', { config }, async (request, reply) => {
    const fields = formOf(request);
    const next = safeTarget(fields.next, 'operator');
    const pre = cookiesOf(request)[PRE_COOKIE] ?? '';
    // A form of this console whose token went with an older page (a reload, a second tab): shown
    // again. Anything else without its token (another site, no pre-login cookie) is refused.
    const origin = request.headers.origin;
    const ours = origin === undefined || origin === 'null' || origin === `${request.protocol}://${request.host}`;
    if (ours && pre !== '' && !sessions.checkMac(`pre.${pre}`, fields._csrf)) {
      return again(request, reply, next, 'The log-in form had expired: enter the key again.');
    }
    checkCsrf(request, sessions, `pre.${pre}`, fields);
    const session = await sessions.signIn(fields.key || undefined);
    if (!session) {
      const waitSec = deps.authFailures.fail('console', request.ip, fields.key || undefined);
      if (waitSec !== undefined) {
        // Answered here, with Retry-After, as the admin API answers: a reload of it posts a
        // form whose token went with this page, refused without counting.
        reply.header('retry-after', String(waitSec));
        const at = jakartaTime(deps.clock.now() + waitSec * 1000).slice(11);
        return loginPage(
          request,
          reply,
          next,
          {
            kind: 'error',
            text: `Too many failed log-ins from this address or with keys like this one: try again in ${waitSec} seconds (at ${at}).`,
          },
          429,
        );
      }
      return again(request, reply, next, 'That admin key is not valid (or it was revoked).');
    }
    setCookie(request, reply, OPERATOR_COOKIE, session.token, session.maxAgeSec);
    setCookie(request, reply, PRE_COOKIE, '', 0);
    await audit(deps.audit, request, operatorCaller(session.key), {
      action: 'console: log in',
      target: session.key.id,
      httpStatus: 303,
    });
    return reply.redirect(landingOf(next, 'operator'), 303);
  });
}

/**
 * Log-out: every session of the key ends on the server too, not only this browser's cookie; the
 * log-in page it leads to says so, naming the key.
 */
export function signOutRoute(op: FastifyInstance, pages: OperatorPages): void {
  op.post('/logout', { config }, async (request, reply) => {
    const { key } = pages.operatorOf(request);
    await pages.deps.sessions.signOut(key.id);
    setCookie(request, reply, OPERATOR_COOKIE, '', 0);
    await pages.audit(request, { action: 'console: log out', target: null, httpStatus: 303 });
    leaveNotice(request, reply, pages.deps.sessions, '/console/login', {
      kind: 'ok',
      text: `Logged out of the key ${key.name}: every browser that was signed in with it is signed out now, not only this one.`,
    });
    return reply.redirect('/console/login', 303);
  });
}

import assert from 'node:assert/strict';
import { docsScreenshotPath } from '../helpers/docs-screenshots.ts';
import { ADMIN_TOKEN, startGateway } from '../helpers/gateway.ts';

/** A test gateway for the browser tests: startGateway with a short retry schedule. */
export function startConsoleGateway(options: { dispatch?: boolean; env?: Record<string, string> } = {}) {
  return startGateway({ dispatch: options.dispatch, env: { SNAPGATE_RETRY_SCHEDULE: '0s,1s', ...options.env } });
}

export type ConsoleGateway = Awaited<ReturnType<typeof startConsoleGateway>>;

/** A console screenshot for docs/console.md (see docsScreenshotPath). */
export const screenshotPath = (name: string) => docsScreenshotPath('console', name);

/** The console's session cookie (`name=value`), by a browser's log-in done by hand: the pre-login cookie and token, then the key. */
export async function signInByHand(url: string, key = ADMIN_TOKEN): Promise<string> {
  const form = await fetch(`${url}/console/login`);
  const pre = (form.headers.getSetCookie()[0] ?? '').split(';')[0] as string;
  const csrf = csrfIn(await form.text());
  const res = await fetch(`${url}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre, origin: url },
    body: new URLSearchParams({ _csrf: csrf, key }).toString(),
  });
  assert.equal(res.status, 303);
  const session = cookieOf(res, 'snapgate_console');
  assert.ok(session, 'the log-in sets the session cookie');
  return session;
}

/** The cookie `name` an answer sets, as a request sends it back (`name=value`), or undefined. */
export const cookieOf = (res: Response, name: string): string | undefined =>
  res.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${name}=`))
    ?.split(';')[0];

/** The CSRF token of a console page's forms. */
export const csrfIn = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

/** A console page, as the signed-in browser gets it. */
export async function getPage(url: string, session: string, path: string) {
  const res = await fetch(`${url}${path}`, { headers: { cookie: session }, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/**
 * A console form, posted as a browser on the console posts it: the session cookie, the session's
 * CSRF token (taken from a page), an Origin of this host. The redirect is not followed.
 */
export async function postForm(url: string, session: string, action: string, fields: Record<string, string>) {
  const csrf = csrfIn((await getPage(url, session, '/console/overview')).text);
  return fetch(`${url}${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session, origin: url },
    body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
  });
}

/**
 * The page a console form redirected to (Post/Redirect/Get), opened with the notice it left, and
 * that notice's text: `kind` `error` for a refusal, `ok` for what was done.
 */
export async function noticeAfter(
  url: string,
  session: string,
  res: Response,
  kind: 'ok' | 'error' = 'error',
): Promise<{ text: string | undefined; page: string }> {
  assert.equal(res.status, 303);
  const notice = cookieOf(res, 'snapgate_console_notice');
  assert.ok(notice, 'the form leaves its notice for the page');
  const page = await getPage(url, `${session}; ${notice}`, res.headers.get('location') as string);
  const role = kind === 'error' ? 'alert' : 'status';
  const text = new RegExp(`<div class="flash ${kind}" role="${role}">([^<]*)</div>`).exec(page.text)?.[1];
  return { text, page: page.text };
}
